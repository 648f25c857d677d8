"""Units of work over SQLAlchemy connections: one transaction per `with` block.

The factory is shared by every thread; each unit of work checks out its own pooled connection, so
nothing mutable is shared. Leaving the block without `commit()` rolls back. On SQLite the units of
work that write share one connection instead, each in a savepoint of one transaction committed for
the group (`group_commit.py`): the same guarantees, one fsync for many commits. On the thread of a
batch (the write lane), every unit of work, read-only ones too, joins the batch's transaction, so
that what a request reads includes what it wrote; `commit()` there returns before the batch's COMMIT,
and the lane answers for it after.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar

from sqlalchemy import Connection, Engine

from engage_core.kernel.clock import Clock, SystemClock
from engage_core.kernel.events import DomainEvent
from engage_sql import areas
from engage_sql.accounts.admissions import AdmissionCache
from engage_sql.contacts import counter_moves
from engage_sql.driver import DriverStatement, Params
from engage_sql.engines import readonly_options
from engage_sql.group_commit import Member, WriteGroups
from engage_sql.messaging import month_tally
from engage_sql.partners import outbox as partner_outbox
from engage_sql.registry import RepositoryFactory, Scope
from engage_sql.transaction_memo import forget
from engage_sql.webhooks import outbox

P = TypeVar("P")
"""What an outbox unit of work records per emitted event."""


class _SqlUnitOfWork:
    """A transaction, and the repositories over its connection, each made when first used."""

    def __init__(
        self,
        engine: Engine,
        *,
        readonly: bool,
        groups: WriteGroups | None = None,
        own: Connection | None = None,
        admissions: AdmissionCache | None = None,
    ) -> None:
        self._engine = engine
        self._readonly = readonly
        self._groups = groups
        self._own = own  # borrowed, not checked out: a pinned reader's, or a loop call's
        self._admissions = admissions
        self._conn: Connection | None = None
        self._member: Member | None = None
        self._inside = False

    def __enter__(self) -> Self:
        self._inside = True
        try:
            self._open()
        except BaseException:
            self._inside = False
            raise
        return self

    def _open(self) -> None:
        """Begin a transaction (or join the write group) for the repositories to use."""
        groups = self._groups
        if groups is None or (self._readonly and not groups.batching):
            self._conn = self._begin()
        else:
            member = self._member = groups.read_in_batch() if self._readonly else groups.enter()
            self._conn = member.connection
        if self._WRITES_ADMISSION and not self._readonly:
            forget(self._conn)  # what the transaction memoised of accounts, clients and plans

    def _repository(self, name: str, connection: Connection) -> Any:
        """A new repository `name` (one of `_REPOSITORIES`) over `connection`."""
        scope = Scope(connection, self._account_id(), writes=not self._readonly, admissions=self._admissions)
        return self._REPOSITORIES[name](scope)

    def _account_id(self) -> int:
        return 0

    def _begin(self) -> Connection:
        own = self._own
        if own is not None and not own.in_transaction():  # `pin_reader`'s, or a loop call's
            own.begin()
            return own
        connection = self._engine.connect()
        try:
            if self._readonly:
                readonly_options(connection)
            connection.begin()  # explicitly, so that SQLite takes its write lock now, not mid-way
        except BaseException:
            connection.close()
            raise
        return connection

    @property
    def connection(self) -> Connection:
        """The connection of the open block (for adapters that add their own statements)."""
        if self._conn is None:
            if not self._inside:
                raise RuntimeError("the unit of work is not open: use it in a `with` block")
            self._open()  # work after a group commit: the next transaction begins now
            assert self._conn is not None
        return self._conn

    def commit(self) -> None:
        member = self._member
        if member is None:
            self._commit(self.connection)
            if self._admissions is not None and self._WRITES_ADMISSION and not self._readonly:
                # This process refuses a revoked key at once, before the change's notice arrives.
                self._admissions.forget()
            return
        # The group's connection is no longer this unit of work's: whatever it does next (rarely
        # anything) joins a later group, when it next uses a repository or the connection.
        self._member = self._conn = None
        self._drop_repositories()
        assert self._groups is not None
        self._groups.leave(member, commit=True)

    def _commit(self, connection: Connection) -> None:
        """Commit the transaction of `connection` (this unit of work's own)."""
        connection.commit()

    def __getattr__(self, name: str) -> Any:
        # Reached only for attributes that are not set: a repository's first use in this block (the
        # next transaction's first use, after a group commit).
        state = self.__dict__
        if not state.get("_inside") or name not in self._REPOSITORIES:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        repository = state[name] = self._repository(name, self.connection)
        return repository

    _WRITES_ADMISSION: ClassVar[bool] = False
    """Whether its repositories write what admission reads (accounts, partner clients, plans): its
    writing units of work then drop the transaction's memo of it (`transaction_memo`)."""

    _REPOSITORIES: ClassVar[Mapping[str, RepositoryFactory]] = {}
    """The repositories a subclass hands out, by name (`engage_sql.areas`)."""

    def _drop_repositories(self) -> None:
        state = self.__dict__
        for name in self._REPOSITORIES.keys() & state.keys():
            del state[name]

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._inside = False
        self._drop_repositories()
        member, self._member = self._member, None
        connection, self._conn = self._conn, None
        if member is not None:
            assert self._groups is not None
            self._groups.leave(member, commit=False)
            return
        if connection is None:
            return
        try:
            if connection.in_transaction():
                connection.rollback()
        finally:
            if connection is not self._own:
                connection.close()


class _OutboxUnitOfWork(_SqlUnitOfWork, Generic[P]):
    """A unit of work whose emitted events go to an outbox at `commit()`, in the transaction of the
    change they describe; a change left uncommitted takes its events with it."""

    def __init__(
        self,
        engine: Engine,
        clock: Clock,
        *,
        readonly: bool,
        groups: WriteGroups | None = None,
        own: Connection | None = None,
        admissions: AdmissionCache | None = None,
    ) -> None:
        super().__init__(engine, readonly=readonly, groups=groups, own=own, admissions=admissions)
        self._clock = clock
        self._pending: list[P] = []

    def __enter__(self) -> Self:
        self._pending = []
        return super().__enter__()

    def _record(self, pending: list[P], now: datetime) -> None:
        """Write `pending` to the outbox on this unit of work's connection."""
        raise NotImplementedError

    def commit(self) -> None:
        """Write the recorded events to the outbox, then commit them with the change."""
        self._record(self._pending, self._clock.now())
        self._pending = []
        super().commit()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._pending = []  # events of a rolled-back change never happened
        super().__exit__(exc_type, exc, tb)


class SqlWorkspaceUnitOfWork(_OutboxUnitOfWork[DomainEvent]):
    """One transaction inside one account: every repository it hands out filters by `account_id`."""

    _REPOSITORIES = areas.WORKSPACE

    def __init__(
        self,
        engine: Engine,
        account_id: int,
        clock: Clock,
        *,
        readonly: bool,
        groups: WriteGroups | None = None,
        own: Connection | None = None,
    ) -> None:
        self.account_id = account_id
        self._with_commit: list[tuple[DriverStatement, Params]] = []  # what the outbox left for the commit
        super().__init__(engine, clock, readonly=readonly, groups=groups, own=own)

    def _account_id(self) -> int:
        return self.account_id

    def emit(self, event: DomainEvent) -> None:
        self._pending.append(event)

    def _record(self, pending: list[DomainEvent], now: datetime) -> None:
        self._with_commit = outbox.record_with_commit(self.connection, self.account_id, pending, now)

    def _commit(self, connection: Connection) -> None:
        # The outbox's event, the contacts counter's move and the month tallies' moves go with COMMIT,
        # in its round trip (the contacts limit checked there).
        with_commit, self._with_commit = self._with_commit, []
        tallies = month_tally.commit_statements(connection)
        counter_moves.commit(connection, self.account_id, before=with_commit, after=tallies)


class SqlAdminUnitOfWork(_SqlUnitOfWork):
    """One transaction across accounts, for administration and authentication."""

    _WRITES_ADMISSION = True
    _REPOSITORIES = areas.ADMIN


class SqlPartnerUnitOfWork(_OutboxUnitOfWork[tuple[int, DomainEvent]]):
    """One transaction across partners, their clients, plans and accounts, with the partners' outbox."""

    _WRITES_ADMISSION = True

    _REPOSITORIES = areas.PARTNERS

    def emit(self, partner_id: int, event: DomainEvent) -> None:
        self._pending.append((partner_id, event))

    def _record(self, pending: list[tuple[int, DomainEvent]], now: datetime) -> None:
        partner_outbox.record(self.connection, pending, now)


class SqlUnitOfWorkFactory:
    """`engage_core.unit_of_work.UnitOfWorkFactory` over one engine. Thread-safe: each unit of work checks
    out a connection of its own, except a pinned reader's (`pin_reader`), which is its thread's."""

    def __init__(
        self,
        engine: Engine,
        clock: Clock | None = None,
        *,
        read_engine: Engine | None = None,
        admissions: AdmissionCache | None = None,
    ) -> None:
        self._engine = engine
        self._admissions = admissions
        self._reads = read_engine or engine  # `engines.create_read_engine`: PostgreSQL's autocommit reads
        self._clock = clock or SystemClock()
        self._groups = WriteGroups(engine) if engine.dialect.name == "sqlite" else None
        self._pinned = threading.local()
        self._call_connection: Callable[[object, bool], Connection | None] | None = None

    @property
    def write_groups(self) -> WriteGroups | None:
        """The group commit of this factory's write units of work (SQLite; None on PostgreSQL), for
        other writers over the same engine to join (`SqlDeliveryQueue`)."""
        return self._groups

    def pin_reader(self) -> None:
        """Keep one connection out of the pool for this thread's read-only units of work, until
        `unpin_reader`: for a thread that runs nothing but short reads, many of them (the event
        loop's, on SQLite), a pool checkout and checkin cost as much as the read. A read-only unit
        of work opened while the thread's is in use checks one out as usual."""
        if getattr(self._pinned, "connection", None) is None:
            connection = self._reads.connect()
            readonly_options(connection)
            self._pinned.connection = connection

    def unpin_reader(self) -> None:
        """Give this thread's pinned connection back (`pin_reader`); nothing when it has none."""
        connection, self._pinned.connection = getattr(self._pinned, "connection", None), None
        if connection is not None:
            connection.close()

    def use_call_connections(self, lookup: Callable[[object, bool], Connection | None]) -> None:
        """Give units of work `lookup(self, readonly)`, when it is not None, instead of a pool
        checkout (and before the thread's pinned reader): the reader or writer of the event loop's
        call running now (`engage_sql.loop_calls.call_connection`)."""
        self._call_connection = lookup

    def _own(self, readonly: bool) -> Connection | None:
        """The connection a new unit of work borrows, if any (else it checks one out)."""
        lookup = self._call_connection
        if lookup is not None:
            found = lookup(self, readonly)
            if found is not None:
                return found
        return getattr(self._pinned, "connection", None) if readonly else None

    def _engine_for(self, readonly: bool) -> Engine:
        return self._reads if readonly else self._engine

    def workspace(self, account_id: int, *, readonly: bool = False) -> SqlWorkspaceUnitOfWork:
        return SqlWorkspaceUnitOfWork(
            self._engine_for(readonly),
            account_id,
            self._clock,
            readonly=readonly,
            groups=self._groups,
            own=self._own(readonly),
        )

    def admin(self, *, readonly: bool = False) -> SqlAdminUnitOfWork:
        return SqlAdminUnitOfWork(
            self._engine_for(readonly),
            readonly=readonly,
            groups=self._groups,
            own=self._own(readonly),
            admissions=self._admissions,
        )

    def partners(self, *, readonly: bool = False) -> SqlPartnerUnitOfWork:
        return SqlPartnerUnitOfWork(
            self._engine_for(readonly),
            self._clock,
            readonly=readonly,
            groups=self._groups,
            own=self._own(readonly),
            admissions=self._admissions,
        )
