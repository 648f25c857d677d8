"""The real `PasswordHasher`: argon2id through argon2-cffi, behind a bound on concurrent hashes.

The default parameters are RFC 9106's second recommended profile (argon2-cffi's
`RFC_9106_LOW_MEMORY`: 3 passes over 64 MiB with 4 lanes, a 16-byte salt, a 32-byte tag), tens of
milliseconds per hash. Every hash carries its parameters and salt (`$argon2id$v=19$m=65536,t=3,
p=4$<salt>$<tag>`), so hashes made under older parameters keep verifying after a change, and
`needs_rehash` says which to replace at the next sign-in.

Only argon2id hashes are accepted: a hash of another variant or any other text verifies as false.

Each hash (and each verification) holds `memory_cost` of memory while it runs, so as many at once as
the server has request threads could take gigabytes. `BoundedHasher` lets `slots` run at once (by
default as many as a quarter of the memory available at start-up holds, at most one per CPU),
queues up to `queue` more for at most `wait_seconds`, and refuses the rest at once with the core's
`Unavailable` (503 with `Retry-After`): a full queue answers rather than grows.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import argon2
from argon2.exceptions import InvalidHashError, VerificationError

from engage_core.kernel.errors import Unavailable
from engage_core.team.ports import PasswordHasher

PREFIX = "$argon2id$"
MEMORY_SHARE = 4
"""Hashes at once may take at most 1/MEMORY_SHARE of the memory available at start-up."""
DEFAULT_QUEUE = 16
DEFAULT_WAIT_SECONDS = 10.0
RETRY_AFTER_SECONDS = 2
BUSY_MESSAGE = "The server is busy hashing passwords. Retry shortly."


class Argon2idHasher:
    def __init__(
        self,
        *,
        time_cost: int = argon2.profiles.RFC_9106_LOW_MEMORY.time_cost,
        memory_cost: int = argon2.profiles.RFC_9106_LOW_MEMORY.memory_cost,
        parallelism: int = argon2.profiles.RFC_9106_LOW_MEMORY.parallelism,
    ) -> None:
        """`memory_cost` is in KiB. Lower costs are for tests only."""
        self.memory_cost = memory_cost
        self._hasher = argon2.PasswordHasher(
            time_cost=time_cost, memory_cost=memory_cost, parallelism=parallelism, type=argon2.Type.ID
        )

    def hash(self, password: str) -> str:
        return self._hasher.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        if not password_hash.startswith(PREFIX):
            return False
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):  # a mismatch, or a hash damaged in storage
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        """Whether the hash was made with other parameters than this hasher's."""
        try:
            return self._hasher.check_needs_rehash(password_hash)
        except InvalidHashError:
            return True


class BoundedHasher:
    """A `PasswordHasher` running at most `slots` hashes and verifications of `inner` at once.

    A call finding every slot taken waits, with at most `queue` others, up to `wait_seconds` for one;
    beyond the queue, or past the wait, it raises `Unavailable` (retry after `retry_after` seconds)."""

    def __init__(
        self,
        inner: PasswordHasher,
        slots: int,
        *,
        queue: int = DEFAULT_QUEUE,
        wait_seconds: float = DEFAULT_WAIT_SECONDS,
        retry_after: int = RETRY_AFTER_SECONDS,
    ) -> None:
        if slots < 1 or queue < 0:
            raise ValueError("A bounded hasher needs at least one slot and a queue of zero or more.")
        self.inner = inner
        self.slots = slots
        self.queue = queue
        self._wait_seconds = wait_seconds
        self._retry_after = retry_after
        self._running = 0
        self._waiting = 0
        self._turn = threading.Condition()

    def hash(self, password: str) -> str:
        with self._slot():
            return self.inner.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        with self._slot():
            return self.inner.verify(password_hash, password)

    @contextmanager
    def _slot(self) -> Iterator[None]:
        with self._turn:
            if self._running >= self.slots:
                if self._waiting >= self.queue:
                    raise Unavailable(BUSY_MESSAGE, retry_after=self._retry_after)
                self._waiting += 1
                try:
                    free = self._turn.wait_for(lambda: self._running < self.slots, timeout=self._wait_seconds)
                finally:
                    self._waiting -= 1
                if not free:
                    raise Unavailable(BUSY_MESSAGE, retry_after=self._retry_after)
            self._running += 1
        try:
            yield
        finally:
            with self._turn:
                self._running -= 1
                self._turn.notify()


def default_slots(memory_cost_kib: int) -> int:
    """Hashes at once that fit in 1/MEMORY_SHARE of the memory available now, at most one per CPU
    (a hash is CPU-bound: more at once only queue for the cores), and at least one."""
    budget = available_memory() // MEMORY_SHARE
    by_memory = budget // (memory_cost_kib * 1024)
    return max(1, min(os.cpu_count() or 1, by_memory))


def available_memory() -> int:
    """Bytes of memory available to new work: Linux's `MemAvailable` (else the free pages), or
    less when this process's cgroup (a container's memory limit) leaves less."""
    available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        limit = _read_int("/sys/fs/cgroup/memory.max")
        used = _read_int("/sys/fs/cgroup/memory.current")
    except (OSError, ValueError):  # no cgroup v2 limit ("max" is no number)
        return available
    return min(available, max(0, limit - used))


def _read_int(path: str) -> int:
    with open(path, encoding="ascii") as handle:
        return int(handle.read().strip())


def bounded_argon2id(slots: int | None = None, queue: int = DEFAULT_QUEUE) -> BoundedHasher:
    """The production hasher: argon2id with `slots` hashes at once (None: `default_slots`)."""
    inner = Argon2idHasher()
    return BoundedHasher(inner, slots or default_slots(inner.memory_cost), queue=queue)
