"""Working hours: parsing schedules and timezones, the layering of resource overrides, and turning
wall-clock times into instants across daylight-saving changes."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from engage_core.bookings.working_hours import (
    ALL_DAY,
    ALWAYS_OPEN,
    DEFAULT_HOURS,
    ExceptionInput,
    Opening,
    OpeningInput,
    Schedule,
    ScheduleInput,
    WorkingHoursInput,
    covers,
    day_bounds,
    describe_day,
    exists,
    open_ranges,
    openings_on,
    parse_clock,
    parse_schedule,
    parse_timezone,
    parse_working_hours,
    wall_instant,
)
from engage_core.kernel.errors import ValidationFailed

BERLIN = ZoneInfo("Europe/Berlin")
NEW_YORK = ZoneInfo("America/New_York")
BERLIN_SPRING = date(2026, 3, 29)
"""Clocks go from 02:00 to 03:00 (CET to CEST)."""
BERLIN_AUTUMN = date(2026, 10, 25)
"""Clocks go from 03:00 back to 02:00 (CEST to CET)."""
NEW_YORK_SPRING = date(2026, 3, 8)
NEW_YORK_AUTUMN = date(2026, 11, 1)


def hm(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def errors_of(data: ScheduleInput) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        parse_schedule(data)
    return caught.value.errors


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


# -- parsing ---------------------------------------------------------------------------------------


def test_a_day_with_a_break_is_two_sorted_openings() -> None:
    """Openings given in any order are stored sorted; the gap between them is the break."""
    schedule = parse_schedule(
        ScheduleInput(weekly={"monday": [OpeningInput("13:00", "17:00"), OpeningInput("09:00", "12:00")]})
    )
    assert schedule.weekly[0] == (Opening(hm("09:00"), hm("12:00")), Opening(hm("13:00"), hm("17:00")))


def test_a_weekday_left_out_is_closed() -> None:
    """Only Monday given: every other weekday has no openings."""
    schedule = parse_schedule(ScheduleInput(weekly={"monday": [OpeningInput("09:00", "17:00")]}))
    assert schedule.weekly[1:] == ((),) * 6


def test_an_opening_may_close_at_midnight() -> None:
    """`24:00` closes at the end of the day."""
    assert parse_clock("closes", "24:00", allow_midnight_end=True) == 1440


@pytest.mark.parametrize("text", ["24:00", "9:00", "12:60", "25:00", "noon", ""])
def test_an_opening_time_must_be_a_time_of_day(text: str) -> None:
    """Opens accepts HH:MM from 00:00 to 23:59 only."""
    with pytest.raises(ValidationFailed):
        parse_clock("opens", text, allow_midnight_end=False)


def test_an_opening_must_close_after_it_opens() -> None:
    """17:00-09:00 is refused on its closes field."""
    errors = errors_of(ScheduleInput(weekly={"friday": [OpeningInput("17:00", "09:00")]}))
    assert list(errors) == ["weekly.friday.0.closes"]


@pytest.mark.parametrize("second", [OpeningInput("11:00", "14:00"), OpeningInput("12:00", "14:00")])
def test_openings_may_not_overlap_or_touch(second: OpeningInput) -> None:
    """Overlapping or touching openings are refused: they are one opening."""
    errors = errors_of(ScheduleInput(weekly={"monday": [OpeningInput("09:00", "12:00"), second]}))
    assert "one opening" in errors["weekly.monday.1"][0]


def test_an_unknown_weekday_is_refused() -> None:
    """Weekday names are the English lower-case ones."""
    assert "weekly" in errors_of(ScheduleInput(weekly={"funday": [OpeningInput("09:00", "10:00")]}))


def test_an_exception_date_may_be_given_once() -> None:
    """Two exceptions for one date are refused on the second."""
    errors = errors_of(ScheduleInput(exceptions=[ExceptionInput("2026-12-25"), ExceptionInput("2026-12-25")]))
    assert list(errors) == ["exceptions.1.date"]


def test_an_exception_date_must_be_a_date() -> None:
    """Exception dates are written YYYY-MM-DD."""
    assert list(errors_of(ScheduleInput(exceptions=[ExceptionInput("25/12/2026")]))) == ["exceptions.0.date"]


def test_every_problem_is_reported_at_once() -> None:
    """A bad weekday time and a bad exception both appear in one 422."""
    errors = errors_of(
        ScheduleInput(
            weekly={"monday": [OpeningInput("9", "10:00")]},
            exceptions=[ExceptionInput("2026-01-01", [OpeningInput("10:00", "09:00")])],
        )
    )
    assert set(errors) == {"weekly.monday.0.opens", "exceptions.0.openings.0.closes"}


@pytest.mark.parametrize("name", ["Europe/Berlin", "America/New_York", "UTC", "Asia/Kolkata"])
def test_iana_timezones_are_accepted(name: str) -> None:
    """IANA names are taken as given."""
    assert parse_timezone("timezone", name) == name


@pytest.mark.parametrize("name", ["", "Mars/Olympus", "/etc/passwd", "../zoneinfo/UTC", "+02:00"])
def test_other_timezones_are_refused(name: str) -> None:
    """Unknown names, paths and offsets are not timezones."""
    with pytest.raises(ValidationFailed):
        parse_timezone("timezone", name)


def test_working_hours_report_timezone_and_schedule_errors_together() -> None:
    """A bad timezone and a bad opening are both reported."""
    with pytest.raises(ValidationFailed) as caught:
        parse_working_hours(WorkingHoursInput("Nowhere/City", weekly={"monday": [OpeningInput("x", "10:00")]}))
    assert set(caught.value.errors) == {"timezone", "weekly.monday.0.opens"}


def test_the_document_round_trips() -> None:
    """A schedule stored as its JSON document reads back equal."""
    schedule = parse_schedule(
        ScheduleInput(
            weekly={"monday": [OpeningInput("09:00", "12:00"), OpeningInput("13:00", "24:00")]},
            exceptions=[ExceptionInput("2026-12-25"), ExceptionInput("2026-12-24", [OpeningInput("09:00", "12:00")])],
        )
    )
    assert Schedule.from_document(schedule.document()) == schedule


def test_the_default_is_utc_around_the_clock() -> None:
    """A workspace that never set hours is open all day, every day, in UTC."""
    assert DEFAULT_HOURS.timezone == "UTC"
    assert DEFAULT_HOURS.schedule.weekly == (ALL_DAY,) * 7


# -- layering --------------------------------------------------------------------------------------

WORKSPACE = parse_schedule(
    ScheduleInput(
        weekly={"monday": [OpeningInput("09:00", "17:00")]},
        exceptions=[ExceptionInput("2026-01-05")],  # a Monday holiday
    )
)
RESOURCE = parse_schedule(
    ScheduleInput(
        weekly={"monday": [OpeningInput("10:00", "12:00")]},
        exceptions=[ExceptionInput("2026-01-12", [OpeningInput("08:00", "09:00")])],
    )
)


def test_a_resource_without_override_follows_the_workspace() -> None:
    """No override: the workspace's weekly hours."""
    assert openings_on(date(2026, 1, 19), WORKSPACE) == (Opening(540, 1020),)


def test_a_resource_override_replaces_the_weekly_hours() -> None:
    """The resource's weekly hours come before the workspace's."""
    assert openings_on(date(2026, 1, 19), WORKSPACE, RESOURCE) == (Opening(600, 720),)


def test_a_workspace_holiday_closes_a_resource_with_its_own_hours() -> None:
    """The workspace's exception comes before the resource's weekly hours."""
    assert openings_on(date(2026, 1, 5), WORKSPACE, RESOURCE) == ()


def test_a_resource_exception_comes_first() -> None:
    """The resource's own exception wins over everything."""
    assert openings_on(date(2026, 1, 12), WORKSPACE, RESOURCE) == (Opening(480, 540),)


# -- wall clock to instants ------------------------------------------------------------------------


def test_an_ordinary_wall_time_is_its_instant() -> None:
    """09:00 in Berlin in winter is 08:00 UTC."""
    assert wall_instant(date(2026, 1, 5), hm("09:00"), BERLIN) == utc(2026, 1, 5, 8)


def test_a_skipped_time_is_the_end_of_the_jump() -> None:
    """02:30 does not exist on Berlin's spring day; it means 03:00 CEST (01:00 UTC)."""
    assert wall_instant(BERLIN_SPRING, hm("02:30"), BERLIN) == utc(2026, 3, 29, 1)
    assert not exists(BERLIN_SPRING, hm("02:30"), BERLIN)


def test_a_repeated_time_is_its_first_occurrence() -> None:
    """02:30 happens twice on Berlin's autumn day; it means the first, 02:30 CEST (00:30 UTC)."""
    assert wall_instant(BERLIN_AUTUMN, hm("02:30"), BERLIN) == utc(2026, 10, 25, 0, 30)
    assert exists(BERLIN_AUTUMN, hm("02:30"), BERLIN)


def test_a_half_hour_jump_is_found_too() -> None:
    """Lord Howe Island skips 02:00-02:30; 02:15 means 02:30 local (15:30 UTC the day before)."""
    assert wall_instant(date(2026, 10, 4), hm("02:15"), ZoneInfo("Australia/Lord_Howe")) == utc(2026, 10, 3, 15, 30)


@pytest.mark.parametrize(
    ("zone", "day", "hours"),
    [
        (BERLIN, BERLIN_SPRING, 23),
        (BERLIN, BERLIN_AUTUMN, 25),
        (NEW_YORK, NEW_YORK_SPRING, 23),
        (NEW_YORK, NEW_YORK_AUTUMN, 25),
        (BERLIN, date(2026, 6, 1), 24),
    ],
)
def test_a_local_day_lasts_as_long_as_the_clocks_say(zone: ZoneInfo, day: date, hours: int) -> None:
    """Daylight-saving days are 23 and 25 hours long; others 24."""
    start, end = day_bounds(day, zone)
    assert end - start == timedelta(hours=hours)


def test_an_all_day_opening_spans_the_whole_long_day() -> None:
    """00:00-24:00 on a 25-hour day is 25 hours of instants, repeated hour included."""
    ((start, end),) = open_ranges(BERLIN_AUTUMN, ALL_DAY, BERLIN)
    assert end - start == timedelta(hours=25)


def test_an_opening_inside_a_skipped_hour_vanishes() -> None:
    """02:10-02:50 on Berlin's spring day has no instants at all."""
    assert open_ranges(BERLIN_SPRING, (Opening(hm("02:10"), hm("02:50")),), BERLIN) == ()


def test_covers_needs_one_opening_to_hold_the_whole_range() -> None:
    """A booking across a break is outside working hours; one inside an opening is within."""
    ranges = open_ranges(date(2026, 1, 5), (Opening(540, 720), Opening(780, 1020)), BERLIN)
    assert covers(ranges, utc(2026, 1, 5, 8), utc(2026, 1, 5, 11))
    assert not covers(ranges, utc(2026, 1, 5, 10, 30), utc(2026, 1, 5, 12, 30))


def test_a_closed_day_is_described_as_closed() -> None:
    """The refusal message names the date, the zone and that it is closed."""
    assert describe_day(date(2026, 1, 4), (), "Europe/Berlin") == "2026-01-04 (Europe/Berlin) is closed"


def test_always_open_is_open_every_weekday() -> None:
    """ALWAYS_OPEN has 00:00-24:00 on all seven days."""
    assert all(day == ALL_DAY for day in ALWAYS_OPEN.weekly)
