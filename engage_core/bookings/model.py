"""Bookings: the state machine, rescheduling, and event payloads (SPEC 2, 3, 4, 6).

States and moves. SPEC 3 shows only the cancel endpoint; the other moves are designed here, and
these are the only ones there are::

    pending    -> confirmed | cancelled
    confirmed  -> completed | cancelled
    completed, cancelled: terminal, no outgoing move

- A new booking is `confirmed` (SPEC 4's response example): its slot is checked and held when it
  is made. A caller that needs an approval step (an AI agent proposing a time) creates it
  `pending` and confirms it later; a pending booking holds its slot too.
- `confirm`: pending -> confirmed.
- `complete`: confirmed -> completed, once the booking has started (`starts_at <= now`): it
  records that an agreed appointment took place. A pending booking was never agreed, so it is
  confirmed first.
- `cancel` (`POST /bookings/{id}/cancel`): from pending or confirmed, at any time (a no-show
  included); records `cancelled_at` and an optional reason, and frees the slot.
- `reschedule` (`PUT /bookings/{id}` with `starts_at`): live bookings only (pending, confirmed),
  never into the past; the booking keeps its length and its resource. Working hours and overlap
  are checked by the service, under the resource lock.

Every other move raises ValidationFailed on `status` naming both states.

Live bookings (pending, confirmed) hold their time: no two live bookings of one calendar (a
resource, or the workspace when it has no resources) overlap, ranges being half-open
`[starts_at, ends_at)`. Cancelled and completed bookings hold nothing.

Events (`booking_events`), like orders: a new booking emits `booking.created`; every change
(reschedule, notes, status move) emits `booking.updated`, followed by `booking.cancelled` or
`booking.completed` when the status moved there; a request that changes nothing emits none.
Payloads carry SPEC 6's fields: the date and times (`booking_date`, `start_time`, `end_time`) in
the workspace's timezone, the customer fields from the contact as it is now, `booking_resource_id`
(the resource), and `guest_count` null (the API takes no guest count; null says unknown).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import attrs

from engage_core.contacts.model import Contact
from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageLimits
from engage_core.kernel.validation import optional_text

BOOKING_STATUSES: tuple[str, ...] = ("pending", "confirmed", "cancelled", "completed")
TRANSITIONS: Mapping[str, tuple[str, ...]] = {
    "pending": ("confirmed", "cancelled"),
    "confirmed": ("completed", "cancelled"),
    "completed": (),
    "cancelled": (),
}
"""Every state's outgoing moves (see the module docstring)."""
LIVE = frozenset({"pending", "confirmed"})
"""States that hold their time and can be rescheduled."""
TERMINAL = frozenset(s for s, moves in TRANSITIONS.items() if not moves)
CREATE_STATUSES: tuple[str, ...] = ("confirmed", "pending")
"""States a booking can be created in; the first is the default."""

NOTES_MAX = 10_000
REASON_MAX = 1000
TITLE_MAX = 255

BOOKINGS = PageLimits(default=15)
"""`GET /bookings`: SPEC 8 names neither default nor maximum; 15 and 100 like contacts and orders."""


@attrs.frozen
class Booking:
    """SPEC 2 fields, plus `cancelled_at` and `cancellation_reason` for SPEC 6's payloads."""

    id: int
    contact_id: int
    booking_type_id: int
    resource_id: int | None
    title: str
    starts_at: datetime
    ends_at: datetime
    status: str
    notes: str | None
    created_at: datetime
    updated_at: datetime
    cancelled_at: datetime | None = None
    cancellation_reason: str | None = None

    @property
    def is_live(self) -> bool:
        return self.status in LIVE

    def event_payload(self, zone: ZoneInfo, customer: Contact | None) -> Mapping[str, Any]:
        """`booking.created`, `booking.updated` and `booking.completed` data (SPEC 6), and the SPEC 2
        fields (`resource_id`, `title`, `starts_at`, `ends_at`) beside them."""
        starts, ends = self.starts_at.astimezone(zone), self.ends_at.astimezone(zone)
        return {
            "id": self.id,
            "status": self.status,
            "customer_name": None if customer is None else customer.name,
            "customer_phone": None if customer is None else customer.phone,
            "customer_email": None if customer is None else customer.email,
            "booking_date": starts.date().isoformat(),
            "start_time": starts.strftime("%H:%M"),
            "end_time": ends.strftime("%H:%M"),
            "timezone": zone.key,
            "guest_count": None,
            "notes": self.notes,
            "title": self.title,
            "booking_type_id": self.booking_type_id,
            "booking_resource_id": self.resource_id,
            "resource_id": self.resource_id,
            "contact_id": self.contact_id,
            "starts_at": format_timestamp(self.starts_at),
            "ends_at": format_timestamp(self.ends_at),
            "cancelled_at": format_optional(self.cancelled_at),
            "cancellation_reason": self.cancellation_reason,
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }

    def cancelled_payload(self, zone: ZoneInfo, customer: Contact | None) -> Mapping[str, Any]:
        """`booking.cancelled` data (SPEC 6's shorter list)."""
        full = self.event_payload(zone, customer)
        keep = (
            "id", "status", "customer_name", "customer_phone", "booking_date", "start_time", "cancelled_at",
            "cancellation_reason", "created_at", "updated_at",
        )  # fmt: skip
        return {name: full[name] for name in keep}


@attrs.frozen
class BookingDraft:
    """A checked new booking, before it has an id."""

    contact_id: int
    booking_type_id: int
    resource_id: int | None
    title: str
    starts_at: datetime
    ends_at: datetime
    status: str = "confirmed"
    notes: str | None = None


@attrs.frozen
class BookingFilter:
    """Filters of `GET /bookings`. `starts_from` and `starts_to` bound `starts_at`, both inclusive."""

    status: str | None = None
    contact_id: int | None = None
    starts_from: datetime | None = None
    starts_to: datetime | None = None

    def matches(self, booking: Booking) -> bool:
        """The reference semantics of the filter (the in-memory store uses it)."""
        return (
            (self.status is None or booking.status == self.status)
            and (self.contact_id is None or booking.contact_id == self.contact_id)
            and (self.starts_from is None or booking.starts_at >= self.starts_from)
            and (self.starts_to is None or booking.starts_at <= self.starts_to)
        )


def booking_title(type_name: str, customer_name: str) -> str:
    """`Consultation with Ada Lovelace`, cut to `TITLE_MAX` characters."""
    return f"{type_name} with {customer_name}"[:TITLE_MAX]


# -- the state machine -----------------------------------------------------------------------------


def check_move(current: str, to: str) -> None:
    """Raise ValidationFailed on `status` unless `current -> to` is a move of `TRANSITIONS`."""
    if to not in BOOKING_STATUSES:
        raise ValidationFailed.on("status", "The status must be one of: " + ", ".join(BOOKING_STATUSES) + ".")
    allowed = TRANSITIONS[current]
    if to in allowed:
        return
    if not allowed:
        raise ValidationFailed.on("status", f"A booking cannot move from {current} to {to}: {current} is final.")
    raise ValidationFailed.on(
        "status",
        f"A booking cannot move from {current} to {to}; from {current} it can move to " + " or ".join(allowed) + ".",
    )


def confirm(booking: Booking, now: datetime) -> Booking:
    check_move(booking.status, "confirmed")
    return attrs.evolve(booking, status="confirmed", updated_at=now)


def complete(booking: Booking, now: datetime) -> Booking:
    check_move(booking.status, "completed")
    if now < booking.starts_at:
        raise ValidationFailed.on(
            "status",
            "A booking can be completed once it has started; this one starts at "
            f"{format_timestamp(booking.starts_at)}.",
        )
    return attrs.evolve(booking, status="completed", updated_at=now)


def cancel(booking: Booking, now: datetime, reason: str | None = None) -> Booking:
    check_move(booking.status, "cancelled")
    reason = optional_text("reason", reason, max_length=REASON_MAX)
    return attrs.evolve(booking, status="cancelled", cancelled_at=now, cancellation_reason=reason, updated_at=now)


def reschedule(booking: Booking, starts_at: datetime, now: datetime) -> Booking:
    """The booking moved to `starts_at`, keeping its length. Live bookings only, never into the
    past. Working hours and overlap are the caller's to check."""
    if not booking.is_live:
        raise ValidationFailed.on(
            "starts_at", f"A {booking.status} booking cannot be rescheduled; only pending and confirmed ones can."
        )
    check_not_past(starts_at, now)
    return attrs.evolve(
        booking, starts_at=starts_at, ends_at=starts_at + (booking.ends_at - booking.starts_at), updated_at=now
    )


def check_not_past(starts_at: datetime, now: datetime) -> None:
    if starts_at < now:
        raise ValidationFailed.on("starts_at", "A booking cannot start in the past.")


# -- events ----------------------------------------------------------------------------------------


def booking_events(
    before: Booking | None, after: Booking, now: datetime, zone: ZoneInfo, customer: Contact | None
) -> list[DomainEvent]:
    """The events of one change: `before` None is a creation; `after == before` is no change."""
    if before is None:
        return [DomainEvent("booking.created", after.event_payload(zone, customer), now)]
    if after == before:
        return []
    events = [DomainEvent("booking.updated", after.event_payload(zone, customer), now)]
    if after.status != before.status and after.status == "cancelled":
        events.append(DomainEvent("booking.cancelled", after.cancelled_payload(zone, customer), now))
    elif after.status != before.status and after.status == "completed":
        events.append(DomainEvent("booking.completed", after.event_payload(zone, customer), now))
    return events
