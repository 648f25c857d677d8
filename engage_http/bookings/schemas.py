"""Request and response bodies of bookings and availability (SPEC 2, Booking and slot; SPEC 3,
Booking; SPEC 4, Bookings).

Moments in requests (`starts_at`, and the `from` and `to` filters) are ISO 8601 timestamps with a
timezone: `2026-03-27T10:00:00Z` or `2026-03-27T11:00:00+01:00`. A timestamp without one is a 422,
because the API cannot guess which wall clock it was read from.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

import attrs

from engage_core.bookings import availability
from engage_core.bookings import model as domain
from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Id

BookingStatus = Literal["pending", "confirmed", "cancelled", "completed"]
CreateStatus = Literal["confirmed", "pending"]

Notes = Annotated[str, Text(max_length=domain.NOTES_MAX)]
Reason = Annotated[str, Text(max_length=domain.REASON_MAX)]
Timestamp = Annotated[
    str,
    Text(format="date-time"),
    Doc(
        description="An ISO 8601 timestamp with a timezone (`Z` or an offset such as `+01:00`).",
        example="2026-03-27T10:00:00Z",
    ),
]

DATE_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
Day = Annotated[
    str,
    Text(pattern=DATE_PATTERN, format="date", message="The {field} must be a date in the form YYYY-MM-DD."),
    Doc(example="2026-03-27"),
]


def parse_timestamp(field: str, text: str) -> dt.datetime:
    """An aware datetime from ISO 8601 text; ValidationFailed on `field` when it is not one, has no
    timezone, or lies beyond the range of a UTC timestamp."""
    try:
        moment = dt.datetime.fromisoformat(text.strip().upper())  # RFC 3339 allows `t` and `z`
    except ValueError:
        raise ValidationFailed.on(
            field, f"The {field} must be an ISO 8601 timestamp such as 2026-03-27T10:00:00Z."
        ) from None
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValidationFailed.on(
            field, f"The {field} must include a timezone: Z or an offset such as +01:00 (2026-03-27T10:00:00Z)."
        )
    try:
        moment.astimezone(dt.UTC)
    except OverflowError:
        raise ValidationFailed.on(field, f"The {field} is out of range.") from None
    return moment


def parse_day(field: str, text: str) -> dt.date:
    """A calendar date; the pattern lets `2026-02-30` through, the calendar does not."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValidationFailed.on(field, f"The {field} is not a valid date.") from None


def _parse_all(**fields: tuple[str, str | None]) -> dict[str, dt.datetime | None]:
    """Several timestamps at once, every bad one reported (`name=(field, text)`)."""
    errors: dict[str, list[str]] = {}
    parsed: dict[str, dt.datetime | None] = {}
    for name, (field, text) in fields.items():
        try:
            parsed[name] = None if text is None else parse_timestamp(field, text)
        except ValidationFailed as exc:
            errors.update(exc.errors)
    if errors:
        raise ValidationFailed(errors)
    return parsed


# -- requests --------------------------------------------------------------------------------------


def _booking_input(body: BookingCreate) -> BookingInput:
    # The wire's `starts_at` is text; the core takes an aware datetime.
    return BookingInput(
        contact_id=body.contact_id,
        booking_type_id=body.booking_type_id,
        starts_at=parse_timestamp("starts_at", body.starts_at),
        resource_id=body.resource_id,
        notes=body.notes,
        status=body.status,
    )


@structures_into(BookingInput, _booking_input)
@attrs.frozen
class BookingCreate:
    """A new booking. It lasts the booking type's `duration_minutes` from `starts_at`."""

    contact_id: Id
    booking_type_id: Id
    starts_at: Timestamp
    resource_id: Id | None = attrs.field(
        default=None,
        metadata={
            "description": "Left out: when the workspace has active resources, the first free one (lowest id) "
            "whose working hours cover the booking; otherwise the booking takes no resource."
        },
    )
    notes: Notes | None = None
    status: CreateStatus = attrs.field(
        default="confirmed",
        metadata={"description": "`pending` for a booking that awaits confirmation (`POST /bookings/{id}/confirm`)."},
    )


def _booking_patch(body: BookingUpdate) -> BookingPatch:
    # The wire's `starts_at` is text; the core takes an aware datetime.
    starts_at = UNSET if body.starts_at is UNSET else parse_timestamp("starts_at", body.starts_at)
    return BookingPatch(starts_at=starts_at, notes=body.notes)


@structures_into(BookingPatch, _booking_patch)
@attrs.frozen
class BookingUpdate:
    """Any subset of the fields. A new `starts_at` reschedules the booking (same length, same resource)."""

    starts_at: Timestamp | Unset = UNSET
    notes: Notes | Unset | None = UNSET


@attrs.frozen
class BookingCancel:
    """Why the booking is cancelled (optional). The body itself may be left out."""

    reason: Reason | None = None


def _booking_filter(query: BookingFilters) -> domain.BookingFilter:
    # The wire's bounds are text, named `from` and `to`; the core takes aware datetimes.
    moments = _parse_all(starts_from=("from", query.starts_from), starts_to=("to", query.starts_to))
    return domain.BookingFilter(
        status=query.status,
        contact_id=query.contact_id,
        starts_from=moments["starts_from"],
        starts_to=moments["starts_to"],
    )


@structures_into(domain.BookingFilter, _booking_filter)
@attrs.frozen
class BookingFilters:
    """Query filters of `GET /bookings`."""

    status: BookingStatus | None = None
    contact_id: Id | None = None
    starts_from: Timestamp | None = attrs.field(
        default=None,
        metadata={
            "query_name": "from",
            "description": "Bookings starting at or after this moment (ISO 8601, with a timezone).",
        },
    )
    starts_to: Timestamp | None = attrs.field(
        default=None,
        metadata={
            "query_name": "to",
            "description": "Bookings starting at or before this moment (ISO 8601, with a timezone).",
        },
    )


@attrs.frozen
class AvailabilityQuery:
    """Query of `GET /bookings/availability`."""

    booking_type_id: Id | None
    date: Day | None = attrs.field(
        metadata={"description": "A day in the workspace's timezone (`GET /bookings/working-hours`), YYYY-MM-DD."}
    )
    resource_id: Id | None = attrs.field(
        default=None,
        metadata={"description": "One resource's slots. Left out: every active resource's slots, merged."},
    )

    def day(self) -> dt.date:
        assert self.date is not None
        return parse_day("date", self.date)


# -- responses -------------------------------------------------------------------------------------


@renders(domain.Booking)
@attrs.frozen
class Booking:
    """A booking (SPEC 2). `cancelled_at` and `cancellation_reason` are additions to the SPEC fields."""

    id: int
    contact_id: int
    booking_type_id: int
    resource_id: int | None
    title: str = attrs.field(metadata={"description": "`<booking type> with <contact name>`."})
    starts_at: dt.datetime
    ends_at: dt.datetime = attrs.field(metadata={"description": "`starts_at` plus the type's duration."})
    status: BookingStatus
    notes: str | None
    cancelled_at: dt.datetime | None
    cancellation_reason: str | None
    created_at: dt.datetime
    updated_at: dt.datetime


@attrs.frozen
class Slot:
    """A slot of the booking type's length (SPEC 2)."""

    starts_at: dt.datetime
    ends_at: dt.datetime
    available: bool = attrs.field(
        metadata={"description": "Not started yet, and free on the resource (or on at least one resource)."}
    )


@attrs.frozen
class DayAvailability:
    """A day's slots in time order."""

    date: str = attrs.field(metadata={"description": "The day asked for (YYYY-MM-DD, the workspace's timezone)."})
    slots: tuple[Slot, ...]

    @classmethod
    def from_domain(cls, day: availability.DayAvailability) -> DayAvailability:
        # The wire writes the day as text where the core keeps a date, so the slots are copied here too.
        return cls(date=day.date.isoformat(), slots=tuple(Slot(s.starts_at, s.ends_at, s.available) for s in day.slots))


__all__ = [
    "AvailabilityQuery",
    "Booking",
    "BookingCancel",
    "BookingCreate",
    "BookingFilters",
    "BookingUpdate",
    "DayAvailability",
    "Slot",
    "parse_day",
    "parse_timestamp",
]
