"""Working hours on SQL only: the stored JSON document and the one row per account (the rest is in
tests/contract/test_contract_bookings.py)."""

from __future__ import annotations

from datetime import date

from sqlalchemy import select

from engage_core.bookings.working_hours import (
    ALWAYS_OPEN,
    Opening,
    Schedule,
    WorkingHours,
)
from engage_sql import Database
from engage_sql.bookings.tables import working_hours

CLOSED = ()
OFFICE = Schedule(
    weekly=((Opening(540, 720), Opening(780, 1020)),) * 5 + (CLOSED, CLOSED),
    exceptions={date(2026, 12, 25): CLOSED, date(2026, 12, 24): (Opening(540, 720),)},
)
"""Monday to Friday 09:00-12:00 and 13:00-17:00, closed on Christmas, mornings on Christmas Eve."""


def _put(database: Database, account: int, hours: WorkingHours) -> None:
    with database.uow.workspace(account) as uow:
        uow.working_hours.put(hours)
        uow.commit()


def _hours(database: Database, account: int) -> WorkingHours | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.working_hours.get()


def test_the_schedule_is_stored_as_its_document(database: Database, account: int) -> None:
    """The stored JSON is `Schedule.document()`, the same shape the API takes."""
    _put(database, account, WorkingHours("Europe/Berlin", OFFICE))

    with database.engine.connect() as connection:
        stored = connection.execute(select(working_hours.c.schedule)).scalar_one()

    assert stored == OFFICE.document()


def test_put_replaces_the_earlier_hours(database: Database, account: int) -> None:
    """A second `put` leaves one row holding the new timezone and schedule."""
    _put(database, account, WorkingHours("Europe/Berlin", OFFICE))
    _put(database, account, WorkingHours("America/New_York", ALWAYS_OPEN))

    with database.engine.connect() as connection:
        rows = connection.execute(select(working_hours.c.account_id)).all()
    assert (_hours(database, account), len(rows)) == (WorkingHours("America/New_York", ALWAYS_OPEN), 1)
