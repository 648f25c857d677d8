"""Bookings on SQL only: the schema's foreign keys and check constraints (the rest is in
tests/contract/test_contract_bookings.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import attrs
import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from engage_core.bookings.model import BookingDraft
from engage_core.bookings.setup import BookingTypeDraft, ResourceDraft
from engage_sql import Database
from engage_sql.bookings.tables import bookings

from .conftest import START

TOMORROW = START.replace(hour=9) + timedelta(days=1)
HOUR = timedelta(hours=1)


@attrs.frozen
class Calendar:
    """A booking type and two resources of one account."""

    booking_type: int
    first: int
    second: int


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _calendar(database: Database, account: int) -> Calendar:
    with database.uow.workspace(account) as uow:
        booking_type = uow.booking_types.add(BookingTypeDraft("Consultation", 60), START)
        first = uow.resources.add(ResourceDraft("Ada", "staff"), START)
        second = uow.resources.add(ResourceDraft("Room 1", "room"), START)
        uow.commit()
    return Calendar(booking_type.id, first.id, second.id)


@pytest.fixture
def calendar(database: Database, account: int) -> Calendar:
    return _calendar(database, account)


def _draft(calendar: Calendar, starts_at: datetime, resource_id: int | None = None, **fields: Any) -> BookingDraft:
    values: dict[str, Any] = {
        "contact_id": 1,
        "booking_type_id": calendar.booking_type,
        "resource_id": resource_id,
        "title": "Consultation with Ada",
        "starts_at": starts_at,
        "ends_at": starts_at + HOUR,
    }
    return BookingDraft(**(values | fields))


def test_a_booking_cannot_name_another_accounts_resource(
    database: Database, account: int, other: int, calendar: Calendar
) -> None:
    """The composite foreign key refuses a booking whose resource belongs to another account."""
    theirs = _calendar(database, other)

    with database.uow.workspace(account) as uow, pytest.raises(IntegrityError):
        uow.bookings.add(_draft(calendar, TOMORROW, theirs.first), START)


def test_the_schema_refuses_a_booking_that_ends_before_it_starts(
    database: Database, account: int, calendar: Calendar
) -> None:
    """`ends_at > starts_at` is a check constraint."""
    row = {
        "account_id": account,
        "contact_id": 1,
        "booking_type_id": calendar.booking_type,
        "title": "Backwards",
        "starts_at": TOMORROW,
        "ends_at": TOMORROW,
        "status": "confirmed",
        "created_at": START,
        "updated_at": START,
    }

    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(insert(bookings).values(**row))
