"""Working hours and resource schedules through the SQL repository and BookingSetupService
(reference: engage_core.testing)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

import pytest
from sqlalchemy import select

from engage_core.bookings.catalogue import BookingTypeInput, ResourceDraft, ResourceInput
from engage_core.bookings.working_hours import (
    ALL_DAY,
    ALWAYS_OPEN,
    Opening,
    OpeningInput,
    Schedule,
    ScheduleInput,
    WorkingHours,
    WorkingHoursInput,
)
from engage_core.kernel.errors import NotFound
from engage_core.services import Services
from engage_sql import Database
from engage_sql.bookings.tables import working_hours

from .conftest import START

CLOSED = ()
OFFICE = Schedule(
    weekly=((Opening(540, 720), Opening(780, 1020)),) * 5 + (CLOSED, CLOSED),
    exceptions={date(2026, 12, 25): CLOSED, date(2026, 12, 24): (Opening(540, 720),)},
)
"""Monday to Friday 09:00-12:00 and 13:00-17:00, closed on Christmas, mornings on Christmas Eve."""


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _resource(database: Database, account: int, name: str = "Ada") -> int:
    with database.uow.workspace(account) as uow:
        resource = uow.resources.add(ResourceDraft(name, "staff"), START)
        uow.commit()
    return resource.id


def _put(database: Database, account: int, hours: WorkingHours) -> None:
    with database.uow.workspace(account) as uow:
        uow.working_hours.put(hours)
        uow.commit()


def _hours(database: Database, account: int) -> WorkingHours | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.working_hours.get()


def _schedules(database: Database, account: int) -> dict[int, Schedule]:
    with database.uow.workspace(account, readonly=True) as uow:
        return dict(uow.working_hours.resource_schedules())


def test_a_workspace_without_hours_has_none(database: Database, account: int) -> None:
    """`get` is None until the workspace sets its hours."""
    assert _hours(database, account) is None


def test_hours_read_back_equal(database: Database, account: int) -> None:
    """The timezone and every opening, break and exception survive the round trip."""
    _put(database, account, WorkingHours("Europe/Berlin", OFFICE))

    assert _hours(database, account) == WorkingHours("Europe/Berlin", OFFICE)


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


def test_hours_are_scoped_to_their_account(database: Database, account: int, other: int) -> None:
    """One account's hours are not another's."""
    _put(database, account, WorkingHours("Europe/Berlin", OFFICE))
    _put(database, other, WorkingHours("Asia/Tokyo", ALWAYS_OPEN))

    assert (_hours(database, account), _hours(database, other)) == (
        WorkingHours("Europe/Berlin", OFFICE),
        WorkingHours("Asia/Tokyo", ALWAYS_OPEN),
    )


def test_resource_schedules_read_back_by_resource(database: Database, account: int) -> None:
    """Each resource's own schedule comes back under its id; resources without one are left out."""
    first, second, _third = (_resource(database, account, name) for name in ("Ada", "Bob", "Cy"))
    weekends = Schedule(weekly=(CLOSED,) * 5 + (ALL_DAY, ALL_DAY))
    with database.uow.workspace(account) as uow:
        uow.working_hours.put_resource(first, OFFICE)
        uow.working_hours.put_resource(second, weekends)
        uow.commit()

    assert _schedules(database, account) == {first: OFFICE, second: weekends}


def test_put_resource_replaces_and_clear_removes(database: Database, account: int) -> None:
    """A second `put_resource` replaces the schedule; `clear_resource` drops it and says whether it had one."""
    resource = _resource(database, account)
    with database.uow.workspace(account) as uow:
        uow.working_hours.put_resource(resource, OFFICE)
        uow.working_hours.put_resource(resource, ALWAYS_OPEN)
        replaced = dict(uow.working_hours.resource_schedules())
        cleared = (uow.working_hours.clear_resource(resource), uow.working_hours.clear_resource(resource))
        uow.commit()

    assert (replaced, cleared, _schedules(database, account)) == ({resource: ALWAYS_OPEN}, (True, False), {})


def test_resource_schedules_are_scoped_to_their_account(database: Database, account: int, other: int) -> None:
    """Another account neither sees nor clears a resource's schedule."""
    resource = _resource(database, account)
    with database.uow.workspace(account) as uow:
        uow.working_hours.put_resource(resource, OFFICE)
        uow.commit()

    with database.uow.workspace(other) as uow:
        seen = dict(uow.working_hours.resource_schedules())
        cleared = uow.working_hours.clear_resource(resource)
        uow.commit()

    assert (seen, cleared, _schedules(database, account)) == ({}, False, {resource: OFFICE})


# -- through the services ---------------------------------------------------------------------------


def _office_input() -> WorkingHoursInput:
    weekday = [OpeningInput("09:00", "12:00"), OpeningInput("13:00", "17:00")]
    days = ("monday", "tuesday", "wednesday", "thursday", "friday")
    return WorkingHoursInput("Europe/Berlin", weekly=dict.fromkeys(days, weekday))


def test_set_timezone_keeps_the_stored_schedule(services: Services, account: int) -> None:
    """Changing the timezone alone keeps the stored weekly hours."""
    services.booking_setup.set_working_hours(account, _office_input())

    services.booking_setup.set_timezone(account, "America/New_York")

    hours = services.booking_setup.working_hours(account)
    assert (hours.timezone, hours.schedule.weekly[0]) == ("America/New_York", (Opening(540, 720), Opening(780, 1020)))


def test_availability_follows_the_stored_hours_and_timezone(services: Services, account: int) -> None:
    """A Berlin workspace's Monday slots start at 09:00 Berlin (08:00 UTC in winter) and skip the lunch break."""
    services.booking_setup.set_working_hours(account, _office_input())
    booking_type = services.booking_setup.create_type(account, BookingTypeInput("Consultation", 60))

    day = services.bookings.availability(account, booking_type.id, date(2026, 1, 5))

    assert [slot.starts_at.hour for slot in day.slots] == [8, 9, 10, 12, 13, 14, 15]
    assert day.slots[0].starts_at == datetime(2026, 1, 5, 8, tzinfo=UTC)


def test_a_resource_override_replaces_the_workspace_hours(services: Services, account: int) -> None:
    """A resource with its own schedule is offered at its own hours."""
    services.booking_setup.set_working_hours(account, _office_input())
    booking_type = services.booking_setup.create_type(account, BookingTypeInput("Consultation", 60))
    resource = services.booking_setup.create_resource(account, ResourceInput("Ada", "staff"))
    services.booking_setup.set_resource_hours(
        account, resource.id, ScheduleInput(weekly={"monday": [OpeningInput("18:00", "20:00")]})
    )

    day = services.bookings.availability(account, booking_type.id, date(2026, 1, 5), resource_id=resource.id)

    assert [slot.starts_at.hour for slot in day.slots] == [17, 18]


def test_hours_of_another_accounts_resource_are_not_found(services: Services, account: int, other: int) -> None:
    """Setting a schedule on another account's resource is NotFound and stores nothing."""
    resource = services.booking_setup.create_resource(account, ResourceInput("Ada", "staff"))

    with pytest.raises(NotFound):
        services.booking_setup.set_resource_hours(other, resource.id, ScheduleInput())

    assert services.booking_setup.resource_hours(account, resource.id) is None
