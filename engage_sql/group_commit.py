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

A thread may also hold the turn for several units of work in a row (`batch()`: the write lane,
`write_lane.py`): its units of work join the open transaction in savepoints as above, but their
`commit()` returns as soon as the savepoint is released, and the group is committed when the batch
ends. Whoever runs a batch answers for its units of work only after that.

Read-only units of work never take part, except in a batch (where they see what the batch wrote):
they have connections of their own and see only what is committed. PostgreSQL needs none of this
(it commits concurrent transactions concurrently and flushes its WAL for several at once by itself).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from typing import Final

import attrs
from sqlalchemy import Connection, Engine
from sqlalchemy.exc import OperationalError

from engage_sql.transaction_memo import forget

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
    """One unit of work's part in a group: its savepoint on the shared connection (none for a reader
    in a batch, `WriteGroups.read_in_batch`)."""

    group: _Group
    reader: bool = False

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
        self._standby: Connection | None = None  # the connection of the next group, between groups
        self._local = threading.local()

    @property
    def batching(self) -> bool:
        """Whether this thread holds the turn for a batch (`batch()`)."""
        return bool(getattr(self._local, "batch", False))

    @property
    def broken(self) -> bool:
        """Whether the open transaction has failed: nothing more can join it, nothing of it will be kept."""
        group = self._group
        return group is not None and group.error is not None

    def _take_turn(self) -> None:
        with self._count:
            self._waiting += 1
        try:
            acquired = self._turn.acquire(timeout=self._lock_timeout)
        finally:
            with self._count:
                self._waiting -= 1
        if not acquired:
            raise OperationalError("BEGIN IMMEDIATE", None, sqlite3.OperationalError("database is locked"))

    def enter(self) -> Member:
        """Wait for this thread's turn, then join the open transaction (or begin one) in a savepoint.
        In a batch, the turn is the batch's already.

        Raises OperationalError (`database is locked`) after `lock_timeout` seconds, as a
        `BEGIN IMMEDIATE` would after SQLite's `busy_timeout`; RuntimeError when this thread already
        has a write unit of work open (it would wait for itself).
        """
        if getattr(self._local, "inside", False):
            raise RuntimeError("this thread already has a write unit of work open: nest no writers")
        batch = self.batching
        if not batch:
            self._take_turn()
        try:
            group = self._group
            if group is None:
                group = self._group = self._begin()
            elif group.error is not None:  # only in a batch: a failed group is ended by the batch
                raise GroupCommitFailed("SAVEPOINT", None, Exception("the batch's transaction has failed"))
            _driver_execute(group.connection, f"SAVEPOINT {SAVEPOINT}")
        except BaseException as exc:
            if self._group is not None:  # the shared transaction is unusable: fail it, wake its members
                self._group.error = self._group.error or exc
                if not batch:
                    failed, self._group = self._group, None
                    self._finish(failed)
            if not batch:
                self._turn.release()
            raise
        group.participants += 1
        self._local.inside = True
        return Member(group)

    def read_in_batch(self) -> Member:
        """A read-only unit of work's part in this thread's batch: the batch's connection, so that
        it reads what the batch wrote, with no savepoint (it writes nothing) and no turn of its
        own (it may open inside, or around, a writing one)."""
        group = self._group
        if not self.batching:
            raise RuntimeError("only a batch's thread reads in the batch")
        if group is None:
            group = self._group = self._begin()
        elif group.error is not None:
            raise GroupCommitFailed("SELECT", None, Exception("the batch's transaction has failed"))
        return Member(group, reader=True)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Hold the writers' turn on this thread while the block runs several units of work, one
        after the other, in one transaction; commit it when the block ends (or hand it on to the
        writers waiting, as `leave` does, and wait for its COMMIT).

        Each unit of work's `commit()` in the block only releases its savepoint. Raises
        OperationalError when the turn does not come within `lock_timeout`, GroupCommitFailed after
        the block when its transaction could not be committed (nothing of the batch was kept)."""
        if self.batching or getattr(self._local, "inside", False):
            raise RuntimeError("this thread already holds the writers' turn")
        self._take_turn()
        self._local.batch = True
        group: _Group | None = None
        try:
            yield
        finally:
            self._local.batch = False
            group = self._group
            if group is None:
                self._turn.release()
            else:
                self._end_turn(group)
        if group is not None and group.error is not None and group.participants:
            raise GroupCommitFailed(
                "COMMIT", None, group.error if isinstance(group.error, Exception) else Exception(group.error)
            ) from group.error

    def _end_turn(self, group: _Group) -> None:
        """Release the turn: COMMIT the group first when nobody waits to join it (or it is full or
        failed); otherwise leave that to the writers waiting, and wait for it."""
        must_wait = group.committed > 0
        try:
            if group.error is not None or self._waiting == 0 or group.participants >= self._max_group:
                self._group = None
                self._finish(group)
                must_wait = False
        finally:
            self._turn.release()
        if must_wait:
            group.done.wait()

    def leave(self, member: Member, *, commit: bool) -> None:
        """Release (`commit`) or roll back the member's savepoint and end its turn; then, unless it
        took no part in anything that could still be lost, wait for the group's COMMIT. In a batch,
        only the savepoint: the batch ends the turn.

        Raises GroupCommitFailed when that COMMIT failed (or the transaction was lost before it)."""
        group = member.group
        if member.reader:
            return
        try:
            if not commit:
                forget(group.connection)  # what it read after its own writes is undone with them
                _driver_execute(group.connection, f"ROLLBACK TO SAVEPOINT {SAVEPOINT}")
            _driver_execute(group.connection, f"RELEASE SAVEPOINT {SAVEPOINT}")
            if commit:
                group.committed += 1
        except BaseException as exc:  # the shared transaction is in an unknown state: give it up
            group.error = group.error or exc
        finally:
            self._local.inside = False
        if self.batching:
            return
        # Whether its outcome hangs on the group's COMMIT: it committed, or saw what others did.
        exposed = group.committed > 0
        self._end_turn(group)
        if group.error is not None and exposed:
            raise GroupCommitFailed(
                "COMMIT", None, group.error if isinstance(group.error, Exception) else Exception(group.error)
            ) from group.error

    def _begin(self) -> _Group:
        """A new group's transaction (the turn is this thread's), on the connection the last group
        left, if it ended well."""
        connection, self._standby = self._standby, None
        connection = connection or self._engine.connect()
        try:
            connection.begin()  # BEGIN IMMEDIATE: SQLite's write lock, for the whole group
        except BaseException:
            connection.close()
            raise
        return _Group(connection)

    def _finish(self, group: _Group) -> None:
        """COMMIT the group (ROLLBACK if nothing in it was committed, or it failed); wake its members.
        The connection stays open for the next group (a pool checkout and checkin per group cost
        more than a small group's statements), unless something went wrong on it."""
        connection = group.connection
        healthy = False
        try:
            if group.committed and group.error is None:
                connection.commit()
            else:
                connection.rollback()
            healthy = group.error is None
        except BaseException as exc:
            group.error = group.error or exc
            with contextlib.suppress(Exception):  # the transaction is being given up anyway
                connection.rollback()
        finally:
            if healthy:
                forget(connection)  # nothing the transaction memoised outlives it
                self._standby = connection
            else:
                connection.close()
            group.done.set()

    def close(self) -> None:
        """Give back the connection kept between groups (before disposing of the engine)."""
        with self._turn:
            connection, self._standby = self._standby, None
        if connection is not None:
            connection.close()


class WriteTransactions:
    """Opens the write transactions of a store that works outside the units of work (the worker's
    queues, the idempotency keys): one of its own, or, given the units of work's `WriteGroups`
    (SQLite), a member of the open group, sharing its COMMIT (one fsync) with the HTTP requests'
    writes instead of waiting for SQLite's write lock in its busy handler (which sleeps)."""

    def __init__(self, engine: Engine, groups: WriteGroups | None) -> None:
        self._engine = engine
        self._groups = groups

    @contextlib.contextmanager
    def write(self) -> Iterator[Connection]:
        """One write transaction, committed when the block ends normally, rolled back otherwise."""
        if self._groups is None:
            with self._engine.begin() as connection:  # SQLite: BEGIN IMMEDIATE (engage_sql.engines)
                yield connection
            return
        member = self._groups.enter()
        try:
            yield member.connection
        except BaseException:
            self._groups.leave(member, commit=False)
            raise
        self._groups.leave(member, commit=True)
