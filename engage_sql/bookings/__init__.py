"""Bookings in SQL: types, resources, bookings (no double booking on either engine) and working hours."""

from __future__ import annotations

from engage_sql.bookings.bookings import SqlBookingRepository
from engage_sql.bookings.setup import SqlBookingTypeRepository, SqlResourceRepository
from engage_sql.bookings.working_hours import SqlWorkingHoursRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "bookings": lambda s: SqlBookingRepository(s.connection, s.account_id, lock_reads=s.writes),
        "booking_types": lambda s: SqlBookingTypeRepository(s.connection, s.account_id),
        "resources": lambda s: SqlResourceRepository(s.connection, s.account_id),
        "working_hours": lambda s: SqlWorkingHoursRepository(s.connection, s.account_id),
    },
)
