"""`NoticeListener`: one thread per process holding a connection that LISTENs on a PostgreSQL channel.

NOTIFY reaches every listening session when its transaction commits, so a process learns of what
other processes (and operators in psql) changed. A lost connection is reopened every few seconds;
the listener says when it starts and stops hearing, since notices sent in between are lost.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

logger = logging.getLogger(__name__)

RECONNECT_SECONDS = 2.0


class NoticeListener:
    """Calls `on_notice(payload)` for each notice on `channel`, on a daemon thread named `name`, and
    `on_hearing(True)` once it listens, `on_hearing(False)` once it no longer does."""

    def __init__(
        self,
        engine: Engine,
        channel: str,
        on_notice: Callable[[str], None],
        *,
        name: str,
        on_hearing: Callable[[bool], None] | None = None,
    ) -> None:
        self._engine = engine
        self._channel = channel
        self._on_notice = on_notice
        self._on_hearing = on_hearing or (lambda _hearing: None)
        self._name = name
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start listening in a daemon thread."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._listen_forever, name=self._name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._on_hearing(False)

    def _listen_forever(self) -> None:
        while not self._stop.is_set():
            try:
                self._listen()
            except Exception:
                logger.warning("The %s listener lost its connection; reconnecting", self._channel, exc_info=True)
            finally:
                self._on_hearing(False)
            self._stop.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        raw = self._engine.raw_connection()
        try:
            driver: Any = raw.driver_connection
            driver.autocommit = True
            driver.execute(f"LISTEN {self._channel}")
            self._on_hearing(True)
            while not self._stop.is_set():
                # Wait at most a second at a time, so that `stop` is noticed soon.
                for notice in driver.notifies(timeout=1.0):
                    self._on_notice(notice.payload)
        finally:
            raw.invalidate()  # never hand a LISTENing connection back to the pool
