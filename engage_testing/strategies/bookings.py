"""Booking types, booking requests and working hours (SPEC 2 Booking; SPEC 4 Bookings)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hypothesis import strategies as st

from engage_core.bookings.booking_service import BookingInput
from engage_core.bookings.model import CREATE_STATUSES, NOTES_MAX
from engage_core.bookings.setup import DURATION_MAX, BookingTypeInput
from engage_core.bookings.working_hours import (
    WEEKDAYS,
    ExceptionInput,
    OpeningInput,
    WorkingHoursInput,
    clock_text,
)

from ._text import blanks, broken, field, optional_texts, texts, too_long

TIMEZONES = ("UTC", "Europe/Berlin", "Asia/Riyadh", "America/New_York", "Asia/Kolkata", "Pacific/Auckland")
"""IANA timezones with and without daylight saving time, on both sides of UTC."""


def booking_type_inputs(*, invalid: bool = False) -> st.SearchStrategy[BookingTypeInput]:
    """`POST /booking-types` bodies (15 minutes to 4 hours); `invalid=True` draws a blank or long
    name or a duration out of range."""
    valid = st.builds(
        BookingTypeInput,
        name=texts(255),
        duration_minutes=st.integers(1, 16).map(lambda n: n * 15),
        description=optional_texts(1000),
        is_active=st.just(True),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("name", blanks() | too_long(255)),
        field("duration_minutes", st.sampled_from([0, -15, DURATION_MAX + 1])),
    )


@st.composite
def _valid_booking(
    draw: st.DrawFn,
    contact_ids: Sequence[int],
    booking_type_ids: Sequence[int],
    after: datetime,
    days: int,
    timezone: str,
) -> BookingInput:
    zone = ZoneInfo(timezone)
    first = after.astimezone(zone).date() + timedelta(days=1)
    day = first + timedelta(days=draw(st.integers(0, days - 1)))
    # 00:00 to 19:45 local time: a booking type of up to four hours ends the day it starts.
    starts_at = datetime.combine(day, time(), zone) + timedelta(minutes=15 * draw(st.integers(0, 79)))
    return BookingInput(
        contact_id=draw(st.sampled_from(list(contact_ids))),
        booking_type_id=draw(st.sampled_from(list(booking_type_ids))),
        starts_at=starts_at.astimezone(UTC),
        notes=draw(optional_texts(NOTES_MAX)),
        status=draw(st.sampled_from(CREATE_STATUSES)),
    )


def booking_requests(
    contact_ids: Sequence[int],
    booking_type_ids: Sequence[int],
    *,
    after: datetime,
    days: int = 30,
    timezone: str = "UTC",
    invalid: bool = False,
) -> st.SearchStrategy[BookingInput]:
    """`POST /bookings` bodies for existing contacts and booking types (of up to four hours), starting
    on a quarter hour between 00:00 and 19:45 in the workspace's `timezone`, on one of the `days`
    days after `after` (the clock's now). Whether one is accepted also depends on the working hours
    and on the bookings already made (a calendar takes one live booking at a time); under the
    default hours (always open) the first always is. `invalid=True` draws a request refused whatever
    the calendar: ids below 1, a start without a timezone or in the past, too long notes, an unknown
    status."""
    valid = _valid_booking(contact_ids, booking_type_ids, after, days, timezone)
    if not invalid:
        return valid
    return broken(
        valid,
        field("contact_id", st.sampled_from([0, -1])),
        field("booking_type_id", st.sampled_from([0, -1])),
        field("starts_at", st.just(after.replace(tzinfo=None))),
        field("starts_at", st.integers(1, 10_000).map(lambda minutes: after - timedelta(minutes=minutes))),
        field("notes", too_long(NOTES_MAX)),
        field("status", st.sampled_from(["completed", "cancelled", "booked"])),
    )


def _openings(max_openings: int = 3) -> st.SearchStrategy[list[OpeningInput]]:
    """Up to `max_openings` separate openings of one day: distinct quarter-hour marks, paired in order,
    so no two touch or overlap."""
    marks = st.lists(st.integers(0, 96), max_size=2 * max_openings, unique=True).map(sorted)
    return marks.map(
        lambda ms: [OpeningInput(clock_text(15 * ms[i]), clock_text(15 * ms[i + 1])) for i in range(0, len(ms) - 1, 2)]
    )


_days = st.dates(min_value=date(2026, 1, 1), max_value=date(2030, 12, 31))


@st.composite
def _valid_hours(draw: st.DrawFn) -> WorkingHoursInput:
    weekly = draw(st.dictionaries(st.sampled_from(WEEKDAYS), _openings(), max_size=7))
    dates = draw(st.lists(_days, max_size=3, unique=True))
    exceptions = [ExceptionInput(day.isoformat(), draw(_openings(2))) for day in dates]
    return WorkingHoursInput(timezone=draw(st.sampled_from(TIMEZONES)), weekly=weekly, exceptions=exceptions)


def working_hours_inputs(*, invalid: bool = False) -> st.SearchStrategy[WorkingHoursInput]:
    """`PUT /booking-settings/working-hours` bodies: a timezone, weekly openings (a day left out is
    closed) and dated exceptions. `invalid=True` draws an unknown timezone or weekday, a time that
    is not HH:MM, an opening that ends before it opens, overlapping openings, a malformed or repeated
    exception date."""
    valid = _valid_hours()
    if not invalid:
        return valid
    day = st.sampled_from(WEEKDAYS)
    return broken(
        valid,
        field("timezone", st.sampled_from(["Mars/Base", "", "../etc/passwd", "GMT+25"])),
        field("weekly", st.just({"funday": [OpeningInput("09:00", "17:00")]})),
        field("weekly", day.map(lambda d: {d: [OpeningInput("25:00", "26:00")]})),
        field("weekly", day.map(lambda d: {d: [OpeningInput("17:00", "09:00")]})),
        field("weekly", day.map(lambda d: {d: [OpeningInput("09:00", "12:00"), OpeningInput("11:00", "13:00")]})),
        field("exceptions", st.just([ExceptionInput("2026-02-30")])),
        field("exceptions", _days.map(lambda d: [ExceptionInput(d.isoformat()), ExceptionInput(d.isoformat())])),
    )
