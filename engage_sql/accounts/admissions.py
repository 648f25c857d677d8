"""Admissions kept between requests on PostgreSQL, forgotten by every process when they may change.

Every workspace request begins with its admission: the key's account, its workspace's suspension
and the plan in force, one statement (`SqlAccountRepository.admission`). On PostgreSQL that
statement is a round trip, the first of two for a page of contacts. `AdmissionCache` keeps the
admissions a process has read, by key digest, and hands them to the next requests of the key:

- **Every process forgets on any change.** A trigger on each table admission reads (`accounts`,
  `partner_clients`, `plans`, migration 0027) sends `NOTIFY engage_admission` with every statement
  that changes one of them, whoever runs it (engage, another process, an operator in psql), except
  an account's insert (its new key cannot be kept anywhere yet); the notice is sent when that
  transaction commits. `admission_listener` holds one listening connection
  per process and empties the cache at each notice. A process's own admin and partner units of work
  empty it themselves as they commit, so that a revoked key is refused by the very next request on
  that process, before its notice arrives.
- **Nothing read before a change is kept after it.** The cache has a generation, moved on by every
  emptying; a read records the generation before its statement and keeps its admission only if
  the generation has not moved (`put`). A read that began before a change committed and ends after
  its notice arrived is used by its own request (as it would be without the cache) but not kept.
- **No listener, no cache.** Until the listener has sent `LISTEN`, and from the moment its
  connection fails until it listens again, the cache keeps and hands out nothing: a notice could
  have been missed. Each (re)connection empties it.
- **Bounded.** At most `MAX_ENTRIES` admissions (the oldest dropped first), each for at most
  `MAX_AGE_SECONDS`, a bound on staleness should a notice be lost some way not foreseen here.
  A scheduled plan change is honoured as the memo does (`Admission.holds_at`). An unknown key is
  never kept.

SQLite has no cache: its admission is an in-process read of a few microseconds.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Hashable

from sqlalchemy import Engine

from engage_core.accounts.model import Admission
from engage_sql.notices import NoticeListener

CHANNEL = "engage_admission"
"""The NOTIFY channel of the admission triggers (migration 0027)."""

MAX_ENTRIES = 10_000
MAX_AGE_SECONDS = 60.0

Kept = tuple[Admission, str]
"""An admission and its account's key digest, as `SqlAccountRepository.admission` returns them."""


class AdmissionCache:
    """Admissions by key, shared by a process's threads and its event loop (module docstring)."""

    def __init__(self, *, max_entries: int = MAX_ENTRIES, max_age: float = MAX_AGE_SECONDS) -> None:
        self._entries: OrderedDict[Hashable, tuple[float, Kept]] = OrderedDict()
        self._lock = threading.Lock()
        self._generation = 0
        self._listening = False
        self._max_entries = max_entries
        self._max_age = max_age

    @property
    def generation(self) -> int:
        """Take it before reading what `put` will keep."""
        return self._generation

    def get(self, key: Hashable) -> Kept | None:
        """The admission kept for `key`, if any and not too old."""
        entry = self._entries.get(key)
        if entry is None or time.monotonic() - entry[0] > self._max_age:
            return None
        return entry[1]

    def put(self, key: Hashable, value: Kept, generation: int) -> None:
        """Keep `value`, read after `generation` was taken, unless the cache was emptied since."""
        with self._lock:
            if not self._listening or generation != self._generation:
                return
            self._entries[key] = (time.monotonic(), value)
            self._entries.move_to_end(key)
            if len(self._entries) > self._max_entries:
                self._entries.popitem(last=False)

    def forget(self) -> None:
        """Empty the cache: something admission reads has changed, or may have."""
        with self._lock:
            self._generation += 1
            self._entries.clear()

    def listening(self, on: bool) -> None:
        """Whether every change is being heard; either way, what is kept may be stale: empty it."""
        with self._lock:
            self._listening = on
            self._generation += 1
            self._entries.clear()


def admission_listener(engine: Engine, cache: AdmissionCache) -> NoticeListener:
    """The listener that empties `cache` at each admission change's notice; the cache keeps nothing
    while it does not listen."""
    return NoticeListener(
        engine, CHANNEL, lambda _payload: cache.forget(), name="engage-admission-listen", on_hearing=cache.listening
    )
