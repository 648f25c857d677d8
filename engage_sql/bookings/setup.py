"""Booking types and bookable resources of one account. Neither is ever deleted: bookings point
at them, and a deactivated one keeps its bookings."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import insert, select, update

from engage_core.bookings.setup import BookingType, BookingTypeDraft, Resource, ResourceDraft
from engage_sql.bookings.tables import booking_resources, booking_types
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_TYPE_COLUMNS = (
    booking_types.c.id,
    booking_types.c.name,
    booking_types.c.duration_minutes,
    booking_types.c.description,
    booking_types.c.is_active,
    booking_types.c.created_at,
    booking_types.c.updated_at,
)
_RESOURCE_COLUMNS = (
    booking_resources.c.id,
    booking_resources.c.name,
    booking_resources.c.type,
    booking_resources.c.is_active,
    booking_resources.c.created_at,
    booking_resources.c.updated_at,
)


def booking_type_from_row(row: AnyRow) -> BookingType:
    return BookingType(
        id=row.id,
        name=row.name,
        duration_minutes=row.duration_minutes,
        description=row.description,
        is_active=row.is_active,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def resource_from_row(row: AnyRow) -> Resource:
    return Resource(
        id=row.id,
        name=row.name,
        type=row.type,
        is_active=row.is_active,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlBookingTypeRepository(WorkspaceRepository):
    def add(self, draft: BookingTypeDraft, now: datetime) -> BookingType:
        booking_type_id = self._conn.execute(
            insert(booking_types)
            .values(
                account_id=self._account_id,
                name=draft.name,
                duration_minutes=draft.duration_minutes,
                description=draft.description,
                is_active=draft.is_active,
                created_at=now,
                updated_at=now,
            )
            .returning(booking_types.c.id)
        ).scalar_one()
        return BookingType(
            booking_type_id, draft.name, draft.duration_minutes, draft.description, draft.is_active, now, now
        )

    def get(self, booking_type_id: int) -> BookingType | None:
        row = self._conn.execute(
            select(*_TYPE_COLUMNS).where(self.owned(booking_types), booking_types.c.id == booking_type_id)
        ).first()
        return None if row is None else booking_type_from_row(row)

    def list(self) -> Sequence[BookingType]:
        """Every type, active or not, ascending id."""
        rows = self._conn.execute(select(*_TYPE_COLUMNS).where(self.owned(booking_types)).order_by(booking_types.c.id))
        return [booking_type_from_row(row) for row in rows]

    def update(self, booking_type: BookingType) -> None:
        self._conn.execute(
            update(booking_types)
            .where(self.owned(booking_types), booking_types.c.id == booking_type.id)
            .values(
                name=booking_type.name,
                duration_minutes=booking_type.duration_minutes,
                description=booking_type.description,
                is_active=booking_type.is_active,
                updated_at=booking_type.updated_at,
            )
        )


class SqlResourceRepository(WorkspaceRepository):
    def add(self, draft: ResourceDraft, now: datetime) -> Resource:
        resource_id = self._conn.execute(
            insert(booking_resources)
            .values(
                account_id=self._account_id,
                name=draft.name,
                type=draft.type,
                is_active=draft.is_active,
                created_at=now,
                updated_at=now,
            )
            .returning(booking_resources.c.id)
        ).scalar_one()
        return Resource(resource_id, draft.name, draft.type, draft.is_active, now, now)

    def get(self, resource_id: int) -> Resource | None:
        row = self._conn.execute(
            select(*_RESOURCE_COLUMNS).where(self.owned(booking_resources), booking_resources.c.id == resource_id)
        ).first()
        return None if row is None else resource_from_row(row)

    def list(self) -> Sequence[Resource]:
        """Every resource, active or not, ascending id."""
        rows = self._conn.execute(
            select(*_RESOURCE_COLUMNS).where(self.owned(booking_resources)).order_by(booking_resources.c.id)
        )
        return [resource_from_row(row) for row in rows]

    def update(self, resource: Resource) -> None:
        self._conn.execute(
            update(booking_resources)
            .where(self.owned(booking_resources), booking_resources.c.id == resource.id)
            .values(
                name=resource.name, type=resource.type, is_active=resource.is_active, updated_at=resource.updated_at
            )
        )
