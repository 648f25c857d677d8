"""Storage failures a client should retry, as the core's `Unavailable` (503 with `Retry-After`).

Some failures are the database's state, not the request's fault, and pass: the disk is full, the
database was made read-only (a failover in progress, a full volume remounted, an operator's switch),
every connection is taken, or the write lock did not come in time. `unavailable(exc)` names them,
looking through SQLAlchemy's wrapper and the exception's causes to the driver's error (the
seconds are the `Retry-After`):

- disk or database full (30 s): SQLite's `SQLITE_FULL` ("database or disk is full"); PostgreSQL's
  SQLSTATE class 53 (`53100` disk full, `53200` out of memory, ...);
- read-only (30 s): `SQLITE_READONLY` ("attempt to write a readonly database"); `25006`
  (read-only SQL transaction: `default_transaction_read_only`, a hot standby);
- too busy (5 s): `SQLITE_BUSY` ("database is locked", after `busy_timeout`); `53300` too many
  connections, `57P03` cannot connect now (or a connection refused for either reason, which
  carries only the server's message); no pooled connection free in time; `40P01` and `40001`, a
  transaction PostgreSQL rolled back to break a deadlock or a serialisation conflict with another
  (nothing of it was written, and the same request run again does not meet the other);
- unreachable (5 s): PostgreSQL refused the connection, or did not answer within
  `connect_timeout` (a restart, a failover, a network partition).

Anything else is None: an unexpected error stays a 500.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

from sqlalchemy import exc as sa_exc

from engage_core.kernel.errors import Unavailable

STORE_FULL_OR_READONLY = "The database cannot store changes right now. Retry later."
BUSY = "The database is busy. Retry shortly."
UNREACHABLE = "The database cannot be reached. Retry shortly."
FULL_OR_READONLY_RETRY_AFTER = 30
BUSY_RETRY_AFTER = 5

_SQLITE_BUSY, _SQLITE_READONLY, _SQLITE_FULL = 5, 8, 13
_SQLITE_MESSAGES = {
    "database or disk is full": _SQLITE_FULL,
    "attempt to write a readonly database": _SQLITE_READONLY,
    "database is locked": _SQLITE_BUSY,
}
_BUSY_SQLSTATES = frozenset({"53300", "57P03", "40P01", "40001"})
_BUSY_AT_CONNECT = ("too many connections", "the database system is")
"""A refused connection carries no SQLSTATE, only the server's message: too many connections (for
the server, database or role), or a server starting up, shutting down or recovering."""
_UNREACHABLE_AT_CONNECT = ("connection failed:", "connection timeout expired")
"""psycopg's messages when no server answered: refused, unreachable, or silent past `connect_timeout`."""


def unavailable(exc: BaseException) -> Unavailable | None:
    """The `Unavailable` a storage failure stands for, or None when it is no such failure."""
    for error in _causes(exc):
        if isinstance(error, sa_exc.TimeoutError):  # no pooled connection came free in time
            return Unavailable(BUSY, retry_after=BUSY_RETRY_AFTER)
        if isinstance(error, sqlite3.Error):
            return _sqlite(error)
        sqlstate = getattr(error, "sqlstate", None)
        if isinstance(sqlstate, str):
            return _postgres(sqlstate)
        if type(error).__module__.startswith("psycopg") and any(text in str(error) for text in _BUSY_AT_CONNECT):
            return Unavailable(BUSY, retry_after=BUSY_RETRY_AFTER)
        if type(error).__module__.startswith("psycopg") and str(error).startswith(_UNREACHABLE_AT_CONNECT):
            return Unavailable(UNREACHABLE, retry_after=BUSY_RETRY_AFTER)
    return None


def _sqlite(error: sqlite3.Error) -> Unavailable | None:
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else _SQLITE_MESSAGES.get(str(error))
    if primary == _SQLITE_BUSY:
        return Unavailable(BUSY, retry_after=BUSY_RETRY_AFTER)
    if primary in (_SQLITE_FULL, _SQLITE_READONLY):
        return Unavailable(STORE_FULL_OR_READONLY, retry_after=FULL_OR_READONLY_RETRY_AFTER)
    return None


def _postgres(sqlstate: str) -> Unavailable | None:
    if sqlstate in _BUSY_SQLSTATES:
        return Unavailable(BUSY, retry_after=BUSY_RETRY_AFTER)
    if sqlstate.startswith("53") or sqlstate == "25006":
        return Unavailable(STORE_FULL_OR_READONLY, retry_after=FULL_OR_READONLY_RETRY_AFTER)
    return None


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """`exc`, the driver error SQLAlchemy wrapped in it, and their causes, each once."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        error = pending.pop(0)
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        orig = getattr(error, "orig", None)
        pending.extend([orig if isinstance(orig, BaseException) else None, error.__cause__, error.__context__])
