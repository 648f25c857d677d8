"""Live delivery inside one process: the server-sent event streams wait here for news of their session.

`LiveHub` is the `LiveFeed` of one process: `publish` (from any thread: request handlers run in the
threadpool, the AI's replies in the worker's thread) wakes every stream of that session. A stream
never takes its messages from the notice: it reads what follows the last `seq` it sent from storage,
so a notice that arrives twice, late or never (another process wrote, without LISTEN/NOTIFY) costs a
read, never a message (streams also look again every `POLL_SECONDS`). Across processes, the PostgreSQL
feed (`engage_sql.live`) relays every process's notices to every hub.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager

Key = tuple[int, str]

EVERY_TOPIC = "*"
"""Subscribing to it hears every notice of the account (the dashboard's inbox: its channels'
conversations and every web chat session)."""


class LiveHub:
    """Wakes the streams waiting on a session (account, session_id)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: dict[Key, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}

    def publish(self, account_id: int, session_id: str) -> None:
        """Wake the session's streams, and the account's listeners of every topic (thread-safe; returns
        at once)."""
        with self._lock:
            waiters = [
                *self._waiters.get((account_id, session_id), ()),
                *self._waiters.get((account_id, EVERY_TOPIC), ()),
            ]
        for loop, event in waiters:
            with contextlib.suppress(RuntimeError):  # the loop closed under a stream being torn down
                loop.call_soon_threadsafe(event.set)

    @contextmanager
    def subscribe(self, account_id: int, session_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever the session is published, for as long as the block lasts (on the loop)."""
        entry = (asyncio.get_running_loop(), asyncio.Event())
        key = (account_id, session_id)
        with self._lock:
            self._waiters.setdefault(key, set()).add(entry)
        try:
            yield entry[1]
        finally:
            with self._lock:
                waiting = self._waiters.get(key)
                if waiting is not None:
                    waiting.discard(entry)
                    if not waiting:
                        del self._waiters[key]

    def listeners(self) -> int:
        """How many streams wait (for metrics and the benchmark)."""
        with self._lock:
            return sum(len(w) for w in self._waiters.values())
