"""Engines for the two supported databases, configured as DESIGN.md prescribes.

SQLite: WAL (readers never block the writer), `synchronous=FULL` (a commit survives power loss),
`busy_timeout` (wait for the write lock instead of failing), `foreign_keys=ON` (cascades), and
transactions that really begin when SQLAlchemy begins them. The stdlib driver would otherwise
start them lazily, before the first write only, which breaks repeatable reads and lets two
read-then-write transactions deadlock on the upgrade to a write lock. So the driver is put in
autocommit mode and we emit `BEGIN IMMEDIATE` ourselves (the write lock up front, so writers queue)
or a plain deferred `BEGIN` for read-only units of work (the SQLAlchemy SQLite "Using SQLAlchemy
to emit BEGIN" recipe, done in the dialect's `do_begin` rather than a "begin" event: see
`_sqlite_do_begin`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from typing import Any

import orjson
import sqlalchemy
from sqlalchemy import Connection, Engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.engine.base import OptionEngine
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.pool import ConnectionPoolEntry, Pool, PoolProxiedConnection, QueuePool

READONLY = "engage_readonly"
"""Key of the pooled SQLite connection's `info` marking it read-only until checkin."""

SQLITE_BUSY_TIMEOUT_MS = 5000

THREADPOOL_SIZE = 40
"""Threads that may hold a connection at once: the HTTP service runs each request in Starlette's
threadpool, whose default limit (anyio's) is 40 threads."""

SQLITE_POOL_SIZE = THREADPOOL_SIZE
"""SQLite connections kept open. A connection is a file handle and its page cache, and opening one
costs four PRAGMAs, so every thread of the pool keeps its own: with SQLAlchemy's default of 5,
the 6th concurrent request opened (and closed) a connection every time."""

SQLITE_POOL_OVERFLOW = 20
"""Connections opened beyond the pool when every pooled one is in use (then closed on return): the
readers' threads, the event loop's short reads (`engage_http.routing`), the group commit's connection
and the delivery worker may all hold one while the writers' threads hold theirs. A connection is
cheap; a checkout that waits for one would stall its caller, the event loop included."""

POSTGRES_POOL_SIZE = 10
"""PostgreSQL connections kept open per process; up to `THREADPOOL_SIZE` when busy. A server
connection is a backend process, and several workers share one server's `max_connections`."""


def json_text(value: Any) -> str:
    """The stored text of a JSON column's value: orjson's compact UTF-8 (several times faster than
    `json.dumps`, and every event written has a payload), or `json.dumps`'s for what orjson refuses
    (an integer beyond 64 bits, a key that is not a string). Either reads back as the same value.
    Datetimes and dataclasses are refused as `json.dumps` refuses them: a column holds JSON values."""
    try:
        return orjson.dumps(value, option=orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value)


def database_url(url: str) -> URL:
    """Parse a database URL, choosing our driver: `postgresql://` (or `postgres://`) means psycopg 3."""
    parsed = make_url(url)
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise ValueError(f"unsupported database {parsed.get_backend_name()!r}: use sqlite:/// or postgresql://")
    return parsed


def deployment_name(url: str) -> str:
    """A short stable name of the database `url` points at (12 hex digits): its engine, host, port and
    database, or for SQLite its absolute path; never the user or password. Processes of one deployment
    share it; two deployments with different databases never do."""
    parsed = database_url(url)
    if parsed.get_backend_name() == "sqlite":
        where = os.path.abspath(parsed.database or "")
    else:
        where = f"{parsed.host or ''}:{parsed.port or 5432}/{parsed.database or ''}"
    identity = f"{parsed.get_backend_name()}:{where}"
    return hashlib.sha256(identity.encode()).hexdigest()[:12]


POSTGRES_CONNECT_TIMEOUT_SECONDS = 10
"""How long opening a PostgreSQL connection may take before it fails."""


def create_engine(url: str) -> Engine:
    """An engine for `url`, safe to share between threads (each unit of work checks out its own connection)."""
    parsed = database_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed)
    # connect_timeout: an unreachable server fails a request (503) in seconds, not after the TCP
    # stack's minutes; a `connect_timeout` in the URL's query wins.
    connect_args = {} if "connect_timeout" in parsed.query else {"connect_timeout": POSTGRES_CONNECT_TIMEOUT_SECONDS}
    engine = sqlalchemy.create_engine(
        parsed,
        connect_args=connect_args,
        json_serializer=json_text,
        pool_size=POSTGRES_POOL_SIZE,
        max_overflow=THREADPOOL_SIZE - POSTGRES_POOL_SIZE,
        pool_use_lifo=True,
    )
    # Not `pool_pre_ping`, which pings at every checkout (a round trip per unit of work): a
    # connection is pinged only when it has been idle long enough for a restart or failover to have
    # dropped it (`_ping_after_idle`). One dropped while in use fails its statement, which SQLAlchemy
    # recognises as a disconnect and invalidates the pool for.
    event.listen(engine.pool, "checkout", _ping_after_idle)
    event.listen(engine.pool, "checkin", _note_idle_since)
    return engine


POSTGRES_PING_AFTER_IDLE_SECONDS = 5.0
"""A pooled PostgreSQL connection idle for longer is pinged before it is handed out."""

IDLE_SINCE = "engage_idle_since"
"""Key of a pooled connection's `info`: when it was last returned to the pool (monotonic seconds)."""


def _note_idle_since(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
    record.info[IDLE_SINCE] = time.monotonic()


def _ping_after_idle(dbapi_connection: Any, record: ConnectionPoolEntry, _proxy: PoolProxiedConnection) -> None:
    idle_since = record.info.get(IDLE_SINCE)
    if idle_since is None or time.monotonic() - idle_since < POSTGRES_PING_AFTER_IDLE_SECONDS:
        return  # just opened, or recently used
    try:
        dbapi_connection.pgconn.exec_(b";")  # what SQLAlchemy's pre-ping sends for psycopg
        alive = dbapi_connection.pgconn.status == 0  # libpq's CONNECTION_OK
    except Exception:  # any failure of the ping means the connection is gone
        alive = False
    if not alive:
        # The pool discards the connection and checks out another (a new one if need be).
        raise DisconnectionError("the pooled connection did not answer a ping")


def create_read_engine(
    engine: Engine,
    *,
    read_only_guard: bool = True,
    pool_size: int = POSTGRES_POOL_SIZE,
    max_overflow: int = THREADPOOL_SIZE - POSTGRES_POOL_SIZE,
    connect: Callable[..., Any] | None = None,
) -> Engine | None:
    """For PostgreSQL, the engine of read-only units of work; None for SQLite (they use `engine`).

    Its connections are in autocommit: a unit of work of one read is then that one statement, not
    `BEGIN READ ONLY`, the read and `ROLLBACK` (three round trips). Every statement still sees one
    consistent snapshot, as it did: engage's transactions run at READ COMMITTED, where each
    statement takes its own snapshot anyway. They come from a pool of their own, opened with
    `default_transaction_read_only=on` when `read_only_guard` is set (the default), so that a write
    slipped into a read-only unit of work still fails loudly. A connection pooler in transaction
    mode (PgBouncer's `pool_mode = transaction`) refuses or drops such startup options: turn the
    guard off there (`ENGAGE_DATABASE_READ_ONLY_GUARD=false`). `connect` opens the connections
    instead of the dialect's driver (`loop_calls.CooperativeConnection.connect`).

    It shares `engine`'s dialect and event listeners (statement listeners, tracing) and its pool's
    listeners (the ping after idle)."""
    if engine.dialect.name != "postgresql":
        return None
    options = "-c default_transaction_read_only=on" if read_only_guard else None
    return create_pool_engine(
        engine, connect, pool_size=pool_size, max_overflow=max_overflow, autocommit=True, options=options
    )


def create_pool_engine(
    engine: Engine,
    connect: Callable[..., Any] | None,
    *,
    pool_size: int,
    max_overflow: int,
    autocommit: bool = False,
    options: str | None = None,
) -> Engine:
    """A PostgreSQL engine sharing `engine`'s dialect, compiled cache and event listeners, with a pool
    of its own whose connections `connect` opens (the driver's own when None), in `autocommit` or
    not, with the server `options` added to the URL's."""
    dialect = engine.dialect
    cargs, cparams = dialect.create_connect_args(engine.url)
    if "connect_timeout" not in cparams:
        cparams["connect_timeout"] = POSTGRES_CONNECT_TIMEOUT_SECONDS
    if autocommit:
        cparams["autocommit"] = True
    if options:
        cparams["options"] = " ".join(filter(None, (cparams.get("options"), options)))

    def open_connection() -> Any:
        return dialect.connect(*cargs, **cparams) if connect is None else connect(*cargs, **cparams)

    side = _ReadEngine(engine, {})
    side.pool = QueuePool(
        open_connection,
        pool_size=pool_size,
        max_overflow=max_overflow,
        use_lifo=True,
        dialect=dialect,
    )
    # The same pool event dispatch, not a copy: listeners added to `engine` or its pool later (tests,
    # metrics) see this pool's checkouts too.
    side.pool.dispatch = engine.pool.dispatch
    return side


class _ReadEngine(OptionEngine):
    """An engine sharing another's dialect, compiled cache and event dispatch (an `OptionEngine`), with
    a pool of its own: `OptionEngine.pool` is the proxied engine's, and assigning it would replace that."""

    pool: Pool = None  # type: ignore[assignment]  # a plain attribute shadowing the proxied property


def readonly_options(connection: Connection) -> None:
    """Mark `connection` read-only before its transaction begins (until it is returned to the pool)."""
    if connection.dialect.name == "postgresql":
        if connection.connection.driver_connection.autocommit:  # type: ignore[union-attr]
            return  # a read engine's connection (`create_read_engine`): no transaction to mark
        # `BEGIN READ ONLY`: a write slipped into a read-only unit of work fails loudly.
        connection.execution_options(postgresql_readonly=True)
    else:
        connection.connection.info[READONLY] = True


def _sqlite_engine(url: URL) -> Engine:
    if url.database in (None, "", ":memory:"):
        raise ValueError("an in-memory SQLite database is private to one connection: use a file")
    # LIFO: the connections in use stay the few with warm page caches.
    engine = sqlalchemy.create_engine(
        url,
        json_serializer=json_text,
        pool_size=SQLITE_POOL_SIZE,
        max_overflow=SQLITE_POOL_OVERFLOW,
        pool_use_lifo=True,
    )
    event.listen(engine, "connect", _sqlite_on_connect)
    event.listen(engine, "checkin", _sqlite_on_checkin)
    # SQLAlchemy calls `dialect.do_begin` at every BEGIN (for pysqlite, a no-op). Emitting our BEGIN
    # there rather than from a "begin" event listener keeps the engine free of connection events:
    # with any, SQLAlchemy dispatches events around every statement, checkout and transaction,
    # which cost a unit of work of one query about a third of its time.
    engine.dialect.do_begin = _sqlite_do_begin  # type: ignore[method-assign, assignment]
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


def _sqlite_do_begin(connection: PoolProxiedConnection) -> None:
    """`BEGIN IMMEDIATE`, or `BEGIN` on a connection marked by `readonly_options`.

    Straight to the driver: this runs for every unit of work. A failure (`database is locked` once
    `busy_timeout` has passed) is wrapped in SQLAlchemy's `OperationalError` by the caller."""
    connection.driver_connection.execute("BEGIN" if connection.info.get(READONLY) else "BEGIN IMMEDIATE")  # type: ignore[union-attr]


def _sqlite_on_checkin(_dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
    # The read-only mark lasts one checkout: the next borrower of the connection may write.
    record.info.pop(READONLY, None)
