"""A `PasswordHasher` for tests of concurrency bounds: each call runs until the test opens the gate,
and the hasher counts how many run at once (and the most that ever did)."""

from __future__ import annotations

import threading
import time

from engage_core.testing import FakePasswordHasher

WAIT_SECONDS = 30.0
"""How long `wait_until` waits for a condition: far beyond what a loaded machine needs."""


class GatedHasher:
    def __init__(self) -> None:
        self.gate = threading.Event()
        self.running = 0
        self.most = 0
        self._lock = threading.Lock()
        self._inner = FakePasswordHasher()

    def hash(self, password: str) -> str:
        with self._running():
            return self._inner.hash(password)

    def verify(self, password_hash: str, password: str) -> bool:
        with self._running():
            return self._inner.verify(password_hash, password)

    def wait_until_running(self, count: int) -> None:
        """Return once `count` calls are inside the hasher; fail after `WAIT_SECONDS`."""
        deadline = time.monotonic() + WAIT_SECONDS
        while self.running < count:
            assert time.monotonic() < deadline, f"{self.running} of {count} calls started"
            time.sleep(0.005)

    def _running(self) -> _Running:
        return _Running(self)


class _Running:
    def __init__(self, hasher: GatedHasher) -> None:
        self._hasher = hasher

    def __enter__(self) -> None:
        with self._hasher._lock:
            self._hasher.running += 1
            self._hasher.most = max(self._hasher.most, self._hasher.running)
        assert self._hasher.gate.wait(WAIT_SECONDS), "the test never opened the gate"

    def __exit__(self, *exc: object) -> None:
        with self._hasher._lock:
            self._hasher.running -= 1
