"""Live notices across processes through PostgreSQL LISTEN/NOTIFY (web chat's live delivery).

Several `engage serve` processes share one PostgreSQL; a visitor's stream may be held by one while
the agent's message is written by another, or the AI's reply by a worker. `PostgresLiveFeed.publish`
sends `NOTIFY engage_web_chat, '<account>:<session_id>'` (after the change committed); every process
runs one listening connection whose thread hands each notice to its local feed (the hub that wakes
the streams). A notice is only a wake-up: streams read the messages from the tables, so a notice
lost while the listener reconnects delays nothing beyond the streams' own periodic look.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import Engine, text

logger = logging.getLogger(__name__)

CHANNEL = "engage_web_chat"
RECONNECT_SECONDS = 2.0

Deliver = Callable[[int, str], None]


class PostgresLiveFeed:
    """A `LiveFeed` that tells every process (itself included) through NOTIFY."""

    def __init__(self, engine: Engine, deliver: Deliver) -> None:
        self._engine = engine
        self._deliver = deliver
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def publish(self, account_id: int, session_id: str) -> None:
        """NOTIFY every listening process; on failure, at least this process's streams."""
        try:
            with self._engine.connect() as connection:
                connection.execute(text("SELECT pg_notify(:c, :p)"), {"c": CHANNEL, "p": f"{account_id}:{session_id}"})
                connection.commit()
        except Exception:  # the database is away: the streams will look again on their own
            logger.warning("Could not NOTIFY a web chat session; delivering in this process only", exc_info=True)
            self._deliver(account_id, session_id)

    def start(self) -> None:
        """Start listening in a daemon thread."""
        self._thread = threading.Thread(target=self._listen_forever, name="engage-live-listen", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _listen_forever(self) -> None:
        while not self._stop.is_set():
            try:
                self._listen()
            except Exception:
                logger.warning("The web chat listener lost its connection; reconnecting", exc_info=True)
                self._stop.wait(RECONNECT_SECONDS)

    def _listen(self) -> None:
        raw = self._engine.raw_connection()
        try:
            driver = raw.driver_connection
            assert driver is not None
            driver.autocommit = True
            driver.execute(f"LISTEN {CHANNEL}")
            while not self._stop.is_set():
                # Wait at most a second at a time, so `stop` is noticed soon.
                for notice in driver.notifies(timeout=1.0):
                    account, _, session_id = notice.payload.partition(":")
                    if account.isdigit():
                        self._deliver(int(account), session_id)
        finally:
            raw.invalidate()  # never hand a LISTENing connection back to the pool
