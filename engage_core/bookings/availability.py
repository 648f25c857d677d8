"""Availability: the day's slots of a booking type, and which of them can still be booked.

Slots (`slot_grid`) keep the wall-clock grid of ordinary days: in each opening they start at
`opens`, `opens + duration`, `opens + 2 * duration`, ... (the step is the type's duration) and last
`duration` minutes of real time. On a daylight-saving day:

- a start in a skipped hour does not exist, so that slot is left out (a 23-hour day has fewer);
- a start in a repeated hour is its first occurrence, and the grid is not run again over the
  second one, so the repeated hour is never offered twice (a 25-hour day has no extra slots);
- a slot that would overlap the one before it (only possible just after a skipped hour, when the
  duration does not divide it) is left out, so the slots of one calendar never overlap;
- a slot must end by the opening's close (`working_hours.wall_instant`).

A slot is `available` when it has not started (`starts_at >= now`) and no live booking of its
calendar overlaps it, overlap being of half-open ranges: a booking ending at 10:00 does not touch a
slot starting at 10:00. A calendar is one resource, or, in a workspace without active resources,
the workspace itself (bookings without a resource, one at a time). With no resource named and
resources in use, every active resource's slots are merged (`merge`): a slot is offered once per
distinct `[starts_at, ends_at)`, available when at least one resource has it available.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import attrs

from engage_core.bookings.working_hours import Day, exists, wall_instant

TimeRange = tuple[datetime, datetime]
"""A half-open range of UTC instants, `[start, end)`."""


@attrs.frozen
class Slot:
    starts_at: datetime
    ends_at: datetime
    available: bool


@attrs.frozen
class DayAvailability:
    """`GET /bookings/availability`: the local date and its slots in time order."""

    date: date
    slots: tuple[Slot, ...]


def overlaps(a: TimeRange, b: TimeRange) -> bool:
    """Whether two half-open ranges share an instant."""
    return a[0] < b[1] and b[0] < a[1]


def slot_grid(day: date, openings: Day, zone: ZoneInfo, duration: timedelta) -> list[TimeRange]:
    """The slots of `day` within `openings`, in time order (see the module docstring)."""
    step = int(duration.total_seconds() // 60)
    slots: list[TimeRange] = []
    for opening in openings:
        closes = wall_instant(day, opening.closes, zone)
        for minute in range(opening.opens, opening.closes, step):
            if not exists(day, minute, zone):
                continue
            start = wall_instant(day, minute, zone)
            end = start + duration
            if end > closes:
                break
            if slots and start < slots[-1][1]:
                continue
            slots.append((start, end))
    return slots


def calendar_slots(grid: Iterable[TimeRange], busy: Sequence[TimeRange], now: datetime) -> list[Slot]:
    """The grid of one calendar marked against its live bookings (`busy`) and the clock."""
    return [
        Slot(start, end, start >= now and not any(overlaps((start, end), booked) for booked in busy))
        for start, end in grid
    ]


def merge(calendars: Iterable[Sequence[Slot]]) -> tuple[Slot, ...]:
    """Several calendars' slots as one list: one slot per distinct range, in time order, available
    when any calendar has it available."""
    merged: dict[TimeRange, bool] = {}
    for slots in calendars:
        for slot in slots:
            key = (slot.starts_at, slot.ends_at)
            merged[key] = merged.get(key, False) or slot.available
    return tuple(Slot(start, end, available) for (start, end), available in sorted(merged.items()))
