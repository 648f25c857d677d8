"""Units of work over SQLAlchemy connections: one connection and one transaction per `with` block.

The factory is shared by every thread; each unit of work checks out its own pooled connection, so
nothing mutable is shared. Leaving the block without `commit()` rolls back.
"""

from __future__ import annotations

from types import TracebackType
from typing import Self

from sqlalchemy import Connection, Engine

from engage_core.clock import Clock, SystemClock
from engage_core.events import DomainEvent
from engage_sql import outbox
from engage_sql.engines import readonly_options
from engage_sql.repositories.accounts import SqlAccountRepository
from engage_sql.repositories.contact_lists import SqlContactListRepository
from engage_sql.repositories.contacts import SqlContactRepository
from engage_sql.repositories.notes import SqlNoteRepository
from engage_sql.repositories.segments import SqlSegmentRepository
from engage_sql.repositories.tags import SqlTagRepository


class _SqlUnitOfWork:
    def __init__(self, engine: Engine, *, readonly: bool) -> None:
        self._engine = engine
        self._readonly = readonly
        self._conn: Connection | None = None

    def _begin(self) -> Connection:
        connection = self._engine.connect()
        try:
            if self._readonly:
                readonly_options(connection)
            connection.begin()  # explicitly, so that SQLite takes its write lock now, not mid-way
        except BaseException:
            connection.close()
            raise
        self._conn = connection
        return connection

    @property
    def connection(self) -> Connection:
        """The connection of the open block (for adapters that add their own statements)."""
        if self._conn is None:
            raise RuntimeError("the unit of work is not open: use it in a `with` block")
        return self._conn

    def commit(self) -> None:
        self.connection.commit()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        connection, self._conn = self._conn, None
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

    def __init__(self, engine: Engine, account_id: int, clock: Clock, *, readonly: bool) -> None:
        super().__init__(engine, readonly=readonly)
        self.account_id = account_id
        self._clock = clock
        self._pending: list[DomainEvent] = []

    def __enter__(self) -> Self:
        connection = self._begin()
        self._pending = []
        self.contacts = SqlContactRepository(connection, self.account_id)
        self.tags = SqlTagRepository(connection, self.account_id)
        self.lists = SqlContactListRepository(connection, self.account_id)
        self.segments = SqlSegmentRepository(connection, self.account_id)
        self.notes = SqlNoteRepository(connection, self.account_id)
        return self

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

    def __enter__(self) -> Self:
        self.accounts = SqlAccountRepository(self._begin())
        return self


class SqlUnitOfWorkFactory:
    """`engage_core.ports.UnitOfWorkFactory` over one engine. Thread-safe: it holds no connection."""

    def __init__(self, engine: Engine, clock: Clock | None = None) -> None:
        self._engine = engine
        self._clock = clock or SystemClock()

    def workspace(self, account_id: int, *, readonly: bool = False) -> SqlWorkspaceUnitOfWork:
        return SqlWorkspaceUnitOfWork(self._engine, account_id, self._clock, readonly=readonly)

    def admin(self, *, readonly: bool = False) -> SqlAdminUnitOfWork:
        return SqlAdminUnitOfWork(self._engine, readonly=readonly)
