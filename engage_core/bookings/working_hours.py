"""Working hours: when a workspace, and each of its resources, takes bookings.

Hours are wall-clock times in the workspace's IANA timezone (`WorkingHours.timezone`, the
workspace's timezone setting; `UTC` until it is set), so "09:00 to 17:00" stays 09:00 to 17:00
across daylight-saving changes.

Shape:

- An `Opening` is one open stretch of a day, `[opens, closes)`, in minutes after midnight from
  00:00 to 24:00. A day's openings are sorted and neither overlap nor touch (write 09:00-13:00 as
  one opening); the gaps between them are breaks. Openings never cross midnight.
- A `Schedule` has a weekly part (Monday first; an empty day is closed) and dated exceptions,
  each replacing the weekly hours of one date (no openings: closed that day, e.g. a holiday;
  otherwise special hours).
- `WorkingHours` is the workspace's timezone and schedule. A resource may have a schedule of its
  own (an override). The hours of a resource on a date are, first found: the resource's exception
  for the date, the workspace's exception for the date (a holiday closes every resource), the
  resource's weekly hours, the workspace's weekly hours.
- `DEFAULT_HOURS`: a workspace that never set its hours is open around the clock in UTC, so
  bookings work before any setup.

From wall clock to instants: a wall time on a date means the first instant at which the clock
shows that time or later. So a time in a repeated hour (clocks turned back) is its first
occurrence, and a time in a skipped hour (clocks turned forward) is the moment the clock jumps
past it. An opening is the half-open range of instants `[instant(opens), instant(closes))`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from functools import partial
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.validation import ErrorCollector

WEEKDAYS: tuple[str, ...] = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
DAY_MINUTES = 24 * 60
OPENINGS_PER_DAY_MAX = 24
EXCEPTIONS_MAX = 500
DEFAULT_TIMEZONE = "UTC"
TIMEZONE_MAX = 64

_CLOCK = re.compile(r"^(\d{2}):(\d{2})$")


@attrs.frozen(order=True)
class Opening:
    """One open stretch of a day: `[opens, closes)` in minutes after midnight (0 to 1440)."""

    opens: int
    closes: int

    def label(self) -> str:
        return f"{clock_text(self.opens)}-{clock_text(self.closes)}"


Day = tuple[Opening, ...]
"""The openings of one day, sorted; empty when closed."""

ALL_DAY: Day = (Opening(0, DAY_MINUTES),)


@attrs.frozen
class Schedule:
    """Weekly hours (seven days, Monday first) and dated exceptions that replace them."""

    weekly: tuple[Day, Day, Day, Day, Day, Day, Day]
    exceptions: Mapping[date, Day] = attrs.field(factory=dict)

    def exception(self, day: date) -> Day | None:
        return self.exceptions.get(day)

    def weekly_on(self, day: date) -> Day:
        return self.weekly[day.weekday()]

    def document(self) -> dict[str, Any]:
        """The schedule as JSON.

        This is the form the API takes and gives, and storage keeps::

            {"weekly": {"monday": [{"opens": "09:00", "closes": "12:00"}, ...], ..., "sunday": []},
             "exceptions": [{"date": "2026-12-25", "openings": []}, ...]}
        """
        return {
            "weekly": {name: _openings_document(self.weekly[index]) for index, name in enumerate(WEEKDAYS)},
            "exceptions": [
                {"date": day.isoformat(), "openings": _openings_document(openings)}
                for day, openings in sorted(self.exceptions.items())
            ],
        }

    @classmethod
    def from_document(cls, document: Mapping[str, Any]) -> Schedule:
        """The inverse of `document()`. Raises ValidationFailed when the document is not valid."""
        weekly = document.get("weekly") or {}
        exceptions = document.get("exceptions") or []
        return parse_schedule(
            ScheduleInput(
                weekly={day: [OpeningInput(o["opens"], o["closes"]) for o in weekly.get(day, [])] for day in weekly},
                exceptions=[
                    ExceptionInput(e["date"], [OpeningInput(o["opens"], o["closes"]) for o in e.get("openings", [])])
                    for e in exceptions
                ],
            )
        )


ALWAYS_OPEN = Schedule(weekly=(ALL_DAY,) * 7)


@attrs.frozen
class WorkingHours:
    """The workspace's timezone (an IANA name) and its schedule."""

    timezone: str
    schedule: Schedule

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


DEFAULT_HOURS = WorkingHours(DEFAULT_TIMEZONE, ALWAYS_OPEN)


# -- input and validation --------------------------------------------------------------------------


@attrs.frozen
class OpeningInput:
    """`{"opens": "09:00", "closes": "17:00"}`; `closes` may be `24:00` (midnight at the day's end)."""

    opens: str
    closes: str


@attrs.frozen
class ExceptionInput:
    """One dated exception: no openings closes the day, openings replace its weekly hours."""

    date: str | date
    openings: Sequence[OpeningInput] = ()


@attrs.frozen
class ScheduleInput:
    """A schedule as received: weekday name (`monday` ... `sunday`) to openings; a day left out is
    closed. Exceptions are dated."""

    weekly: Mapping[str, Sequence[OpeningInput]] = attrs.field(factory=dict)
    exceptions: Sequence[ExceptionInput] = ()


@attrs.frozen
class WorkingHoursInput:
    """The workspace's hours: its IANA timezone and schedule."""

    timezone: str
    weekly: Mapping[str, Sequence[OpeningInput]] = attrs.field(factory=dict)
    exceptions: Sequence[ExceptionInput] = ()


def parse_timezone(field: str, value: str) -> str:
    """An IANA timezone name (`Europe/Berlin`, `UTC`), as given."""
    name = value.strip() if isinstance(value, str) else ""
    message = f"The {field} must be an IANA timezone name such as Europe/Berlin or UTC."
    if not name or len(name) > TIMEZONE_MAX or name.startswith("/") or ".." in name:
        raise ValidationFailed.on(field, message)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValidationFailed.on(field, message) from exc
    return name


def parse_schedule(data: ScheduleInput) -> Schedule:
    """Check every weekday and exception at once; error keys are `weekly.monday.0.opens`,
    `exceptions.2.date` and the like."""
    errors = ErrorCollector()
    unknown = sorted(set(data.weekly) - set(WEEKDAYS))
    if unknown:
        errors.errors["weekly"] = ["Unknown weekday: " + ", ".join(unknown) + "; use " + ", ".join(WEEKDAYS) + "."]
    days: list[Day] = []
    for name in WEEKDAYS:
        days.append(errors.run(partial(_day, f"weekly.{name}", data.weekly.get(name, ()))) or ())
    exceptions: dict[date, Day] = {}
    if len(data.exceptions) > EXCEPTIONS_MAX:
        errors.errors["exceptions"] = [f"A schedule may have at most {EXCEPTIONS_MAX} exceptions."]
    for index, item in enumerate(data.exceptions[:EXCEPTIONS_MAX]):
        path = f"exceptions.{index}"
        day = errors.run(partial(_date, f"{path}.date", item.date))
        openings = errors.run(partial(_day, f"{path}.openings", item.openings))
        if day is None or openings is None:
            continue
        if day in exceptions:
            errors.errors[f"{path}.date"] = [f"{day.isoformat()} has more than one exception; give it once."]
        exceptions[day] = openings
    errors.raise_if_any()
    weekly = (days[0], days[1], days[2], days[3], days[4], days[5], days[6])
    return Schedule(weekly=weekly, exceptions=exceptions)


def parse_working_hours(data: WorkingHoursInput) -> WorkingHours:
    errors = ErrorCollector()
    timezone = errors.run(lambda: parse_timezone("timezone", data.timezone))
    schedule = errors.run(lambda: parse_schedule(ScheduleInput(data.weekly, data.exceptions)))
    errors.raise_if_any()
    assert timezone is not None and schedule is not None
    return WorkingHours(timezone, schedule)


def parse_clock(field: str, value: str, *, allow_midnight_end: bool) -> int:
    """`HH:MM` (00:00 to 23:59, and 24:00 when `allow_midnight_end`) as minutes after midnight."""
    match = _CLOCK.match(value.strip()) if isinstance(value, str) else None
    limit = "24:00" if allow_midnight_end else "23:59"
    message = f"The {field} must be a time of day written HH:MM, from 00:00 to {limit}."
    if match is None:
        raise ValidationFailed.on(field, message)
    hours, minutes = int(match.group(1)), int(match.group(2))
    total = hours * 60 + minutes
    if minutes > 59 or total > DAY_MINUTES or (total == DAY_MINUTES and not allow_midnight_end):
        raise ValidationFailed.on(field, message)
    return total


def clock_text(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _day(path: str, openings: Sequence[OpeningInput]) -> Day:
    if len(openings) > OPENINGS_PER_DAY_MAX:
        raise ValidationFailed.on(path, f"A day may have at most {OPENINGS_PER_DAY_MAX} openings.")
    errors = ErrorCollector()
    parsed: list[tuple[int, Opening]] = []
    for index, item in enumerate(openings):
        at = f"{path}.{index}"
        opens = errors.run(partial(parse_clock, f"{at}.opens", item.opens, allow_midnight_end=False))
        closes = errors.run(partial(parse_clock, f"{at}.closes", item.closes, allow_midnight_end=True))
        if opens is None or closes is None:
            continue
        if closes <= opens:
            errors.errors[f"{at}.closes"] = ["The closes time must be after the opens time (openings end by 24:00)."]
            continue
        parsed.append((index, Opening(opens, closes)))
    errors.raise_if_any()
    parsed.sort(key=lambda pair: pair[1])
    for (_, before), (index, after) in pairwise(parsed):
        if after.opens <= before.closes:
            raise ValidationFailed.on(
                f"{path}.{index}",
                f"The opening {after.label()} overlaps or touches {before.label()}; write them as one opening.",
            )
    return tuple(opening for _, opening in parsed)


def _date(field: str, value: str | date) -> date:
    if isinstance(value, date) and not isinstance(value, datetime):
        return value
    try:
        if not isinstance(value, str) or len(value.strip()) != 10:
            raise ValueError(value)
        return date.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValidationFailed.on(field, f"The {field} must be a date written YYYY-MM-DD.") from exc


def _openings_document(openings: Day) -> list[dict[str, str]]:
    return [{"opens": clock_text(o.opens), "closes": clock_text(o.closes)} for o in openings]


# -- from wall clock to instants -------------------------------------------------------------------


def openings_on(day: date, workspace: Schedule, resource: Schedule | None = None) -> Day:
    """The openings of `day`: the resource's exception, the workspace's exception, the resource's
    weekly hours, the workspace's weekly hours, whichever is found first."""
    if resource is not None and (found := resource.exception(day)) is not None:
        return found
    if (found := workspace.exception(day)) is not None:
        return found
    return (resource or workspace).weekly_on(day)


def wall_instant(day: date, minute: int, zone: ZoneInfo) -> datetime:
    """The first instant (UTC) at which the wall clock in `zone` shows `minute` of `day`, or a
    later time: the first occurrence of a repeated time, the end of the jump over a skipped one.
    `minute` 1440 is midnight at the end of `day`."""
    wall = datetime.combine(day, time()) + timedelta(minutes=minute)
    early = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    late = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    first, second = min(early, late), max(early, late)
    if _wall(first, zone) >= wall:
        return first  # the time exists (once, or first of two)
    # Skipped: `first` shows a time before the jump, `second` one after it. Find the jump.
    low, high = 0, int((second - first).total_seconds())
    while high - low > 1:
        middle = (low + high) // 2
        if _wall(first + timedelta(seconds=middle), zone) >= wall:
            high = middle
        else:
            low = middle
    return first + timedelta(seconds=high)


def exists(day: date, minute: int, zone: ZoneInfo) -> bool:
    """Whether the wall clock in `zone` shows `minute` of `day` at all (false in a skipped hour)."""
    wall = datetime.combine(day, time()) + timedelta(minutes=minute)
    return _wall(wall_instant(day, minute, zone), zone) == wall


def open_ranges(day: date, openings: Day, zone: ZoneInfo) -> tuple[tuple[datetime, datetime], ...]:
    """The day's openings as half-open ranges of UTC instants, in order."""
    ranges = ((wall_instant(day, o.opens, zone), wall_instant(day, o.closes, zone)) for o in openings)
    return tuple((start, end) for start, end in ranges if start < end)


def day_bounds(day: date, zone: ZoneInfo) -> tuple[datetime, datetime]:
    """The local day as a half-open range of UTC instants (23, 24 or 25 hours long)."""
    return wall_instant(day, 0, zone), wall_instant(day, DAY_MINUTES, zone)


def local_day(moment: datetime, zone: ZoneInfo) -> date:
    return moment.astimezone(zone).date()


def covers(ranges: Sequence[tuple[datetime, datetime]], starts_at: datetime, ends_at: datetime) -> bool:
    """Whether `[starts_at, ends_at)` lies inside one of `ranges`."""
    return any(start <= starts_at and ends_at <= end for start, end in ranges)


def describe_day(day: date, openings: Day, timezone: str) -> str:
    """`on 2026-03-27 (Europe/Berlin) the hours are 09:00-12:00, 13:00-17:00` or `... is closed`."""
    if not openings:
        return f"{day.isoformat()} ({timezone}) is closed"
    return f"on {day.isoformat()} ({timezone}) the hours are " + ", ".join(o.label() for o in openings)


def _wall(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone).replace(tzinfo=None)
