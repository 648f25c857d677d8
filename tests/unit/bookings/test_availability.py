"""Availability rules: the slot grid within working hours (daylight-saving days included), marking
slots against bookings and the clock, and merging several resources' slots."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest

from engage_core.bookings.availability import Slot, calendar_slots, merge, overlaps, slot_grid
from engage_core.bookings.working_hours import ALL_DAY, Opening

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
HOUR = timedelta(hours=1)


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def local_starts(slots: list[tuple[datetime, datetime]], zone: ZoneInfo) -> list[str]:
    return [start.astimezone(zone).strftime("%H:%M") for start, _ in slots]


def test_slots_step_by_the_duration_within_each_opening() -> None:
    """09:00-12:00 and 13:00-15:00 with 60 minutes: five slots, none in the break."""
    grid = slot_grid(date(2026, 1, 5), (Opening(540, 720), Opening(780, 900)), BERLIN, HOUR)
    assert local_starts(grid, BERLIN) == ["09:00", "10:00", "11:00", "13:00", "14:00"]


def test_a_slot_must_end_by_the_close() -> None:
    """09:00-11:00 with 45 minutes: 09:00 and 09:45; 10:30 would end after 11:00."""
    grid = slot_grid(date(2026, 1, 5), (Opening(540, 660),), BERLIN, timedelta(minutes=45))
    assert local_starts(grid, BERLIN) == ["09:00", "09:45"]


def test_every_slot_lasts_the_duration() -> None:
    """Each slot's end is its start plus the type's duration, in real time."""
    grid = slot_grid(date(2026, 3, 29), ALL_DAY, BERLIN, timedelta(minutes=90))
    assert all(end - start == timedelta(minutes=90) for start, end in grid)


@pytest.mark.parametrize(("zone", "day"), [(BERLIN, date(2026, 3, 29)), (NEW_YORK, date(2026, 3, 8))])
def test_a_23_hour_day_has_no_slot_in_the_skipped_hour(zone: ZoneInfo, day: date) -> None:
    """Spring forward: hourly slots all day are 23, and 02:00 is not among them."""
    grid = slot_grid(day, ALL_DAY, zone, HOUR)
    assert len(grid) == 23
    assert "02:00" not in local_starts(grid, zone)


@pytest.mark.parametrize(("zone", "day"), [(BERLIN, date(2026, 10, 25)), (NEW_YORK, date(2026, 11, 1))])
def test_a_25_hour_day_does_not_offer_the_repeated_hour_twice(zone: ZoneInfo, day: date) -> None:
    """Fall back: hourly slots all day are 24, each wall-clock start once (the repeated hour first)."""
    grid = slot_grid(day, ALL_DAY, zone, HOUR)
    starts = local_starts(grid, zone)
    assert len(grid) == 24
    assert len(set(starts)) == 24
    assert starts.count("01:00" if zone is NEW_YORK else "02:00") == 1


def test_the_repeated_hour_slot_is_its_first_occurrence() -> None:
    """Berlin autumn: the 02:00 slot starts at 02:00 CEST (00:00 UTC), and the next at 03:00 CET."""
    grid = slot_grid(date(2026, 10, 25), ALL_DAY, BERLIN, HOUR)
    assert grid[2] == (utc(2026, 10, 25, 0), utc(2026, 10, 25, 1))
    assert grid[3][0] == utc(2026, 10, 25, 2)


def test_the_slots_of_a_day_never_overlap() -> None:
    """90-minute slots on Berlin's spring day: the slot after the jump that would overlap is left out."""
    grid = slot_grid(date(2026, 3, 29), ALL_DAY, BERLIN, timedelta(minutes=90))
    assert all(before[1] <= after[0] for before, after in pairwise(grid))
    assert "03:00" not in local_starts(grid, BERLIN)


def test_a_slot_keeps_its_wall_clock_grid_after_the_jump() -> None:
    """New York spring: 30-minute slots from 00:00 continue at 03:00, 03:30 after 01:30."""
    grid = slot_grid(date(2026, 3, 8), (Opening(0, 240),), NEW_YORK, timedelta(minutes=30))
    assert local_starts(grid, NEW_YORK) == ["00:00", "00:30", "01:00", "01:30", "03:00", "03:30"]


def test_ranges_overlap_only_when_they_share_an_instant() -> None:
    """Half-open ranges: touching is not overlapping."""
    a = (utc(2026, 1, 5, 9), utc(2026, 1, 5, 10))
    assert not overlaps(a, (utc(2026, 1, 5, 10), utc(2026, 1, 5, 11)))
    assert overlaps(a, (utc(2026, 1, 5, 9, 59), utc(2026, 1, 5, 11)))


def test_a_booked_slot_is_not_available() -> None:
    """A live booking 10:30-11:00 takes the 10:00 and only the 10:00 slot."""
    grid = [(utc(2026, 1, 5, 9), utc(2026, 1, 5, 10)), (utc(2026, 1, 5, 10), utc(2026, 1, 5, 11))]
    slots = calendar_slots(grid, [(utc(2026, 1, 5, 10, 30), utc(2026, 1, 5, 11))], utc(2026, 1, 1))
    assert [s.available for s in slots] == [True, False]


def test_a_started_slot_is_not_available() -> None:
    """A slot that started before now is past; one starting exactly now is still offered."""
    grid = [(utc(2026, 1, 5, 9), utc(2026, 1, 5, 10)), (utc(2026, 1, 5, 10), utc(2026, 1, 5, 11))]
    slots = calendar_slots(grid, [], utc(2026, 1, 5, 10))
    assert [s.available for s in slots] == [False, True]


def test_merged_slots_are_available_when_any_resource_has_them() -> None:
    """Two resources: a slot busy on one and free on the other is available once."""
    nine, ten, eleven = utc(2026, 1, 5, 9), utc(2026, 1, 5, 10), utc(2026, 1, 5, 11)
    first = [Slot(nine, ten, False), Slot(ten, eleven, False)]
    second = [Slot(nine, ten, True), Slot(ten, eleven, False)]
    assert merge([first, second]) == (Slot(nine, ten, True), Slot(ten, eleven, False))


def test_merged_slots_are_in_time_order() -> None:
    """Different grids merge into one list sorted by start."""
    nine, half, ten = utc(2026, 1, 5, 9), utc(2026, 1, 5, 9, 30), utc(2026, 1, 5, 10)
    merged = merge([[Slot(half, ten, True)], [Slot(nine, half, True)]])
    assert [s.starts_at for s in merged] == [nine, half]
