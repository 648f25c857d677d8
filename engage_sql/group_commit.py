"""Group commit of SQLite write transactions: one fsync for many units of work.

SQLite has one writer at a time: a write unit of work begins with `BEGIN IMMEDIATE`, so writers
queue for the write lock, and with `synchronous=FULL` each one holds it across the fsync of its own
COMMIT. Under concurrent writes the fsyncs, one after the other, are the ceiling of the whole
process (hundreds of commits a second on a slow disk).

Here the write units of work of one process share one connection and one transaction, each inside
a SAVEPOINT of its own, and they take turns on a lock instead of on SQLite's. A unit of work that
commits releases its savepoint, and the transaction is committed (one fsync) by whichever unit of
work leaves with nobody waiting to join, or when `MAX_GROUP` units of work have taken part.
Meanwhile the writers that arrive queue up and form the next group. So:

- `commit()` returns once the COMMIT that contains the change has returned: a commit is exactly as
  durable as before (`synchronous=FULL` is untouched), and other connections see it from then on.
- A unit of work left without `commit()` is rolled back to its savepoint: nothing of it remains.
- The units of work of a group run one at a time, in the order they took the lock, and each sees
  what the previous ones committed; all of it becomes durable and visible together.
- None returns before the group's COMMIT when it could have seen a change of the group: if that
  COMMIT fails, every unit of work that committed in the group, or saw one that did, raises.
- Nothing changes across processes: a group takes SQLite's write lock (`BEGIN IMMEDIATE`) like a
  single writer, and waits at most `busy_timeout` for a writer of another process.

Read-only units of work never take part: they have connections of their own and see only what is
committed. PostgreSQL needs none of this (it commits concurrent transactions concurrently and
flushes its WAL for several at once by itself).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from typing import Final

import attrs
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import OperationalError

MAX_GROUP: Final = 64
"""Units of work in one transaction at most, which bounds how long a member waits for its COMMIT."""


class GroupCommitFailed(OperationalError):
    """The group's transaction could not be committed: nothing of any of its units of work was kept."""


@attrs.define(eq=False)
class _Group:
    """One transaction, shared by the units of work that take part in it."""

    connection: Connection
    participants: int = 0
    committed: int = 0
    error: BaseException | None = None
    done: threading.Event = attrs.Factory(threading.Event)


@attrs.define(eq=False)
class Member:
    """One unit of work's part in a group: its savepoint on the shared connection."""

    group: _Group

    @property
    def connection(self) -> Connection:
        return self.group.connection


SAVEPOINT = "engage_unit_of_work"
"""The savepoint of the unit of work whose turn it is: always the outermost one, so one fixed name.

The savepoint statements go straight to the driver: SQLAlchemy's `begin_nested()` compiles its
statements anew each time (their names differ), which cost more than the rest of a unit of work."""


def _driver_execute(connection: Connection, statement: str) -> None:
    dbapi_connection = connection.connection.driver_connection
    assert dbapi_connection is not None
    try:
        dbapi_connection.execute(statement)
    except sqlite3.Error as exc:
        raise OperationalError(statement, None, exc) from exc


class WriteGroups:
    """The write transactions of one engine, committed in groups. Thread-safe; share one per engine."""

    def __init__(self, engine: Engine, *, lock_timeout: float = 5.0, max_group: int = MAX_GROUP) -> None:
        self._engine = engine
        self._lock_timeout = lock_timeout
        self._max_group = max_group
        self._turn = threading.Lock()  # held by the unit of work whose turn it is
        self._count = threading.Lock()  # guards `_waiting`
        self._waiting = 0  # threads blocked in `enter`
        self._group: _Group | None = None  # the open transaction, if any
        self._local = threading.local()

    def enter(self) -> Member:
        """Wait for this thread's turn, then join the open transaction (or begin one) in a savepoint.

        Raises OperationalError (`database is locked`) after `lock_timeout` seconds, as a
        `BEGIN IMMEDIATE` would after SQLite's `busy_timeout`; RuntimeError when this thread already
        has a write unit of work open (it would wait for itself).
        """
        if getattr(self._local, "inside", False):
            raise RuntimeError("this thread already has a write unit of work open: nest no writers")
        with self._count:
            self._waiting += 1
        try:
            acquired = self._turn.acquire(timeout=self._lock_timeout)
        finally:
            with self._count:
                self._waiting -= 1
        if not acquired:
            raise OperationalError("BEGIN IMMEDIATE", None, sqlite3.OperationalError("database is locked"))
        try:
            group = self._group
            if group is None:
                connection = self._engine.connect()
                try:
                    connection.begin()  # BEGIN IMMEDIATE: SQLite's write lock, for the whole group
                except BaseException:
                    connection.close()
                    raise
                group = self._group = _Group(connection)
            _driver_execute(group.connection, f"SAVEPOINT {SAVEPOINT}")
        except BaseException as exc:
            if self._group is not None:  # the shared transaction is unusable: fail it, wake its members
                failed, self._group = self._group, None
                failed.error = failed.error or exc
                self._finish(failed)
            self._turn.release()
            raise
        group.participants += 1
        self._local.inside = True
        return Member(group)

    def leave(self, member: Member, *, commit: bool) -> None:
        """Release (`commit`) or roll back the member's savepoint and end its turn; then, unless it
        took no part in anything that could still be lost, wait for the group's COMMIT.

        Raises GroupCommitFailed when that COMMIT failed (or the transaction was lost before it)."""
        group = member.group
        try:
            try:
                if not commit:
                    _driver_execute(group.connection, f"ROLLBACK TO SAVEPOINT {SAVEPOINT}")
                _driver_execute(group.connection, f"RELEASE SAVEPOINT {SAVEPOINT}")
                if commit:
                    group.committed += 1
            except BaseException as exc:  # the shared transaction is in an unknown state: give it up
                group.error = group.error or exc
            # Whether its outcome hangs on the group's COMMIT: it committed, or saw what others did.
            exposed = group.committed > 0
            must_wait = exposed
            if group.error is not None or self._waiting == 0 or group.participants >= self._max_group:
                self._group = None
                self._finish(group)
                must_wait = False
        finally:
            self._local.inside = False
            self._turn.release()
        if must_wait:
            group.done.wait()
        if group.error is not None and exposed:
            raise GroupCommitFailed(
                "COMMIT", None, group.error if isinstance(group.error, Exception) else Exception(group.error)
            ) from group.error

    def _finish(self, group: _Group) -> None:
        """COMMIT the group (ROLLBACK if nothing in it was committed, or it failed); wake its members."""
        connection = group.connection
        try:
            if group.committed and group.error is None:
                connection.commit()
            else:
                connection.rollback()
        except BaseException as exc:
            group.error = group.error or exc
            with contextlib.suppress(Exception):  # the transaction is being given up anyway
                connection.rollback()
        finally:
            connection.close()
            group.done.set()
