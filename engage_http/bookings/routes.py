"""Bookings (SPEC 3, 4): listing, booking, rescheduling, availability, and the status moves.

Moves (SPEC 3 shows only cancel; the rest are ours, `engage_core.bookings`)::

    pending    -> confirmed (POST /bookings/{id}/confirm) | cancelled
    confirmed  -> completed (POST /bookings/{id}/complete, once started) | cancelled
    completed, cancelled: final

A booking is created `confirmed` (SPEC 4's example) unless the request asks for `pending`. Both
hold their time: no two live bookings of one resource overlap, however many requests race.
"""

from __future__ import annotations

from engage_core.bookings import model as domain
from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.bookings.model import BOOKINGS
from engage_core.kernel.pagination import Page
from engage_http.bookings.schemas import (
    AvailabilityQuery,
    Booking,
    BookingCancel,
    BookingCreate,
    BookingFilters,
    BookingUpdate,
    DayAvailability,
)
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Bookings"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (working hours, a slot already taken, the past, a contact or type of the workspace, status moves)."""

_PLACING = (
    "The booking must not start in the past and must lie within the working hours of its resource (or of "
    "the workspace) in the workspace's timezone; a slot that overlaps a live booking of the same resource is a "
    "422 on `starts_at` naming the clash (ranges are half-open: a booking ending at 10:00 leaves 10:00 free)."
)


def index(call: Call[None, domain.BookingFilter]) -> Page[domain.Booking]:
    assert call.page is not None
    return call.services.bookings.find(call.account_id, call.query, call.page)


def store(call: Call[BookingInput, None]) -> domain.Booking:
    return call.services.bookings.create(call.account_id, call.body)


def show(call: Call[None, None]) -> domain.Booking:
    return call.services.bookings.get(call.account_id, call.path["id"])


def update(call: Call[BookingPatch, None]) -> domain.Booking:
    return call.services.bookings.update(call.account_id, call.path["id"], call.body)


def cancel(call: Call[BookingCancel, None]) -> domain.Booking:
    return call.services.bookings.cancel(call.account_id, call.path["id"], call.body.reason)


def confirm(call: Call[None, None]) -> domain.Booking:
    return call.services.bookings.confirm(call.account_id, call.path["id"])


def complete(call: Call[None, None]) -> domain.Booking:
    return call.services.bookings.complete(call.account_id, call.path["id"])


def availability(call: Call[None, AvailabilityQuery]) -> DayAvailability:
    query = call.query
    assert query.booking_type_id is not None
    day = call.services.bookings.availability(call.account_id, query.booking_type_id, query.day(), query.resource_id)
    return DayAvailability.from_domain(day)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/bookings/availability",
        availability,
        "List a day's slots",
        TAG,
        DayAvailability,
        message="Availability retrieved.",
        query=AvailabilityQuery,
        errors=RULES,
        description="The slots of the booking type's duration within the day's working hours, in the "
        "workspace's timezone: in each opening they start at the opening time and then every `duration_minutes`, "
        "and end by its close. A slot is `available` when it has not started and no live booking of its resource "
        "overlaps it; with no `resource_id`, every active resource's slots are merged and a slot is available "
        "when at least one resource is free. On daylight-saving days a start in the skipped hour is left out and "
        "the repeated hour is offered once. An unknown or inactive type or resource is a 422.",
    ),
    Operation(
        "GET",
        "/bookings",
        index,
        "List bookings",
        TAG,
        Booking,
        Shape.PAGE,
        message="Bookings retrieved.",
        query=BookingFilters,
        errors=RULES,
        page=BOOKINGS,
        description="By `starts_at`, then id. `from` and `to` bound `starts_at` (both included) and must "
        "carry a timezone; a timestamp without one, or `to` before `from`, is a 422.",
    ),
    Operation(
        "POST",
        "/bookings",
        store,
        "Book",
        TAG,
        Booking,
        status=201,
        message="Booking created.",
        body=BookingCreate,
        errors=RULES,
        description="`ends_at` is `starts_at` plus the type's `duration_minutes`. " + _PLACING + " With no "
        "`resource_id` and active resources in the workspace, the first free resource (lowest id) is taken; "
        "when none is free the 422 says so. Emits `booking.created`.",
    ),
    Operation("GET", "/bookings/{id:id}", show, "Get a booking", TAG, Booking),
    Operation(
        "PUT",
        "/bookings/{id:id}",
        update,
        "Update or reschedule a booking",
        TAG,
        Booking,
        message="Booking updated.",
        body=BookingUpdate,
        errors=RULES,
        description="A new `starts_at` reschedules a pending or confirmed booking, keeping its length and "
        "resource, under the same checks as booking it (the booking never clashes with itself). Emits "
        "`booking.updated` when anything changed.",
    ),
    Operation(
        "POST",
        "/bookings/{id:id}/cancel",
        cancel,
        "Cancel a booking",
        TAG,
        Booking,
        message="Booking cancelled.",
        body=BookingCancel,
        errors=RULES,
        body_optional=True,
        description="A pending or confirmed booking becomes cancelled and frees its time; `cancelled_at` and "
        "the optional `reason` (as `cancellation_reason`) are recorded. The body may be left out. A completed or "
        "cancelled booking is a 422. Emits `booking.updated` and `booking.cancelled`.",
    ),
    Operation(
        "POST",
        "/bookings/{id:id}/confirm",
        confirm,
        "Confirm a booking",
        TAG,
        Booking,
        message="Booking confirmed.",
        errors=RULES,
        description="A pending booking becomes confirmed; any other status is a 422. Emits `booking.updated`.",
    ),
    Operation(
        "POST",
        "/bookings/{id:id}/complete",
        complete,
        "Mark a booking completed",
        TAG,
        Booking,
        message="Booking completed.",
        errors=RULES,
        description="A confirmed booking that has started becomes completed (a pending one is confirmed "
        "first); any other status, or a booking not started yet, is a 422. Emits `booking.updated` and "
        "`booking.completed`.",
    ),
    feature="booking",
    write_lane=True,
)
