"""`engage_sql.unavailable`: the storage failures a client should retry, read from real driver errors
on SQLite and PostgreSQL; any other failure is not one."""

from __future__ import annotations

import socket
import threading

import pytest
import sqlalchemy
from sqlalchemy import exc as sa_exc

from engage_core.kernel.errors import Unavailable
from engage_sql import Database, unavailable
from engage_sql.engines import create_engine
from engage_sql.retryable import BUSY_RETRY_AFTER, UNREACHABLE


def closed_port() -> int:
    """A port of 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _failure(database: Database, *setup: str) -> sa_exc.DBAPIError:
    """The error of creating and filling a table after the `setup` statements, on one connection, which
    is then discarded (its settings must not reach other tests)."""
    with database.engine.connect() as connection:
        for statement in setup:
            connection.execute(sqlalchemy.text(statement))
        with pytest.raises(sa_exc.DBAPIError) as failed:
            _fill(connection)
        connection.rollback()
        connection.invalidate()
    return failed.value


def _fill(connection: sqlalchemy.Connection) -> None:
    """Create a table and write about 800 KB into it."""
    connection.execute(sqlalchemy.text("CREATE TABLE filler (x TEXT)"))
    connection.execute(sqlalchemy.text("INSERT INTO filler VALUES (:x)"), [{"x": "x" * 4000} for _ in range(200)])


def test_a_write_in_a_read_only_transaction_is_unavailable(database: Database) -> None:
    """SQLite `PRAGMA query_only` (SQLITE_READONLY) and PostgreSQL `default_transaction_read_only`
    (25006) both read as Unavailable with a retry hint."""
    setup = "PRAGMA query_only = 1" if database.engine.dialect.name == "sqlite" else "SET TRANSACTION READ ONLY"

    found = unavailable(_failure(database, setup))

    assert isinstance(found, Unavailable) and found.retry_after


def test_a_postgresql_deadlock_victim_is_unavailable(database: Database) -> None:
    """The transaction PostgreSQL rolls back to break a deadlock (40P01) reads as busy: retry shortly."""
    if database.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has one writer at a time: its writers never deadlock")
    with database.engine.begin() as connection:
        connection.execute(sqlalchemy.text("CREATE TABLE pair (id INT PRIMARY KEY, n INT)"))
        connection.execute(sqlalchemy.text("INSERT INTO pair VALUES (1, 0), (2, 0)"))
    first_locked, second_locked = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def cross(mine: int, other: int, locked: threading.Event, wait_for: threading.Event) -> None:
        with database.engine.connect() as connection:
            try:
                connection.execute(sqlalchemy.text(f"UPDATE pair SET n = n + 1 WHERE id = {mine}"))
                locked.set()
                assert wait_for.wait(timeout=60)
                connection.execute(sqlalchemy.text(f"UPDATE pair SET n = n + 1 WHERE id = {other}"))
                connection.commit()
            except sa_exc.DBAPIError as exc:
                failures.append(exc)

    threads = [
        threading.Thread(target=cross, args=(1, 2, first_locked, second_locked)),
        threading.Thread(target=cross, args=(2, 1, second_locked, first_locked)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    with database.engine.begin() as connection:
        connection.execute(sqlalchemy.text("DROP TABLE pair"))

    [victim] = failures
    found = unavailable(victim)
    assert isinstance(found, Unavailable) and found.retry_after == BUSY_RETRY_AFTER


def test_a_full_sqlite_database_is_unavailable(database: Database) -> None:
    """SQLITE_FULL ("database or disk is full", here from `max_page_count`) reads as Unavailable."""
    if database.engine.dialect.name != "sqlite":
        pytest.skip("max_page_count is SQLite's")
    with database.engine.connect() as connection:
        pages = connection.execute(sqlalchemy.text("PRAGMA page_count")).scalar_one()

    found = unavailable(_failure(database, f"PRAGMA max_page_count = {pages}"))

    assert isinstance(found, Unavailable) and found.retry_after


def test_other_failures_are_not_unavailable(database: Database) -> None:
    """A syntax error is a bug, not a state to wait out: None."""
    with database.engine.connect() as connection, pytest.raises(sa_exc.DBAPIError) as failed:
        connection.execute(sqlalchemy.text("SELEC 1"))

    assert unavailable(failed.value) is None


def test_a_postgresql_server_that_refuses_connections_is_unavailable() -> None:
    """No server listening (a restart, a failover) reads as Unavailable, not as a bug."""
    pytest.importorskip("psycopg")
    engine = create_engine(f"postgresql://postgres@127.0.0.1:{closed_port()}/test")
    with pytest.raises(sa_exc.OperationalError) as failed:
        engine.connect()
    engine.dispose()

    found = unavailable(failed.value)

    assert isinstance(found, Unavailable) and found.message == UNREACHABLE
