"""PostgresLiveFeed: web chat's live notices reach every process through LISTEN/NOTIFY."""

from __future__ import annotations

import threading
import time

import pytest

from engage_sql import Database, PostgresLiveFeed


class Received:
    def __init__(self) -> None:
        self.notices: list[tuple[int, str]] = []
        self.arrived = threading.Event()

    def __call__(self, account_id: int, session_id: str) -> None:
        self.notices.append((account_id, session_id))
        self.arrived.set()


def test_a_notice_reaches_another_listener(database: Database, backend: str) -> None:
    """A notice published through one engine reaches the listener of another engine on the same database."""
    if backend != "postgres":
        pytest.skip("LISTEN/NOTIFY is PostgreSQL's")
    other = Database.connect(database.engine.url.render_as_string(hide_password=False))
    received = Received()
    listener = PostgresLiveFeed(other.engine, received)
    listener.start()
    try:
        publisher = PostgresLiveFeed(database.engine, Received())
        deadline = time.monotonic() + 60
        # The listener may not be listening yet: publish until it hears (a notice only wakes streams).
        while not received.arrived.wait(0.2):
            assert time.monotonic() < deadline, "no notice arrived"
            publisher.publish(7, "wcs_abc")
        assert received.notices[0] == (7, "wcs_abc")
    finally:
        listener.stop()
        other.dispose()
