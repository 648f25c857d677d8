"""Engines for the two supported databases, configured as DESIGN.md prescribes.

SQLite: WAL (readers never block the writer), `synchronous=FULL` (a commit survives power loss),
`busy_timeout` (wait for the write lock instead of failing), `foreign_keys=ON` (cascades), and
transactions that really begin when SQLAlchemy begins them. The stdlib driver would otherwise
start them lazily, before the first write only, which breaks repeatable reads and lets two
read-then-write transactions deadlock on the upgrade to a write lock. So the driver is put in
autocommit mode and we emit `BEGIN IMMEDIATE` ourselves (the write lock up front, so writers queue)
or a plain deferred `BEGIN` for read-only units of work (the SQLAlchemy SQLite "Using SQLAlchemy
to emit BEGIN" recipe).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy
from sqlalchemy import Connection, Engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import ConnectionPoolEntry

READONLY = "engage_readonly"
"""Execution option marking a connection whose transactions only read."""

SQLITE_BUSY_TIMEOUT_MS = 5000


def database_url(url: str) -> URL:
    """Parse a database URL, choosing our driver: `postgresql://` (or `postgres://`) means psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise ValueError(f"unsupported database {parsed.get_backend_name()!r}: use sqlite:/// or postgresql://")
    return parsed


def create_engine(url: str) -> Engine:
    """An engine for `url`, safe to share between threads (each unit of work checks out its own connection)."""
    parsed = database_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed)
    # pool_pre_ping: a connection dropped by a PostgreSQL restart or failover is replaced, not reported.
    return sqlalchemy.create_engine(parsed, pool_pre_ping=True)


def readonly_options(connection: Connection) -> None:
    """Mark `connection` read-only before its transaction begins."""
    if connection.dialect.name == "postgresql":
        # `BEGIN READ ONLY`: a write slipped into a read-only unit of work fails loudly.
        connection.execution_options(postgresql_readonly=True)
    connection.execution_options(**{READONLY: True})


def _sqlite_engine(url: URL) -> Engine:
    if url.database in (None, "", ":memory:"):
        raise ValueError("an in-memory SQLite database is private to one connection: use a file")
    engine = sqlalchemy.create_engine(url)
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "begin", _sqlite_on_begin)
    return engine


def _sqlite_on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    # Driver-level autocommit: the driver emits no BEGIN of its own; `_sqlite_on_begin` does.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


def _sqlite_on_begin(connection: Connection) -> None:
    readonly = connection.get_execution_options().get(READONLY, False)
    connection.exec_driver_sql("BEGIN" if readonly else "BEGIN IMMEDIATE")
