"""Engines: URL handling, SQLite's pragmas and locking, PostgreSQL's read-only transactions."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import event, insert, select, text
from sqlalchemy.exc import DBAPIError

from engage_sql import Database
from engage_sql.engines import POSTGRES_CONNECT_TIMEOUT_SECONDS, create_engine, database_url, json_text
from engage_sql.webhooks.tables import events

from .conftest import START


def test_postgresql_url_uses_psycopg() -> None:
    """`postgresql://` is served by psycopg 3."""
    assert database_url("postgresql://app@db.internal/engage").drivername == "postgresql+psycopg"


def test_postgres_scheme_is_accepted() -> None:
    """The `postgres://` spelling many hosts hand out works too."""
    assert database_url("postgres://app@db.internal/engage").drivername == "postgresql+psycopg"


class Connecting(Exception):
    """Raised instead of opening a connection: the test only wants the arguments."""


def connect_arguments(url: str, want: str) -> object:
    """The driver argument `want` the engine for `url` would connect with (nothing is opened)."""
    engine = create_engine(url)

    def capture(_dialect: object, _record: object, _args: object, params: dict[str, object]) -> None:
        raise Connecting(params.get(want))

    event.listen(engine, "do_connect", capture)
    with pytest.raises(Connecting) as caught:
        engine.connect()
    return caught.value.args[0]


def test_postgresql_connections_give_up_after_a_connect_timeout() -> None:
    """An unreachable PostgreSQL fails in seconds: the engine connects with a `connect_timeout`."""
    url = "postgresql://app@db.invalid/engage"
    assert connect_arguments(url, "connect_timeout") == POSTGRES_CONNECT_TIMEOUT_SECONDS


def test_a_connect_timeout_in_the_url_wins() -> None:
    """`?connect_timeout=3` in the URL is the one used."""
    assert connect_arguments("postgresql://app@db.invalid/engage?connect_timeout=3", "connect_timeout") == "3"


def test_unsupported_database_is_refused() -> None:
    """Only SQLite and PostgreSQL are supported."""
    with pytest.raises(ValueError, match="unsupported database"):
        database_url("mysql://app@db.internal/engage")


def test_in_memory_sqlite_is_refused() -> None:
    """An in-memory SQLite database would be private to one pooled connection."""
    with pytest.raises(ValueError, match="in-memory"):
        Database.connect("sqlite:///:memory:")


def test_sqlite_connections_are_configured(tmp_path: Path) -> None:
    """Every SQLite connection runs WAL, synchronous=FULL, a busy timeout and foreign keys."""
    database = Database.connect(f"sqlite:///{tmp_path / 'engage.db'}")
    try:
        with database.engine.connect() as connection:
            pragmas = [
                connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "synchronous", "busy_timeout", "foreign_keys")
            ]
    finally:
        database.dispose()

    assert pragmas == ["wal", 2, 5000, 1]


@pytest.mark.parametrize(("readonly", "locks"), [(False, True), (True, False)])
def test_sqlite_transactions_begin_as_their_unit_of_work_needs(tmp_path: Path, readonly: bool, locks: bool) -> None:
    """Write units of work take SQLite's write lock up front (`BEGIN IMMEDIATE`); read-only ones
    begin a transaction (`BEGIN`) that takes none."""
    path = tmp_path / "engage.db"
    database = Database.connect(f"sqlite:///{path}")
    database.upgrade()
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        with database.uow.workspace(1, readonly=readonly) as uow:
            dbapi_connection = uow.connection.connection.dbapi_connection
            assert dbapi_connection is not None
            assert dbapi_connection.in_transaction
            try:
                other.execute("BEGIN IMMEDIATE")
                other.execute("ROLLBACK")
                locked = False
            except sqlite3.OperationalError as exc:
                locked = "locked" in str(exc)
    finally:
        other.close()
        database.dispose()

    assert locked is locks


def test_reader_is_not_blocked_by_an_open_writer(database: Database, make_account: Callable[..., int]) -> None:
    """A read-only unit of work reads committed data while a write transaction is open."""
    account = make_account()
    with database.uow.workspace(account) as writer, database.uow.workspace(account, readonly=True) as reader:
        writer.lists.add("Draft", datetime.now(UTC))

        assert reader.lists.list() == []


def test_sqlite_writers_take_turns(tmp_path: Path) -> None:
    """A second SQLite writer waits at BEGIN for the first to commit, then reads its change."""
    database = Database.connect(f"sqlite:///{tmp_path / 'engage.db'}")
    database.upgrade()
    with database.uow.admin() as admin:
        account = admin.accounts.add("Acme", "0" * 64, "eng_abcd…", datetime.now(UTC)).id
        admin.commit()
    seen_by_second: list[int] = []

    def second_writer() -> None:
        with database.uow.workspace(account) as uow:
            seen_by_second.append(len(uow.lists.list()))

    try:
        with database.uow.workspace(account) as first:
            first.lists.add("First", datetime.now(UTC))
            thread = threading.Thread(target=second_writer)
            thread.start()
            time.sleep(0.2)  # long enough for the second writer to reach BEGIN IMMEDIATE and wait
            first.commit()
        thread.join(timeout=10)
    finally:
        database.dispose()

    assert seen_by_second == [1]


def test_postgres_readonly_unit_of_work_refuses_writes(backend: str, database: Database) -> None:
    """On PostgreSQL a write inside a read-only unit of work fails instead of slipping through."""
    if backend != "postgres":
        pytest.skip("read-only transactions are enforced by PostgreSQL only")
    with database.uow.admin(readonly=True) as uow, pytest.raises(DBAPIError, match="read-only"):
        uow.connection.execute(text("CREATE TABLE forbidden (id integer)"))


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30) | st.text(),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=12,
    )
)
def test_json_column_text_reads_back_as_the_value(value: object) -> None:
    """What a JSON column stores parses back to the value written, integers beyond 64 bits included."""
    assert json.loads(json_text(value)) == value


def test_json_column_text_refuses_a_datetime() -> None:
    """A datetime is not a JSON value: refused, as `json.dumps` refuses it."""
    with pytest.raises(TypeError):
        json_text({"at": datetime(2026, 1, 1, tzinfo=UTC)})


def test_json_columns_keep_integers_beyond_64_bits(database: Database, account: int) -> None:
    """A payload holding a 30-digit integer reads back exact from the database."""
    payload = {"n": 123456789012345678901234567890, "name": "Zoë"}
    row = {"account_id": account, "name": "x", "payload": payload, "occurred_at": START, "created_at": START}
    with database.engine.begin() as connection:
        connection.execute(insert(events).values(row))
        stored = connection.execute(select(events.c.payload).where(events.c.name == "x")).scalar_one()

    assert stored == payload
