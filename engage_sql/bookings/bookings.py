"""Bookings of one account, and the lock that keeps a calendar from being double-booked.

A calendar is a resource, or None: the bookings without a resource. Every write that gives a
booking a time runs `lock_resource(calendar)`, then `overlapping(calendar, ...)`, then the insert
or update, in one transaction (`engage_core.bookings.ports.BookingRepository`). On PostgreSQL the lock is a
transaction-level advisory lock on (account, calendar): the second of two racing bookings waits
for the first to commit or roll back, and its overlap query (READ COMMITTED: each statement reads
what is committed when it starts) then sees the first booking. On SQLite the write units of work
already run one at a time (`BEGIN IMMEDIATE`, and the group commit's turns within a process), so
the lock has nothing to add.

Changes of one booking are serialised like orders': in a write unit of work on PostgreSQL, `get`
reads the booking `FOR UPDATE`, so a reschedule racing a cancellation reads the booking only once
the cancellation has committed, and is refused instead of bringing the booking back to life.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, bindparam, func, insert, select, update

from engage_core.bookings.model import LIVE, Booking, BookingDraft, BookingFilter
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.bookings.tables import bookings
from engage_sql.commerce.orders import advisory_lock_key
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_COLUMNS = (
    bookings.c.id,
    bookings.c.contact_id,
    bookings.c.booking_type_id,
    bookings.c.resource_id,
    bookings.c.title,
    bookings.c.starts_at,
    bookings.c.ends_at,
    bookings.c.status,
    bookings.c.notes,
    bookings.c.created_at,
    bookings.c.updated_at,
    bookings.c.cancelled_at,
    bookings.c.cancellation_reason,
)
_IN_TIME_ORDER = (bookings.c.starts_at, bookings.c.id)
_LIVE = bookings.c.status.in_(sorted(LIVE))

_ADVISORY_LOCK = select(func.pg_advisory_xact_lock(bindparam("key")))
"""PostgreSQL: wait for, then hold until the transaction ends, the lock named by a 64-bit key."""

CALENDAR_LOCK = "booking-calendar"
WORKSPACE_CALENDAR = "workspace"
"""The lock name of the bookings without a resource (resource ids are digits, so never this)."""


def booking_from_row(row: AnyRow) -> Booking:
    return Booking(
        id=row.id,
        contact_id=row.contact_id,
        booking_type_id=row.booking_type_id,
        resource_id=row.resource_id,
        title=row.title,
        starts_at=row.starts_at,
        ends_at=row.ends_at,
        status=row.status,
        notes=row.notes,
        created_at=row.created_at,
        updated_at=row.updated_at,
        cancelled_at=row.cancelled_at,
        cancellation_reason=row.cancellation_reason,
    )


def calendar_lock_key(account_id: int, resource_id: int | None) -> int:
    """The advisory lock key of one calendar of one account."""
    name = WORKSPACE_CALENDAR if resource_id is None else str(resource_id)
    return advisory_lock_key(CALENDAR_LOCK, account_id, name)


class SqlBookingRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` locks the booking it reads (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._postgres = connection.dialect.name == "postgresql"
        self._lock_reads = lock_reads and self._postgres

    def lock_resource(self, resource_id: int | None) -> None:
        """Hold the calendar's advisory lock until the transaction ends (PostgreSQL); nothing on
        SQLite, whose writers already run one at a time."""
        if self._postgres:
            self._conn.execute(_ADVISORY_LOCK, {"key": calendar_lock_key(self._account_id, resource_id)})

    def add(self, draft: BookingDraft, now: datetime) -> Booking:
        values: dict[str, Any] = {
            "contact_id": draft.contact_id,
            "booking_type_id": draft.booking_type_id,
            "resource_id": draft.resource_id,
            "title": draft.title,
            "starts_at": draft.starts_at,
            "ends_at": draft.ends_at,
            "status": draft.status,
            "notes": draft.notes,
        }
        booking_id = self._conn.execute(
            insert(bookings)
            .values(account_id=self._account_id, created_at=now, updated_at=now, **values)
            .returning(bookings.c.id)
        ).scalar_one()
        return Booking(id=booking_id, created_at=now, updated_at=now, **values)

    def get(self, booking_id: int) -> Booking | None:
        """In a write unit of work on PostgreSQL, the booking stays locked until the transaction ends."""
        query = select(*_COLUMNS).where(self.owned(bookings), bookings.c.id == booking_id)
        row = self._conn.execute(query.with_for_update() if self._lock_reads else query).first()
        return None if row is None else booking_from_row(row)

    def find(self, filters: BookingFilter, page: PageRequest) -> Page[Booking]:
        """`BookingFilter.matches` in SQL; by `starts_at`, then id, ascending."""
        where = [self.owned(bookings), *_filters(filters)]
        total = self._conn.execute(select(func.count()).select_from(bookings).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_COLUMNS).where(*where).order_by(*_IN_TIME_ORDER).limit(page.per_page).offset(page.offset)
        )
        return Page(items=[booking_from_row(row) for row in rows], request=page, total=total)

    def update(self, booking: Booking) -> None:
        values: dict[str, Any] = {
            "status": booking.status,
            "starts_at": booking.starts_at,
            "ends_at": booking.ends_at,
            "resource_id": booking.resource_id,
            "notes": booking.notes,
            "cancelled_at": booking.cancelled_at,
            "cancellation_reason": booking.cancellation_reason,
            "updated_at": booking.updated_at,
        }
        self._conn.execute(update(bookings).where(self.owned(bookings), bookings.c.id == booking.id).values(**values))

    def overlapping(
        self, resource_id: int | None, starts_at: datetime, ends_at: datetime, exclude_id: int | None = None
    ) -> Sequence[Booking]:
        """Live bookings of the calendar sharing an instant with `[starts_at, ends_at)`; touching
        ranges do not overlap."""
        calendar = bookings.c.resource_id.is_(None) if resource_id is None else bookings.c.resource_id == resource_id
        where = [self.owned(bookings), calendar, bookings.c.starts_at < ends_at, bookings.c.ends_at > starts_at, _LIVE]
        if exclude_id is not None:
            where.append(bookings.c.id != exclude_id)
        rows = self._conn.execute(select(*_COLUMNS).where(*where).order_by(*_IN_TIME_ORDER))
        return [booking_from_row(row) for row in rows]

    def live_between(self, starts_at: datetime, ends_at: datetime) -> Sequence[Booking]:
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(self.owned(bookings), bookings.c.starts_at < ends_at, bookings.c.ends_at > starts_at, _LIVE)
            .order_by(*_IN_TIME_ORDER)
        )
        return [booking_from_row(row) for row in rows]


def _filters(filters: BookingFilter) -> list[ColumnElement[bool]]:
    where: list[ColumnElement[bool]] = []
    if filters.status is not None:
        where.append(bookings.c.status == filters.status)
    if filters.contact_id is not None:
        where.append(bookings.c.contact_id == filters.contact_id)
    if filters.starts_from is not None:
        where.append(bookings.c.starts_at >= filters.starts_from)
    if filters.starts_to is not None:
        where.append(bookings.c.starts_at <= filters.starts_to)
    return where
