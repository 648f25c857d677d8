"""BookingSetupService over the in-memory fakes: booking types, resources, the workspace's
timezone and working hours, and resources' own hours."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engage_core.bookings.setup import BookingTypeInput, BookingTypePatch, ResourceInput, ResourcePatch
from engage_core.bookings.working_hours import DEFAULT_HOURS, OpeningInput, ScheduleInput, WorkingHoursInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def test_a_booking_type_is_created_active(services: Services, account_id: int) -> None:
    """Name, duration and description are stored; is_active defaults to true."""
    created = services.booking_setup.create_type(account_id, BookingTypeInput(" Haircut ", 30, "Wash and cut"))
    assert (created.name, created.duration_minutes, created.description, created.is_active) == (
        "Haircut",
        30,
        "Wash and cut",
        True,
    )


@pytest.mark.parametrize("minutes", [0, -5, 1441, True])
def test_a_duration_is_a_whole_number_of_minutes_up_to_a_day(services: Services, account_id: int, minutes: Any) -> None:
    """duration_minutes runs from 1 to 1440."""
    errors = errors_of(lambda: services.booking_setup.create_type(account_id, BookingTypeInput("X", minutes)))
    assert list(errors) == ["duration_minutes"]


def test_a_booking_type_without_a_name_is_refused(services: Services, account_id: int) -> None:
    """name and duration are both checked at once."""
    errors = errors_of(lambda: services.booking_setup.create_type(account_id, BookingTypeInput("  ", 0)))
    assert set(errors) == {"name", "duration_minutes"}


def test_a_booking_type_is_updated_and_deactivated(services: Services, account_id: int, clock: FakeClock) -> None:
    """A patch changes only the given fields and moves updated_at; deactivate clears is_active."""
    created = services.booking_setup.create_type(account_id, BookingTypeInput("Haircut", 30))
    clock.advance(minutes=1)
    changed = services.booking_setup.update_type(account_id, created.id, BookingTypePatch(duration_minutes=45))
    assert (changed.name, changed.duration_minutes, changed.updated_at) == ("Haircut", 45, clock.now())
    assert services.booking_setup.deactivate_type(account_id, created.id).is_active is False


def test_an_empty_patch_changes_nothing(services: Services, account_id: int, clock: FakeClock) -> None:
    """No field given: the type comes back as it was, updated_at included."""
    created = services.booking_setup.create_type(account_id, BookingTypeInput("Haircut", 30))
    clock.advance(minutes=1)
    assert services.booking_setup.update_type(account_id, created.id, BookingTypePatch()) == created


def test_types_list_in_id_order_and_can_hide_inactive_ones(services: Services, account_id: int) -> None:
    """GET /bookings/types lists every type; active_only drops the deactivated."""
    first = services.booking_setup.create_type(account_id, BookingTypeInput("A", 30))
    second = services.booking_setup.create_type(account_id, BookingTypeInput("B", 30, is_active=False))
    assert [t.id for t in services.booking_setup.list_types(account_id)] == [first.id, second.id]
    assert [t.id for t in services.booking_setup.list_types(account_id, active_only=True)] == [first.id]


def test_another_workspaces_type_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """Types belong to one workspace."""
    created = services.booking_setup.create_type(account_id, BookingTypeInput("A", 30))
    with pytest.raises(NotFound):
        services.booking_setup.update_type(new_account("Other"), created.id, BookingTypePatch(name="Mine"))


def test_a_resource_is_created_updated_and_deactivated(services: Services, account_id: int) -> None:
    """Name and type are required text; the patch and deactivate change what they say."""
    created = services.booking_setup.create_resource(account_id, ResourceInput("Ada", "staff"))
    renamed = services.booking_setup.update_resource(account_id, created.id, ResourcePatch(type="room"))
    assert (renamed.name, renamed.type) == ("Ada", "room")
    assert services.booking_setup.deactivate_resource(account_id, created.id).is_active is False


def test_a_resource_needs_a_name_and_type(services: Services, account_id: int) -> None:
    """Both are reported at once."""
    errors = errors_of(lambda: services.booking_setup.create_resource(account_id, ResourceInput("", " ")))
    assert set(errors) == {"name", "type"}


def test_working_hours_default_to_utc_around_the_clock(services: Services, account_id: int) -> None:
    """A workspace that never set its hours reads the default."""
    assert services.booking_setup.working_hours(account_id) == DEFAULT_HOURS


def test_working_hours_are_stored_with_the_timezone(services: Services, account_id: int) -> None:
    """The timezone and the schedule read back as set."""
    data = WorkingHoursInput("Europe/Berlin", weekly={"monday": [OpeningInput("09:00", "17:00")]})
    services.booking_setup.set_working_hours(account_id, data)
    hours = services.booking_setup.working_hours(account_id)
    assert (hours.timezone, hours.schedule.weekly[0][0].label()) == ("Europe/Berlin", "09:00-17:00")


def test_the_timezone_can_change_alone(services: Services, account_id: int) -> None:
    """set_timezone keeps the schedule."""
    data = WorkingHoursInput("Europe/Berlin", weekly={"monday": [OpeningInput("09:00", "17:00")]})
    set_hours = services.booking_setup.set_working_hours(account_id, data)
    changed = services.booking_setup.set_timezone(account_id, "America/New_York")
    assert (changed.timezone, changed.schedule) == ("America/New_York", set_hours.schedule)


def test_an_unknown_timezone_is_refused(services: Services, account_id: int) -> None:
    """The timezone must be an IANA name."""
    assert list(errors_of(lambda: services.booking_setup.set_timezone(account_id, "Berlin"))) == ["timezone"]


def test_a_resource_gets_and_loses_its_own_hours(services: Services, account_id: int) -> None:
    """set_resource_hours stores a schedule; clear_resource_hours returns to the workspace's."""
    resource = services.booking_setup.create_resource(account_id, ResourceInput("Ada", "staff")).id
    assert services.booking_setup.resource_hours(account_id, resource) is None
    schedule = services.booking_setup.set_resource_hours(
        account_id, resource, ScheduleInput(weekly={"friday": [OpeningInput("10:00", "14:00")]})
    )
    assert services.booking_setup.resource_hours(account_id, resource) == schedule
    services.booking_setup.clear_resource_hours(account_id, resource)
    assert services.booking_setup.resource_hours(account_id, resource) is None


def test_hours_of_an_unknown_resource_are_not_found(services: Services, account_id: int) -> None:
    """A resource id of nothing is a 404."""
    with pytest.raises(NotFound):
        services.booking_setup.set_resource_hours(account_id, 999, ScheduleInput())
