"""Bookings made at once by many threads, each through its own unit of work of the real factory.

On PostgreSQL the transactions really overlap: the calendar's advisory lock (`lock_resource`) is what
keeps two of them from both finding a slot free and both taking it. On SQLite the writers take
turns (the group commit's lock within the process, `BEGIN IMMEDIATE` across processes), and every
turn sees what the turns before it committed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import timedelta

import pytest

from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.bookings.model import Booking, BookingFilter
from engage_core.bookings.setup import BookingTypeInput, ResourceInput
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_sql import Database

from .concurrency import at_once
from .conftest import START

THREADS = 16
SLOT = START.replace(hour=10) + timedelta(days=1)


def _outcome(result: object) -> str:
    """`booked`, the error keys of a ValidationFailed, or the type of any other error."""
    if isinstance(result, ValidationFailed):
        return "refused " + ",".join(sorted(result.errors))
    if isinstance(result, BaseException):
        return f"error {type(result).__name__}: {result}"
    return "booked"


def _live(services: Services, account: int) -> list[Booking]:
    found = services.bookings.find(account, BookingFilter(), PageRequest(per_page=100)).items
    return [b for b in found if b.is_live]


@pytest.fixture
def contact(make_contact: Callable[..., Contact]) -> Contact:
    return make_contact(name="Ada Lovelace")


@pytest.fixture
def booking_type(services: Services, account: int) -> int:
    return services.booking_setup.create_type(account, BookingTypeInput("Consultation", 60)).id


def _resources(services: Services, account: int, count: int) -> list[int]:
    return [
        services.booking_setup.create_resource(account, ResourceInput(f"Room {n}", "room")).id for n in range(count)
    ]


def test_racing_bookings_of_one_resource_make_one(
    services: Services, database: Database, account: int, contact: Contact, booking_type: int
) -> None:
    """Of many concurrent bookings of the same slot on one resource, one is made, with one
    `booking.created` in the outbox; the others are refused and leave nothing."""
    [resource] = _resources(services, account, 1)
    data = BookingInput(contact.id, booking_type, SLOT, resource_id=resource)

    results = at_once(THREADS, lambda n: services.bookings.create(account, data))

    assert Counter(_outcome(r) for r in results) == {"booked": 1, "refused starts_at": THREADS - 1}
    assert [(b.resource_id, b.starts_at) for b in _live(services, account)] == [(resource, SLOT)]
    assert [e.name for e in database.outbox_events(account) if e.name.startswith("booking.")] == ["booking.created"]


def test_racing_bookings_without_a_resource_fill_each_resource_once(
    services: Services, account: int, contact: Contact, booking_type: int
) -> None:
    """With no `resource_id` and three resources, concurrent bookings of one slot fill exactly three,
    one per resource."""
    resources = _resources(services, account, 3)
    data = BookingInput(contact.id, booking_type, SLOT)

    results = at_once(THREADS, lambda n: services.bookings.create(account, data))

    assert Counter(_outcome(r) for r in results) == {"booked": 3, "refused starts_at": THREADS - 3}
    assert sorted(b.resource_id for b in _live(services, account)) == resources


def test_racing_bookings_of_a_workspace_without_resources_make_one(
    services: Services, account: int, contact: Contact, booking_type: int
) -> None:
    """Without resources the workspace is one calendar: of concurrent bookings of one slot, one is made."""
    data = BookingInput(contact.id, booking_type, SLOT)

    results = at_once(THREADS, lambda n: services.bookings.create(account, data))

    assert Counter(_outcome(r) for r in results) == {"booked": 1, "refused starts_at": THREADS - 1}
    assert [b.resource_id for b in _live(services, account)] == [None]


def test_racing_reschedules_into_one_slot_leave_one_there(
    services: Services, account: int, contact: Contact, booking_type: int
) -> None:
    """Bookings of one resource rescheduled at once into the same slot: one moves, the others stay put."""
    [resource] = _resources(services, account, 1)
    booked = [
        services.bookings.create(
            account, BookingInput(contact.id, booking_type, SLOT + timedelta(hours=n + 1), resource_id=resource)
        )
        for n in range(THREADS)
    ]

    results = at_once(THREADS, lambda n: services.bookings.update(account, booked[n].id, BookingPatch(starts_at=SLOT)))

    assert Counter(_outcome(r) for r in results) == {"booked": 1, "refused starts_at": THREADS - 1}
    assert sum(b.starts_at == SLOT for b in _live(services, account)) == 1


def test_racing_cancel_and_reschedule_never_revive_the_booking(
    services: Services, account: int, contact: Contact, booking_type: int
) -> None:
    """A reschedule racing a cancellation of the same booking never leaves it live: the one that
    comes second reads the other's result."""
    [resource] = _resources(services, account, 1)
    booking = services.bookings.create(account, BookingInput(contact.id, booking_type, SLOT, resource_id=resource))

    def work(n: int) -> Booking:
        if n % 2:
            return services.bookings.cancel(account, booking.id)
        return services.bookings.update(account, booking.id, BookingPatch(starts_at=SLOT + timedelta(hours=n + 1)))

    results = at_once(THREADS, work)

    assert services.bookings.get(account, booking.id).status == "cancelled"
    assert not [r for r in results if isinstance(r, BaseException) and not isinstance(r, ValidationFailed)]
