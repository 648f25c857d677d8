"""Bookings: bookings, booking types, resources and working hours, through their repositories and
the booking services, on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest
from support import NOW

from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.bookings.model import Booking, BookingDraft, BookingFilter
from engage_core.bookings.setup import (
    BookingType,
    BookingTypeDraft,
    BookingTypeInput,
    BookingTypePatch,
    Resource,
    ResourceDraft,
    ResourceInput,
    ResourcePatch,
)
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
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory

TOMORROW = NOW.replace(hour=9) + timedelta(days=1)
HOUR = timedelta(hours=1)
LATER = NOW + timedelta(minutes=5)
CLOSED = ()
OFFICE = Schedule(
    weekly=((Opening(540, 720), Opening(780, 1020)),) * 5 + (CLOSED, CLOSED),
    exceptions={date(2026, 12, 25): CLOSED, date(2026, 12, 24): (Opening(540, 720),)},
)
"""Monday to Friday 09:00-12:00 and 13:00-17:00, closed on Christmas, mornings on Christmas Eve."""


@attrs.frozen
class Calendar:
    """A booking type and two resources of one account."""

    booking_type: int
    first: int
    second: int


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _booking_events(outbox_events: Callable[..., list[DomainEvent]], account: int) -> list[str]:
    return [e.name for e in outbox_events(account) if e.name.startswith("booking.")]


def _calendar(uow: UnitOfWorkFactory, account: int) -> Calendar:
    with uow.workspace(account) as unit:
        booking_type = unit.booking_types.add(BookingTypeDraft("Consultation", 60), NOW)
        first = unit.resources.add(ResourceDraft("Ada", "staff"), NOW)
        second = unit.resources.add(ResourceDraft("Room 1", "room"), NOW)
        unit.commit()
    return Calendar(booking_type.id, first.id, second.id)


@pytest.fixture
def calendar(uow: UnitOfWorkFactory, account: int) -> Calendar:
    return _calendar(uow, account)


@pytest.fixture
def contact(make_contact: Callable[..., Contact]) -> Contact:
    return make_contact(name="Ada Lovelace")


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


def _add(uow: UnitOfWorkFactory, account: int, draft: BookingDraft, now: datetime = NOW) -> Booking:
    with uow.workspace(account) as unit:
        booking = unit.bookings.add(draft, now)
        unit.commit()
    return booking


def _get(uow: UnitOfWorkFactory, account: int, booking_id: int) -> Booking | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.bookings.get(booking_id)


def _found(uow: UnitOfWorkFactory, account: int, filters: BookingFilter, page: PageRequest | None = None) -> list[int]:
    with uow.workspace(account, readonly=True) as unit:
        return [b.id for b in unit.bookings.find(filters, page or PageRequest(per_page=100)).items]


def _overlapping(
    uow: UnitOfWorkFactory, account: int, resource_id: int | None, starts_at: datetime, ends_at: datetime, **kw: Any
) -> list[int]:
    with uow.workspace(account) as unit:
        unit.bookings.lock_resource(resource_id)
        return [b.id for b in unit.bookings.overlapping(resource_id, starts_at, ends_at, **kw)]


def _live_between(uow: UnitOfWorkFactory, account: int, starts_at: datetime, ends_at: datetime) -> list[int]:
    with uow.workspace(account, readonly=True) as unit:
        return [b.id for b in unit.bookings.live_between(starts_at, ends_at)]


def _add_type(uow: UnitOfWorkFactory, account: int, draft: BookingTypeDraft) -> BookingType:
    with uow.workspace(account) as unit:
        added = unit.booking_types.add(draft, NOW)
        unit.commit()
    return added


def _add_resource(uow: UnitOfWorkFactory, account: int, draft: ResourceDraft) -> Resource:
    with uow.workspace(account) as unit:
        added = unit.resources.add(draft, NOW)
        unit.commit()
    return added


def _types(uow: UnitOfWorkFactory, account: int) -> list[BookingType]:
    with uow.workspace(account, readonly=True) as unit:
        return list(unit.booking_types.list())


def _resources(uow: UnitOfWorkFactory, account: int) -> list[Resource]:
    with uow.workspace(account, readonly=True) as unit:
        return list(unit.resources.list())


def _resource(uow: UnitOfWorkFactory, account: int, name: str = "Ada") -> int:
    with uow.workspace(account) as unit:
        resource = unit.resources.add(ResourceDraft(name, "staff"), NOW)
        unit.commit()
    return resource.id


def _put(uow: UnitOfWorkFactory, account: int, hours: WorkingHours) -> None:
    with uow.workspace(account) as unit:
        unit.working_hours.put(hours)
        unit.commit()


def _hours(uow: UnitOfWorkFactory, account: int) -> WorkingHours | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.working_hours.get()


def _schedules(uow: UnitOfWorkFactory, account: int) -> dict[int, Schedule]:
    with uow.workspace(account, readonly=True) as unit:
        return dict(unit.working_hours.resource_schedules())


def _office_input() -> WorkingHoursInput:
    weekday = [OpeningInput("09:00", "12:00"), OpeningInput("13:00", "17:00")]
    days = ("monday", "tuesday", "wednesday", "thursday", "friday")
    return WorkingHoursInput("Europe/Berlin", weekly=dict.fromkeys(days, weekday))


def test_added_booking_reads_back_equal(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """Every field of a booking survives the round trip, timestamps as aware UTC."""
    draft = _draft(calendar, TOMORROW, calendar.first, status="pending", notes="Bring the forms")

    added = _add(uow, account, draft)

    assert (
        _get(uow, account, added.id)
        == added
        == Booking(
            id=added.id,
            contact_id=1,
            booking_type_id=calendar.booking_type,
            resource_id=calendar.first,
            title="Consultation with Ada",
            starts_at=TOMORROW,
            ends_at=TOMORROW + HOUR,
            status="pending",
            notes="Bring the forms",
            created_at=NOW,
            updated_at=NOW,
        )
    )


def test_a_booking_without_a_resource_reads_back_with_none(
    uow: UnitOfWorkFactory, account: int, calendar: Calendar
) -> None:
    """`resource_id` None (the workspace's own calendar) is stored as NULL and read back as None."""
    added = _add(uow, account, _draft(calendar, TOMORROW))

    stored = _get(uow, account, added.id)

    assert stored is not None and stored.resource_id is None


def test_missing_and_foreign_bookings_are_none(
    uow: UnitOfWorkFactory, account: int, other: int, calendar: Calendar
) -> None:
    """`get` sees only the account's own bookings."""
    added = _add(uow, account, _draft(calendar, TOMORROW))

    assert (_get(uow, other, added.id), _get(uow, account, added.id + 1000)) == (None, None)


def test_update_stores_every_changeable_field(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """`update` stores status, times, resource, notes, cancellation and `updated_at`, and keeps `created_at`."""
    added = _add(uow, account, _draft(calendar, TOMORROW, calendar.first))
    later = NOW + timedelta(minutes=5)
    changed = attrs.evolve(
        added,
        status="cancelled",
        starts_at=TOMORROW + HOUR,
        ends_at=TOMORROW + 2 * HOUR,
        resource_id=calendar.second,
        notes="Moved",
        cancelled_at=later,
        cancellation_reason="Ill",
        updated_at=later,
    )

    with uow.workspace(account) as unit:
        unit.bookings.update(changed)
        unit.commit()

    assert _get(uow, account, added.id) == changed


def test_updating_another_accounts_booking_does_nothing(
    uow: UnitOfWorkFactory, account: int, other: int, calendar: Calendar
) -> None:
    """An update through another account's unit of work leaves the booking as it was."""
    added = _add(uow, account, _draft(calendar, TOMORROW))

    with uow.workspace(other) as unit:
        unit.bookings.update(attrs.evolve(added, status="cancelled", notes="Hijacked"))
        unit.commit()

    assert _get(uow, account, added.id) == added


def test_find_orders_by_start_then_id(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """Bookings come by `starts_at`, and by id when they start together, whatever the insertion order."""
    late = _add(uow, account, _draft(calendar, TOMORROW + 2 * HOUR))
    early_a = _add(uow, account, _draft(calendar, TOMORROW, calendar.first))
    early_b = _add(uow, account, _draft(calendar, TOMORROW, calendar.second))

    assert _found(uow, account, BookingFilter()) == [early_a.id, early_b.id, late.id]


def test_find_filters_by_status_and_contact(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """`status` and `contact_id` each keep only the matching bookings."""
    pending = _add(uow, account, _draft(calendar, TOMORROW, status="pending", contact_id=7))
    confirmed = _add(uow, account, _draft(calendar, TOMORROW + HOUR, contact_id=8))

    assert (
        _found(uow, account, BookingFilter(status="pending")),
        _found(uow, account, BookingFilter(contact_id=8)),
    ) == ([pending.id], [confirmed.id])


def test_from_and_to_bound_the_start_both_inclusive(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """`starts_from` and `starts_to` keep bookings starting within them, the bounds included."""
    ids = [_add(uow, account, _draft(calendar, TOMORROW + n * HOUR)).id for n in range(4)]

    found = _found(uow, account, BookingFilter(starts_from=TOMORROW + HOUR, starts_to=TOMORROW + 2 * HOUR))

    assert found == ids[1:3]


def test_from_and_to_compare_instants_whatever_their_offset(
    uow: UnitOfWorkFactory, account: int, calendar: Calendar
) -> None:
    """A bound in another offset means the same instant (10:00+01:00 is 09:00Z)."""
    booking = _add(uow, account, _draft(calendar, TOMORROW))
    berlin = TOMORROW.astimezone(ZoneInfo("Europe/Berlin"))

    assert _found(uow, account, BookingFilter(starts_from=berlin, starts_to=berlin)) == [booking.id]


def test_find_pages_in_time_order_and_counts_all(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """A page holds its slice of the time order; `total` counts every match."""
    ids = [_add(uow, account, _draft(calendar, TOMORROW + n * HOUR)).id for n in range(5)]

    with uow.workspace(account, readonly=True) as unit:
        page = unit.bookings.find(BookingFilter(), PageRequest(page=2, per_page=2))

    assert ([b.id for b in page.items], page.total) == (ids[2:4], 5)


def test_a_page_past_the_end_is_empty_with_the_total(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """A page beyond the last holds nothing but still counts the matches."""
    _add(uow, account, _draft(calendar, TOMORROW))

    with uow.workspace(account, readonly=True) as unit:
        page = unit.bookings.find(BookingFilter(), PageRequest(page=3, per_page=10))

    assert (list(page.items), page.total) == ([], 1)


def test_find_sees_only_the_accounts_bookings(
    uow: UnitOfWorkFactory, account: int, other: int, calendar: Calendar
) -> None:
    """Another account's bookings never appear."""
    mine = _add(uow, account, _draft(calendar, TOMORROW))
    _add(uow, other, _draft(_calendar(uow, other), TOMORROW))

    assert _found(uow, account, BookingFilter()) == [mine.id]


def test_overlapping_ranges_are_half_open(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """A booking 10:00-11:00 overlaps 10:30-11:30 and 09:30-10:01, not 09:00-10:00 nor 11:00-12:00."""
    booked = _add(uow, account, _draft(calendar, TOMORROW + HOUR, calendar.first))
    ten = TOMORROW + HOUR

    def clash(start: datetime, end: datetime) -> bool:
        return _overlapping(uow, account, calendar.first, start, end) == [booked.id]

    assert [
        clash(ten + timedelta(minutes=30), ten + timedelta(minutes=90)),
        clash(ten - timedelta(minutes=30), ten + timedelta(minutes=1)),
        clash(ten - HOUR, ten),
        clash(ten + HOUR, ten + 2 * HOUR),
    ] == [True, True, False, False]


def test_overlapping_sees_only_live_bookings_of_that_calendar(
    uow: UnitOfWorkFactory, account: int, other: int, calendar: Calendar
) -> None:
    """Cancelled and completed bookings, other resources, the no-resource calendar and other accounts
    do not clash; pending and confirmed ones do, in time order."""
    confirmed = _add(uow, account, _draft(calendar, TOMORROW + timedelta(minutes=30), calendar.first))
    pending = _add(uow, account, _draft(calendar, TOMORROW, calendar.first, status="pending"))
    for status in ("cancelled", "completed"):
        _add(uow, account, _draft(calendar, TOMORROW, calendar.first, status=status))
    _add(uow, account, _draft(calendar, TOMORROW, calendar.second))
    _add(uow, account, _draft(calendar, TOMORROW))
    theirs = _calendar(uow, other)
    _add(uow, other, _draft(theirs, TOMORROW, theirs.first))

    found = _overlapping(uow, account, calendar.first, TOMORROW, TOMORROW + 2 * HOUR)

    assert found == [pending.id, confirmed.id]


def test_the_no_resource_calendar_is_its_own(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """`overlapping(None, ...)` finds bookings without a resource and none with one."""
    unplaced = _add(uow, account, _draft(calendar, TOMORROW))
    _add(uow, account, _draft(calendar, TOMORROW, calendar.first))

    assert _overlapping(uow, account, None, TOMORROW, TOMORROW + HOUR) == [unplaced.id]


def test_overlapping_leaves_out_the_excluded_booking(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """`exclude_id` (the booking being rescheduled) never clashes with itself."""
    booked = _add(uow, account, _draft(calendar, TOMORROW, calendar.first))

    found = _overlapping(uow, account, calendar.first, TOMORROW, TOMORROW + HOUR, exclude_id=booked.id)

    assert found == []


def test_live_between_finds_every_calendars_live_bookings_half_open(
    uow: UnitOfWorkFactory, account: int, other: int, calendar: Calendar
) -> None:
    """Live bookings of any calendar overlapping the range, by start then id; touching, dead and
    other accounts' bookings are left out."""
    day_start, day_end = TOMORROW, TOMORROW + 8 * HOUR
    before = _add(uow, account, _draft(calendar, day_start - HOUR))  # ends as the range starts
    after = _add(uow, account, _draft(calendar, day_end))  # starts as the range ends
    across = _add(uow, account, _draft(calendar, day_start - timedelta(minutes=30), calendar.second))
    inside = _add(uow, account, _draft(calendar, day_start + HOUR, calendar.first, status="pending"))
    _add(uow, account, _draft(calendar, day_start + 2 * HOUR, calendar.first, status="cancelled"))
    _add(uow, other, _draft(_calendar(uow, other), day_start + HOUR))

    found = _live_between(uow, account, day_start, day_end)

    assert (found, before.id in found, after.id in found) == ([across.id, inside.id], False, False)


def test_a_booking_and_its_event_are_committed_together(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    calendar: Calendar,
    contact: Contact,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Creating a booking stores it (ends_at from the type) and records `booking.created` in the outbox."""
    booking = services.bookings.create(account, BookingInput(contact.id, calendar.booking_type, TOMORROW))

    created = [e for e in outbox_events(account) if e.name == "booking.created"]
    assert (_get(uow, account, booking.id), booking.ends_at) == (booking, TOMORROW + HOUR)
    assert [(e.payload["id"], e.payload["booking_date"], e.payload["start_time"]) for e in created] == [
        (booking.id, "2026-01-02", "09:00")
    ]


def test_a_refused_booking_writes_nothing(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    calendar: Calendar,
    contact: Contact,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """A clash is a 422 that stores neither a booking nor an event."""
    data = BookingInput(contact.id, calendar.booking_type, TOMORROW, resource_id=calendar.first)
    services.bookings.create(account, data)

    with pytest.raises(ValidationFailed):
        services.bookings.create(account, data)

    assert len(_found(uow, account, BookingFilter())) == 1
    assert _booking_events(outbox_events, account) == ["booking.created"]


def test_a_cancel_stores_the_reason_and_records_both_events(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    calendar: Calendar,
    contact: Contact,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Cancelling stores `cancelled_at` and the reason, and records `booking.updated` then `booking.cancelled`."""
    booking = services.bookings.create(account, BookingInput(contact.id, calendar.booking_type, TOMORROW))

    services.bookings.cancel(account, booking.id, "Ill")

    stored = _get(uow, account, booking.id)
    assert stored is not None and (stored.status, stored.cancelled_at, stored.cancellation_reason) == (
        "cancelled",
        NOW,
        "Ill",
    )
    assert _booking_events(outbox_events, account) == ["booking.created", "booking.updated", "booking.cancelled"]


def test_a_cancelled_slot_can_be_booked_again(
    services: Services, uow: UnitOfWorkFactory, account: int, calendar: Calendar, contact: Contact
) -> None:
    """A cancelled booking holds nothing: the same slot on the same resource is accepted again."""
    data = BookingInput(contact.id, calendar.booking_type, TOMORROW, resource_id=calendar.first)
    services.bookings.cancel(account, services.bookings.create(account, data).id)

    again = services.bookings.create(account, data)

    assert _overlapping(uow, account, calendar.first, TOMORROW, TOMORROW + HOUR) == [again.id]


def test_a_reschedule_moves_the_booking_and_keeps_its_length(
    services: Services,
    uow: UnitOfWorkFactory,
    account: int,
    calendar: Calendar,
    contact: Contact,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """`PUT` with a new `starts_at` stores the new range and records `booking.updated`."""
    booking = services.bookings.create(account, BookingInput(contact.id, calendar.booking_type, TOMORROW))

    services.bookings.update(account, booking.id, BookingPatch(starts_at=TOMORROW + 3 * HOUR))

    stored = _get(uow, account, booking.id)
    assert stored is not None and (stored.starts_at, stored.ends_at) == (TOMORROW + 3 * HOUR, TOMORROW + 4 * HOUR)
    assert _booking_events(outbox_events, account) == ["booking.created", "booking.updated"]


def test_availability_reads_the_stored_bookings(
    services: Services, account: int, calendar: Calendar, contact: Contact
) -> None:
    """A slot booked on every resource is unavailable; one booked on one resource of two is still free."""
    for resource in (calendar.first, calendar.second):
        services.bookings.create(
            account, BookingInput(contact.id, calendar.booking_type, TOMORROW, resource_id=resource)
        )
    services.bookings.create(
        account, BookingInput(contact.id, calendar.booking_type, TOMORROW + HOUR, resource_id=calendar.first)
    )

    day = services.bookings.availability(account, calendar.booking_type, TOMORROW.date())

    by_start = {slot.starts_at: slot.available for slot in day.slots}
    assert (by_start[TOMORROW], by_start[TOMORROW + HOUR], by_start[TOMORROW + 2 * HOUR]) == (False, True, True)


def test_added_type_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of a booking type survives the round trip."""
    added = _add_type(uow, account, BookingTypeDraft("Consultation", 45, "First visit", is_active=False))

    with uow.workspace(account, readonly=True) as unit:
        stored = unit.booking_types.get(added.id)

    assert stored == added == BookingType(added.id, "Consultation", 45, "First visit", False, NOW, NOW)


def test_types_list_in_ascending_id_active_or_not(uow: UnitOfWorkFactory, account: int) -> None:
    """`list` holds every type of the account, inactive ones included, by id."""
    first = _add_type(uow, account, BookingTypeDraft("B", 30, is_active=False))
    second = _add_type(uow, account, BookingTypeDraft("A", 60))

    assert _types(uow, account) == [first, second]


def test_a_type_update_stores_the_fields_and_keeps_created_at(uow: UnitOfWorkFactory, account: int) -> None:
    """`update` stores name, duration, description, active flag and `updated_at`."""
    added = _add_type(uow, account, BookingTypeDraft("Consultation", 45, "First visit"))
    changed = attrs.evolve(
        added, name="Check-up", duration_minutes=20, description=None, is_active=False, updated_at=LATER
    )

    with uow.workspace(account) as unit:
        unit.booking_types.update(changed)
        unit.commit()

    assert _types(uow, account) == [changed]


def test_types_are_scoped_to_their_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account neither lists, reads nor updates a type."""
    added = _add_type(uow, account, BookingTypeDraft("Consultation", 45))

    with uow.workspace(other) as unit:
        seen = (unit.booking_types.get(added.id), list(unit.booking_types.list()))
        unit.booking_types.update(attrs.evolve(added, name="Hijacked"))
        unit.commit()

    assert (seen, _types(uow, account)) == ((None, []), [added])


def test_added_resource_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of a resource survives the round trip."""
    added = _add_resource(uow, account, ResourceDraft("Room 1", "room", is_active=False))

    with uow.workspace(account, readonly=True) as unit:
        stored = unit.resources.get(added.id)

    assert stored == added == Resource(added.id, "Room 1", "room", False, NOW, NOW)


def test_resources_list_in_ascending_id_active_or_not(uow: UnitOfWorkFactory, account: int) -> None:
    """`list` holds every resource of the account, inactive ones included, by id."""
    first = _add_resource(uow, account, ResourceDraft("Zed", "staff", is_active=False))
    second = _add_resource(uow, account, ResourceDraft("Ada", "staff"))

    assert _resources(uow, account) == [first, second]


def test_a_resource_update_stores_the_fields(uow: UnitOfWorkFactory, account: int) -> None:
    """`update` stores name, type, active flag and `updated_at`, keeping `created_at`."""
    added = _add_resource(uow, account, ResourceDraft("Room 1", "room"))
    changed = attrs.evolve(added, name="Room 2", type="hall", is_active=False, updated_at=LATER)

    with uow.workspace(account) as unit:
        unit.resources.update(changed)
        unit.commit()

    assert _resources(uow, account) == [changed]


def test_resources_are_scoped_to_their_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account neither lists, reads nor updates a resource."""
    added = _add_resource(uow, account, ResourceDraft("Room 1", "room"))

    with uow.workspace(other) as unit:
        seen = (unit.resources.get(added.id), list(unit.resources.list()))
        unit.resources.update(attrs.evolve(added, name="Hijacked"))
        unit.commit()

    assert (seen, _resources(uow, account)) == ((None, []), [added])


def test_setup_service_creates_updates_and_deactivates_a_type(
    services: Services, account: int, clock: FakeClock
) -> None:
    """Created, renamed and deactivated through the service, the stored type follows each step."""
    created = services.booking_setup.create_type(account, BookingTypeInput("Consultation", 30))
    clock.advance(minutes=1)
    services.booking_setup.update_type(account, created.id, BookingTypePatch(name="Check-up"))
    clock.advance(minutes=1)
    services.booking_setup.deactivate_type(account, created.id)

    stored = services.booking_setup.get_type(account, created.id)
    assert (stored.name, stored.is_active, stored.created_at, stored.updated_at) == (
        "Check-up",
        False,
        NOW,
        NOW + timedelta(minutes=2),
    )


def test_setup_service_lists_active_resources_only_when_asked(services: Services, account: int) -> None:
    """`active_only` leaves deactivated resources out; without it they are listed."""
    kept = services.booking_setup.create_resource(account, ResourceInput("Ada", "staff"))
    gone = services.booking_setup.create_resource(account, ResourceInput("Room 1", "room"))
    services.booking_setup.update_resource(account, gone.id, ResourcePatch(is_active=False))

    assert (
        [r.id for r in services.booking_setup.list_resources(account, active_only=True)],
        [r.id for r in services.booking_setup.list_resources(account)],
    ) == ([kept.id], [kept.id, gone.id])


def test_another_accounts_type_is_not_found(services: Services, account: int, other: int) -> None:
    """The service answers NotFound for a type of another account."""
    created = services.booking_setup.create_type(account, BookingTypeInput("Consultation", 30))

    with pytest.raises(NotFound):
        services.booking_setup.get_type(other, created.id)


def test_a_workspace_without_hours_has_none(uow: UnitOfWorkFactory, account: int) -> None:
    """`get` is None until the workspace sets its hours."""
    assert _hours(uow, account) is None


def test_hours_read_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """The timezone and every opening, break and exception survive the round trip."""
    _put(uow, account, WorkingHours("Europe/Berlin", OFFICE))

    assert _hours(uow, account) == WorkingHours("Europe/Berlin", OFFICE)


def test_hours_are_scoped_to_their_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """One account's hours are not another's."""
    _put(uow, account, WorkingHours("Europe/Berlin", OFFICE))
    _put(uow, other, WorkingHours("Asia/Tokyo", ALWAYS_OPEN))

    assert (_hours(uow, account), _hours(uow, other)) == (
        WorkingHours("Europe/Berlin", OFFICE),
        WorkingHours("Asia/Tokyo", ALWAYS_OPEN),
    )


def test_resource_schedules_read_back_by_resource(uow: UnitOfWorkFactory, account: int) -> None:
    """Each resource's own schedule comes back under its id; resources without one are left out."""
    first, second, _third = (_resource(uow, account, name) for name in ("Ada", "Bob", "Cy"))
    weekends = Schedule(weekly=(CLOSED,) * 5 + (ALL_DAY, ALL_DAY))
    with uow.workspace(account) as unit:
        unit.working_hours.put_resource(first, OFFICE)
        unit.working_hours.put_resource(second, weekends)
        unit.commit()

    assert _schedules(uow, account) == {first: OFFICE, second: weekends}


def test_put_resource_replaces_and_clear_removes(uow: UnitOfWorkFactory, account: int) -> None:
    """A second `put_resource` replaces the schedule; `clear_resource` drops it and says whether it had one."""
    resource = _resource(uow, account)
    with uow.workspace(account) as unit:
        unit.working_hours.put_resource(resource, OFFICE)
        unit.working_hours.put_resource(resource, ALWAYS_OPEN)
        replaced = dict(unit.working_hours.resource_schedules())
        cleared = (unit.working_hours.clear_resource(resource), unit.working_hours.clear_resource(resource))
        unit.commit()

    assert (replaced, cleared, _schedules(uow, account)) == ({resource: ALWAYS_OPEN}, (True, False), {})


def test_resource_schedules_are_scoped_to_their_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account neither sees nor clears a resource's schedule."""
    resource = _resource(uow, account)
    with uow.workspace(account) as unit:
        unit.working_hours.put_resource(resource, OFFICE)
        unit.commit()

    with uow.workspace(other) as unit:
        seen = dict(unit.working_hours.resource_schedules())
        cleared = unit.working_hours.clear_resource(resource)
        unit.commit()

    assert (seen, cleared, _schedules(uow, account)) == ({}, False, {resource: OFFICE})


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


def test_update_keeps_contact_type_and_title(uow: UnitOfWorkFactory, account: int, calendar: Calendar) -> None:
    """`update` leaves the contact, booking type and title as they were stored."""
    added = _add(uow, account, _draft(calendar, TOMORROW))
    other_type = _add_type(uow, account, BookingTypeDraft("Check-up", 30))
    with uow.workspace(account) as unit:
        unit.bookings.update(attrs.evolve(added, contact_id=99, booking_type_id=other_type.id, title="Renamed"))
        unit.commit()

    assert _get(uow, account, added.id) == added


def test_live_between_orders_bookings_starting_together_by_id(
    uow: UnitOfWorkFactory, account: int, calendar: Calendar
) -> None:
    """Two live bookings starting at once come by id, whatever calendar each is on."""
    first = _add(uow, account, _draft(calendar, TOMORROW, calendar.second))
    second = _add(uow, account, _draft(calendar, TOMORROW, calendar.first))

    assert _live_between(uow, account, TOMORROW, TOMORROW + HOUR) == [first.id, second.id]


def test_unknown_types_and_resources_are_none(uow: UnitOfWorkFactory, account: int) -> None:
    """`get` of a type or resource id never used is None."""
    with uow.workspace(account, readonly=True) as unit:
        assert (unit.booking_types.get(987654), unit.resources.get(987654)) == (None, None)


def test_clearing_a_resource_without_a_schedule_is_false(uow: UnitOfWorkFactory, account: int) -> None:
    """`clear_resource` of a resource that never had its own schedule is False."""
    resource = _resource(uow, account)

    with uow.workspace(account) as unit:
        assert unit.working_hours.clear_resource(resource) is False
