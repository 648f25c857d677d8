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
from collections.abc import Callable

from sqlalchemy import Engine, text

from engage_sql.notices import NoticeListener

logger = logging.getLogger(__name__)

CHANNEL = "engage_web_chat"

Deliver = Callable[[int, str], None]


class PostgresLiveFeed:
    """A `LiveFeed` that tells every process (itself included) through NOTIFY."""

    def __init__(self, engine: Engine, deliver: Deliver) -> None:
        self._engine = engine
        self._deliver = deliver
        self._listener = NoticeListener(engine, CHANNEL, self._heard, name="engage-live-listen")

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
        self._listener.start()

    def stop(self) -> None:
        self._listener.stop()

    def _heard(self, payload: str) -> None:
        account, _, session_id = payload.partition(":")
        if account.isdigit():
            self._deliver(int(account), session_id)
