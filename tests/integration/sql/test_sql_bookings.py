"""Bookings through the SQL booking repository and BookingService (reference: engage_core.testing)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.bookings.catalogue import BookingTypeDraft, ResourceDraft
from engage_core.bookings.model import Booking, BookingDraft, BookingFilter
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
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


def _add(database: Database, account: int, draft: BookingDraft, now: datetime = START) -> Booking:
    with database.uow.workspace(account) as uow:
        booking = uow.bookings.add(draft, now)
        uow.commit()
    return booking


def _get(database: Database, account: int, booking_id: int) -> Booking | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.bookings.get(booking_id)


def _found(database: Database, account: int, filters: BookingFilter, page: PageRequest | None = None) -> list[int]:
    with database.uow.workspace(account, readonly=True) as uow:
        return [b.id for b in uow.bookings.find(filters, page or PageRequest(per_page=100)).items]


def _overlapping(
    database: Database, account: int, resource_id: int | None, starts_at: datetime, ends_at: datetime, **kw: Any
) -> list[int]:
    with database.uow.workspace(account) as uow:
        uow.bookings.lock_resource(resource_id)
        return [b.id for b in uow.bookings.overlapping(resource_id, starts_at, ends_at, **kw)]


def _live_between(database: Database, account: int, starts_at: datetime, ends_at: datetime) -> list[int]:
    with database.uow.workspace(account, readonly=True) as uow:
        return [b.id for b in uow.bookings.live_between(starts_at, ends_at)]


def _booking_events(database: Database, account: int) -> list[str]:
    return [e.name for e in database.outbox_events(account) if e.name.startswith("booking.")]


# -- the repository --------------------------------------------------------------------------------


def test_added_booking_reads_back_equal(database: Database, account: int, calendar: Calendar) -> None:
    """Every field of a booking survives the round trip, timestamps as aware UTC."""
    draft = _draft(calendar, TOMORROW, calendar.first, status="pending", notes="Bring the forms")

    added = _add(database, account, draft)

    assert (
        _get(database, account, added.id)
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
            created_at=START,
            updated_at=START,
        )
    )


def test_a_booking_without_a_resource_reads_back_with_none(
    database: Database, account: int, calendar: Calendar
) -> None:
    """`resource_id` None (the workspace's own calendar) is stored as NULL and read back as None."""
    added = _add(database, account, _draft(calendar, TOMORROW))

    stored = _get(database, account, added.id)

    assert stored is not None and stored.resource_id is None


def test_missing_and_foreign_bookings_are_none(
    database: Database, account: int, other: int, calendar: Calendar
) -> None:
    """`get` sees only the account's own bookings."""
    added = _add(database, account, _draft(calendar, TOMORROW))

    assert (_get(database, other, added.id), _get(database, account, added.id + 1000)) == (None, None)


def test_update_stores_every_changeable_field(database: Database, account: int, calendar: Calendar) -> None:
    """`update` stores status, times, resource, notes, cancellation and `updated_at`, and keeps `created_at`."""
    added = _add(database, account, _draft(calendar, TOMORROW, calendar.first))
    later = START + timedelta(minutes=5)
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

    with database.uow.workspace(account) as uow:
        uow.bookings.update(changed)
        uow.commit()

    assert _get(database, account, added.id) == changed


def test_updating_another_accounts_booking_does_nothing(
    database: Database, account: int, other: int, calendar: Calendar
) -> None:
    """An update through another account's unit of work leaves the booking as it was."""
    added = _add(database, account, _draft(calendar, TOMORROW))

    with database.uow.workspace(other) as uow:
        uow.bookings.update(attrs.evolve(added, status="cancelled", notes="Hijacked"))
        uow.commit()

    assert _get(database, account, added.id) == added


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


# -- find -------------------------------------------------------------------------------------------


def test_find_orders_by_start_then_id(database: Database, account: int, calendar: Calendar) -> None:
    """Bookings come by `starts_at`, and by id when they start together, whatever the insertion order."""
    late = _add(database, account, _draft(calendar, TOMORROW + 2 * HOUR))
    early_a = _add(database, account, _draft(calendar, TOMORROW, calendar.first))
    early_b = _add(database, account, _draft(calendar, TOMORROW, calendar.second))

    assert _found(database, account, BookingFilter()) == [early_a.id, early_b.id, late.id]


def test_find_filters_by_status_and_contact(database: Database, account: int, calendar: Calendar) -> None:
    """`status` and `contact_id` each keep only the matching bookings."""
    pending = _add(database, account, _draft(calendar, TOMORROW, status="pending", contact_id=7))
    confirmed = _add(database, account, _draft(calendar, TOMORROW + HOUR, contact_id=8))

    assert (
        _found(database, account, BookingFilter(status="pending")),
        _found(database, account, BookingFilter(contact_id=8)),
    ) == ([pending.id], [confirmed.id])


def test_from_and_to_bound_the_start_both_inclusive(database: Database, account: int, calendar: Calendar) -> None:
    """`starts_from` and `starts_to` keep bookings starting within them, the bounds included."""
    ids = [_add(database, account, _draft(calendar, TOMORROW + n * HOUR)).id for n in range(4)]

    found = _found(database, account, BookingFilter(starts_from=TOMORROW + HOUR, starts_to=TOMORROW + 2 * HOUR))

    assert found == ids[1:3]


def test_from_and_to_compare_instants_whatever_their_offset(
    database: Database, account: int, calendar: Calendar
) -> None:
    """A bound in another offset means the same instant (10:00+01:00 is 09:00Z)."""
    booking = _add(database, account, _draft(calendar, TOMORROW))
    berlin = TOMORROW.astimezone(ZoneInfo("Europe/Berlin"))

    assert _found(database, account, BookingFilter(starts_from=berlin, starts_to=berlin)) == [booking.id]


def test_find_pages_in_time_order_and_counts_all(database: Database, account: int, calendar: Calendar) -> None:
    """A page holds its slice of the time order; `total` counts every match."""
    ids = [_add(database, account, _draft(calendar, TOMORROW + n * HOUR)).id for n in range(5)]

    with database.uow.workspace(account, readonly=True) as uow:
        page = uow.bookings.find(BookingFilter(), PageRequest(page=2, per_page=2))

    assert ([b.id for b in page.items], page.total) == (ids[2:4], 5)


def test_a_page_past_the_end_is_empty_with_the_total(database: Database, account: int, calendar: Calendar) -> None:
    """A page beyond the last holds nothing but still counts the matches."""
    _add(database, account, _draft(calendar, TOMORROW))

    with database.uow.workspace(account, readonly=True) as uow:
        page = uow.bookings.find(BookingFilter(), PageRequest(page=3, per_page=10))

    assert (list(page.items), page.total) == ([], 1)


def test_find_sees_only_the_accounts_bookings(database: Database, account: int, other: int, calendar: Calendar) -> None:
    """Another account's bookings never appear."""
    mine = _add(database, account, _draft(calendar, TOMORROW))
    _add(database, other, _draft(_calendar(database, other), TOMORROW))

    assert _found(database, account, BookingFilter()) == [mine.id]


# -- overlapping and live_between -------------------------------------------------------------------


def test_overlapping_ranges_are_half_open(database: Database, account: int, calendar: Calendar) -> None:
    """A booking 10:00-11:00 overlaps 10:30-11:30 and 09:30-10:01, not 09:00-10:00 nor 11:00-12:00."""
    booked = _add(database, account, _draft(calendar, TOMORROW + HOUR, calendar.first))
    ten = TOMORROW + HOUR

    def clash(start: datetime, end: datetime) -> bool:
        return _overlapping(database, account, calendar.first, start, end) == [booked.id]

    assert [
        clash(ten + timedelta(minutes=30), ten + timedelta(minutes=90)),
        clash(ten - timedelta(minutes=30), ten + timedelta(minutes=1)),
        clash(ten - HOUR, ten),
        clash(ten + HOUR, ten + 2 * HOUR),
    ] == [True, True, False, False]


def test_overlapping_sees_only_live_bookings_of_that_calendar(
    database: Database, account: int, other: int, calendar: Calendar
) -> None:
    """Cancelled and completed bookings, other resources, the no-resource calendar and other accounts
    do not clash; pending and confirmed ones do, in time order."""
    confirmed = _add(database, account, _draft(calendar, TOMORROW + timedelta(minutes=30), calendar.first))
    pending = _add(database, account, _draft(calendar, TOMORROW, calendar.first, status="pending"))
    for status in ("cancelled", "completed"):
        _add(database, account, _draft(calendar, TOMORROW, calendar.first, status=status))
    _add(database, account, _draft(calendar, TOMORROW, calendar.second))
    _add(database, account, _draft(calendar, TOMORROW))
    theirs = _calendar(database, other)
    _add(database, other, _draft(theirs, TOMORROW, theirs.first))

    found = _overlapping(database, account, calendar.first, TOMORROW, TOMORROW + 2 * HOUR)

    assert found == [pending.id, confirmed.id]


def test_the_no_resource_calendar_is_its_own(database: Database, account: int, calendar: Calendar) -> None:
    """`overlapping(None, ...)` finds bookings without a resource and none with one."""
    unplaced = _add(database, account, _draft(calendar, TOMORROW))
    _add(database, account, _draft(calendar, TOMORROW, calendar.first))

    assert _overlapping(database, account, None, TOMORROW, TOMORROW + HOUR) == [unplaced.id]


def test_overlapping_leaves_out_the_excluded_booking(database: Database, account: int, calendar: Calendar) -> None:
    """`exclude_id` (the booking being rescheduled) never clashes with itself."""
    booked = _add(database, account, _draft(calendar, TOMORROW, calendar.first))

    found = _overlapping(database, account, calendar.first, TOMORROW, TOMORROW + HOUR, exclude_id=booked.id)

    assert found == []


def test_live_between_finds_every_calendars_live_bookings_half_open(
    database: Database, account: int, other: int, calendar: Calendar
) -> None:
    """Live bookings of any calendar overlapping the range, by start then id; touching, dead and
    other accounts' bookings are left out."""
    day_start, day_end = TOMORROW, TOMORROW + 8 * HOUR
    before = _add(database, account, _draft(calendar, day_start - HOUR))  # ends as the range starts
    after = _add(database, account, _draft(calendar, day_end))  # starts as the range ends
    across = _add(database, account, _draft(calendar, day_start - timedelta(minutes=30), calendar.second))
    inside = _add(database, account, _draft(calendar, day_start + HOUR, calendar.first, status="pending"))
    _add(database, account, _draft(calendar, day_start + 2 * HOUR, calendar.first, status="cancelled"))
    _add(database, other, _draft(_calendar(database, other), day_start + HOUR))

    found = _live_between(database, account, day_start, day_end)

    assert (found, before.id in found, after.id in found) == ([across.id, inside.id], False, False)


# -- through the service ----------------------------------------------------------------------------


@pytest.fixture
def contact(make_contact: Callable[..., Contact]) -> Contact:
    return make_contact(name="Ada Lovelace")


def test_a_booking_and_its_event_are_committed_together(
    services: Services, database: Database, account: int, calendar: Calendar, contact: Contact
) -> None:
    """Creating a booking stores it (ends_at from the type) and records `booking.created` in the outbox."""
    booking = services.bookings.create(account, BookingInput(contact.id, calendar.booking_type, TOMORROW))

    created = [e for e in database.outbox_events(account) if e.name == "booking.created"]
    assert (_get(database, account, booking.id), booking.ends_at) == (booking, TOMORROW + HOUR)
    assert [(e.payload["id"], e.payload["booking_date"], e.payload["start_time"]) for e in created] == [
        (booking.id, "2026-01-02", "09:00")
    ]


def test_a_refused_booking_writes_nothing(
    services: Services, database: Database, account: int, calendar: Calendar, contact: Contact
) -> None:
    """A clash is a 422 that stores neither a booking nor an event."""
    data = BookingInput(contact.id, calendar.booking_type, TOMORROW, resource_id=calendar.first)
    services.bookings.create(account, data)

    with pytest.raises(ValidationFailed):
        services.bookings.create(account, data)

    assert len(_found(database, account, BookingFilter())) == 1
    assert _booking_events(database, account) == ["booking.created"]


def test_a_cancel_stores_the_reason_and_records_both_events(
    services: Services, database: Database, account: int, calendar: Calendar, contact: Contact
) -> None:
    """Cancelling stores `cancelled_at` and the reason, and records `booking.updated` then `booking.cancelled`."""
    booking = services.bookings.create(account, BookingInput(contact.id, calendar.booking_type, TOMORROW))

    services.bookings.cancel(account, booking.id, "Ill")

    stored = _get(database, account, booking.id)
    assert stored is not None and (stored.status, stored.cancelled_at, stored.cancellation_reason) == (
        "cancelled",
        START,
        "Ill",
    )
    assert _booking_events(database, account) == ["booking.created", "booking.updated", "booking.cancelled"]


def test_a_cancelled_slot_can_be_booked_again(
    services: Services, database: Database, account: int, calendar: Calendar, contact: Contact
) -> None:
    """A cancelled booking holds nothing: the same slot on the same resource is accepted again."""
    data = BookingInput(contact.id, calendar.booking_type, TOMORROW, resource_id=calendar.first)
    services.bookings.cancel(account, services.bookings.create(account, data).id)

    again = services.bookings.create(account, data)

    assert _overlapping(database, account, calendar.first, TOMORROW, TOMORROW + HOUR) == [again.id]


def test_a_reschedule_moves_the_booking_and_keeps_its_length(
    services: Services, database: Database, account: int, calendar: Calendar, contact: Contact
) -> None:
    """`PUT` with a new `starts_at` stores the new range and records `booking.updated`."""
    booking = services.bookings.create(account, BookingInput(contact.id, calendar.booking_type, TOMORROW))

    services.bookings.update(account, booking.id, BookingPatch(starts_at=TOMORROW + 3 * HOUR))

    stored = _get(database, account, booking.id)
    assert stored is not None and (stored.starts_at, stored.ends_at) == (TOMORROW + 3 * HOUR, TOMORROW + 4 * HOUR)
    assert _booking_events(database, account) == ["booking.created", "booking.updated"]


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
