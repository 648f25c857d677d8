"""`engage_sql.alone`: a unit of work's only statement committed by itself on PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Connection, text
from sqlalchemy.exc import OperationalError

from engage_sql import Database
from engage_sql.alone import alone

INSERT = text("INSERT INTO alone_probe (id) VALUES (1)")


@pytest.fixture
def connection(database: Database) -> Iterator[Connection]:
    """A connection with an empty session table `alone_probe` and no transaction sent yet."""
    with database.engine.connect() as connection:
        connection.execute(text("CREATE TEMPORARY TABLE IF NOT EXISTS alone_probe (id INTEGER)"))
        connection.execute(text("DELETE FROM alone_probe"))  # a pooled connection keeps its session's tables
        connection.commit()
        connection.begin()
        yield connection


def _rows(connection: Connection) -> int:
    return int(connection.execute(text("SELECT count(*) FROM alone_probe")).scalar_one())


def test_a_first_statement_is_committed_by_itself_on_postgresql(connection: Connection, backend: str) -> None:
    """On PostgreSQL the transaction's first statement, alone, outlives a rollback; on SQLite it does not."""
    with alone(connection):
        connection.execute(INSERT)
    connection.rollback()

    assert _rows(connection) == (1 if backend == "postgres" else 0)


def test_after_another_statement_it_stays_in_the_transaction(connection: Connection) -> None:
    """A statement after the transaction's first is part of the transaction: a rollback undoes it."""
    _rows(connection)
    with alone(connection):
        connection.execute(INSERT)
    connection.rollback()

    assert _rows(connection) == 0


def test_a_connection_lost_mid_statement_raises_its_own_error(
    database: Database, connection: Connection, backend: str
) -> None:
    """A backend that dies under the statement gives its OperationalError, and the connection is not reused."""
    if backend != "postgres":
        pytest.skip("a PostgreSQL connection")
    driver = connection.connection.driver_connection
    pid = driver.info.backend_pid  # type: ignore[union-attr]
    with database.engine.connect() as other:
        other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})

    with pytest.raises(OperationalError), alone(connection):
        connection.execute(INSERT)

    assert driver.closed  # type: ignore[union-attr]
