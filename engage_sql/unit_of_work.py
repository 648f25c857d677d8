"""Units of work over SQLAlchemy connections: one transaction per `with` block.

The factory is shared by every thread; each unit of work checks out its own pooled connection, so
nothing mutable is shared. Leaving the block without `commit()` rolls back. On SQLite the units of
work that write share one connection instead, each in a savepoint of one transaction committed for
the group (`group_commit.py`): the same guarantees, one fsync for many commits.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any, Self

from sqlalchemy import Connection, Engine

from engage_core.clock import Clock, SystemClock
from engage_core.events import DomainEvent
from engage_sql import outbox, partner_outbox
from engage_sql.engines import readonly_options
from engage_sql.group_commit import Member, WriteGroups
from engage_sql.repositories.accounts import SqlAccountRepository
from engage_sql.repositories.booking_catalogue import SqlBookingTypeRepository, SqlResourceRepository
from engage_sql.repositories.bookings import SqlBookingRepository
from engage_sql.repositories.channels import SqlChannelAccountRepository, SqlChannelDirectory
from engage_sql.repositories.contact_lists import SqlContactListRepository
from engage_sql.repositories.contacts import SqlContactRepository
from engage_sql.repositories.departments import SqlDepartmentRepository
from engage_sql.repositories.handles import SqlContactHandleRepository
from engage_sql.repositories.impersonation import SqlImpersonationRepository
from engage_sql.repositories.knowledge_base import SqlKnowledgeBaseRepository
from engage_sql.repositories.messages import SqlMessageRepository
from engage_sql.repositories.notes import SqlNoteRepository
from engage_sql.repositories.orders import SqlOrderRepository
from engage_sql.repositories.partner_clients import SqlClientRepository
from engage_sql.repositories.partner_webhooks import SqlPartnerWebhookRepository
from engage_sql.repositories.partners import SqlPartnerRepository
from engage_sql.repositories.plans import SqlPlanRepository
from engage_sql.repositories.products import SqlProductRepository
from engage_sql.repositories.segments import SqlSegmentRepository
from engage_sql.repositories.tags import SqlTagRepository
from engage_sql.repositories.team import SqlTeamMemberRepository
from engage_sql.repositories.tickets import SqlTicketRepository
from engage_sql.repositories.usage import SqlUsageRepository
from engage_sql.repositories.webhooks import SqlWebhookRepository
from engage_sql.repositories.working_hours import SqlWorkingHoursRepository


class _SqlUnitOfWork:
    def __init__(self, engine: Engine, *, readonly: bool, groups: WriteGroups | None = None) -> None:
        self._engine = engine
        self._readonly = readonly
        self._groups = None if readonly else groups
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
        """Begin a transaction (or join the write group) and hand the connection to the repositories."""
        if self._groups is None:
            self._conn = self._begin()
            self._attach(self._conn)
            return
        member = self._member = self._groups.enter()
        self._conn = member.connection
        try:
            self._attach(self._conn)
        except BaseException:
            self._member = self._conn = None
            self._groups.leave(member, commit=False)  # never keep the writers' turn
            raise

    def _attach(self, connection: Connection) -> None:
        """Create the repositories over `connection` (each annotated attribute of the subclass)."""

    def _begin(self) -> Connection:
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
            self.connection.commit()
            return
        # The group's connection is no longer this unit of work's: whatever it does next (rarely
        # anything) joins a later group, when it next uses a repository or the connection.
        self._member = self._conn = None
        for name in self._repository_names():
            self.__dict__.pop(name, None)
        assert self._groups is not None
        self._groups.leave(member, commit=True)

    def __getattr__(self, name: str) -> Any:
        # Reached only for attributes that are not set: a repository used again after a group commit.
        if self.__dict__.get("_inside") and self.__dict__.get("_conn") is None and name in self._repository_names():
            self._open()
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @classmethod
    def _repository_names(cls) -> tuple[str, ...]:
        return tuple(name for klass in cls.__mro__ for name in vars(klass).get("__annotations__", {}))

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._inside = False
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
            connection.close()


class SqlWorkspaceUnitOfWork(_SqlUnitOfWork):
    """One transaction inside one account: every repository it hands out filters by `account_id`."""

    contacts: SqlContactRepository
    tags: SqlTagRepository
    lists: SqlContactListRepository
    segments: SqlSegmentRepository
    notes: SqlNoteRepository
    webhooks: SqlWebhookRepository
    knowledge_base: SqlKnowledgeBaseRepository
    products: SqlProductRepository
    orders: SqlOrderRepository
    channels: SqlChannelAccountRepository
    messages: SqlMessageRepository
    handles: SqlContactHandleRepository
    departments: SqlDepartmentRepository
    tickets: SqlTicketRepository
    team: SqlTeamMemberRepository
    bookings: SqlBookingRepository
    booking_types: SqlBookingTypeRepository
    resources: SqlResourceRepository
    working_hours: SqlWorkingHoursRepository
    usage: SqlUsageRepository

    def __init__(
        self, engine: Engine, account_id: int, clock: Clock, *, readonly: bool, groups: WriteGroups | None = None
    ) -> None:
        super().__init__(engine, readonly=readonly, groups=groups)
        self.account_id = account_id
        self._clock = clock
        self._pending: list[DomainEvent] = []

    def __enter__(self) -> Self:
        self._pending = []
        return super().__enter__()

    def _attach(self, connection: Connection) -> None:
        self.contacts = SqlContactRepository(connection, self.account_id)
        self.tags = SqlTagRepository(connection, self.account_id)
        self.lists = SqlContactListRepository(connection, self.account_id)
        self.segments = SqlSegmentRepository(connection, self.account_id)
        self.notes = SqlNoteRepository(connection, self.account_id)
        self.webhooks = SqlWebhookRepository(connection, self.account_id)
        self.knowledge_base = SqlKnowledgeBaseRepository(connection, self.account_id)
        self.products = SqlProductRepository(connection, self.account_id)
        self.orders = SqlOrderRepository(connection, self.account_id, lock_reads=not self._readonly)
        self.channels = SqlChannelAccountRepository(connection, self.account_id, lock_reads=not self._readonly)
        self.messages = SqlMessageRepository(connection, self.account_id, lock_reads=not self._readonly)
        self.handles = SqlContactHandleRepository(connection, self.account_id)
        self.departments = SqlDepartmentRepository(connection, self.account_id)
        self.tickets = SqlTicketRepository(connection, self.account_id, lock_reads=not self._readonly)
        self.team = SqlTeamMemberRepository(connection, self.account_id)
        self.bookings = SqlBookingRepository(connection, self.account_id, lock_reads=not self._readonly)
        self.booking_types = SqlBookingTypeRepository(connection, self.account_id)
        self.resources = SqlResourceRepository(connection, self.account_id)
        self.working_hours = SqlWorkingHoursRepository(connection, self.account_id)
        self.usage = SqlUsageRepository(connection, self.account_id)

    def emit(self, event: DomainEvent) -> None:
        self._pending.append(event)

    def commit(self) -> None:
        """Write the recorded events to the outbox, then commit them with the change."""
        outbox.record(self.connection, self.account_id, self._pending, self._clock.now())
        self._pending = []
        super().commit()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._pending = []  # events of a rolled-back change never happened
        super().__exit__(exc_type, exc, tb)


class SqlAdminUnitOfWork(_SqlUnitOfWork):
    """One transaction across accounts, for administration and authentication."""

    accounts: SqlAccountRepository
    channel_directory: SqlChannelDirectory

    def _attach(self, connection: Connection) -> None:
        self.accounts = SqlAccountRepository(connection)
        self.channel_directory = SqlChannelDirectory(connection)


class SqlPartnerUnitOfWork(_SqlUnitOfWork):
    """One transaction across partners, their clients, plans and accounts, with the partners' outbox."""

    partners: SqlPartnerRepository
    clients: SqlClientRepository
    plans: SqlPlanRepository
    accounts: SqlAccountRepository
    impersonations: SqlImpersonationRepository
    partner_webhooks: SqlPartnerWebhookRepository

    def __init__(self, engine: Engine, clock: Clock, *, readonly: bool, groups: WriteGroups | None = None) -> None:
        super().__init__(engine, readonly=readonly, groups=groups)
        self._clock = clock
        self._pending: list[tuple[int, DomainEvent]] = []

    def __enter__(self) -> Self:
        self._pending = []
        return super().__enter__()

    def _attach(self, connection: Connection) -> None:
        self.partners = SqlPartnerRepository(connection)
        self.clients = SqlClientRepository(connection)
        self.plans = SqlPlanRepository(connection)
        self.accounts = SqlAccountRepository(connection)
        self.impersonations = SqlImpersonationRepository(connection)
        self.partner_webhooks = SqlPartnerWebhookRepository(connection)

    def emit(self, partner_id: int, event: DomainEvent) -> None:
        self._pending.append((partner_id, event))

    def commit(self) -> None:
        """Write the recorded partner events to the outbox, then commit them with the change."""
        partner_outbox.record(self.connection, self._pending, self._clock.now())
        self._pending = []
        super().commit()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._pending = []  # events of a rolled-back change never happened
        super().__exit__(exc_type, exc, tb)


class SqlUnitOfWorkFactory:
    """`engage_core.ports.UnitOfWorkFactory` over one engine. Thread-safe: it holds no connection."""

    def __init__(self, engine: Engine, clock: Clock | None = None) -> None:
        self._engine = engine
        self._clock = clock or SystemClock()
        self._groups = WriteGroups(engine) if engine.dialect.name == "sqlite" else None

    @property
    def write_groups(self) -> WriteGroups | None:
        """The group commit of this factory's write units of work (SQLite; None on PostgreSQL), for
        other writers over the same engine to join (`SqlDeliveryQueue`)."""
        return self._groups

    def workspace(self, account_id: int, *, readonly: bool = False) -> SqlWorkspaceUnitOfWork:
        return SqlWorkspaceUnitOfWork(self._engine, account_id, self._clock, readonly=readonly, groups=self._groups)

    def admin(self, *, readonly: bool = False) -> SqlAdminUnitOfWork:
        return SqlAdminUnitOfWork(self._engine, readonly=readonly, groups=self._groups)

    def partners(self, *, readonly: bool = False) -> SqlPartnerUnitOfWork:
        return SqlPartnerUnitOfWork(self._engine, self._clock, readonly=readonly, groups=self._groups)
