"""Request and response bodies of a workspace's booking setup: booking types, bookable resources,
its timezone and working hours, and resources' own hours (SPEC 2, booking type and resource).

Hours are written as the core keeps them (`engage_core.bookings.working_hours`)::

    {"timezone": "Europe/Berlin",
     "weekly": {"monday": [{"opens": "09:00", "closes": "12:00"}, {"opens": "13:00", "closes": "17:00"}],
                "saturday": []},
     "exceptions": [{"date": "2026-12-24", "openings": [{"opens": "09:00", "closes": "12:00"}]},
                    {"date": "2026-12-25", "openings": []}]}

A weekday left out, or given no openings, is closed; an exception replaces the weekly hours of
its date (no openings: closed that day).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any

import attrs

from engage_core.bookings import setup
from engage_core.bookings import working_hours as hours
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import Doc, Integer, Items, Text
from engage_http.converter import renders, structures_into, to_core

Name = Annotated[str, Text(max_length=setup.NAME_MAX, blank=False), Doc(example="Consultation")]
Description = Annotated[str, Text(max_length=setup.DESCRIPTION_MAX)]
Duration = Annotated[int, Integer(minimum=1, maximum=setup.DURATION_MAX), Doc(example=30)]
ResourceName = Annotated[str, Text(max_length=setup.NAME_MAX, blank=False), Doc(example="Dr. Ada Lovelace")]
ResourceType = Annotated[str, Text(max_length=setup.RESOURCE_TYPE_MAX, blank=False), Doc(example="staff")]
Timezone = Annotated[
    str,
    Text(max_length=hours.TIMEZONE_MAX, blank=False),
    Doc(description="An IANA timezone name.", example="Europe/Berlin"),
]
CLOCK_PATTERN = "^[0-9]{2}:[0-9]{2}$"
Clock = Annotated[
    str,
    Text(pattern=CLOCK_PATTERN, message="The {field} must be a time of day written HH:MM."),
    Doc(example="09:00"),
]
Date = Annotated[
    str,
    Text(
        pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
        format="date",
        message="The {field} must be a date in the form YYYY-MM-DD.",
    ),
    Doc(example="2026-12-25"),
]


# -- booking types and resources --------------------------------------------------------------------


@structures_into(setup.BookingTypeInput)
@attrs.frozen
class BookingTypeCreate:
    """A new booking type: what can be booked, and for how long."""

    name: Name
    duration_minutes: Duration
    description: Description | None = None
    is_active: bool = True


@structures_into(setup.BookingTypePatch)
@attrs.frozen
class BookingTypeUpdate:
    """Any subset of the fields. A new duration applies to bookings made from now on."""

    name: Name | Unset = UNSET
    duration_minutes: Duration | Unset = UNSET
    description: Description | Unset | None = UNSET
    is_active: bool | Unset = UNSET


@structures_into(setup.ResourceInput)
@attrs.frozen
class ResourceCreate:
    """A new bookable resource: who or where (a member of staff, a room)."""

    name: ResourceName
    type: ResourceType
    is_active: bool = True


@structures_into(setup.ResourcePatch)
@attrs.frozen
class ResourceUpdate:
    """Any subset of the fields."""

    name: ResourceName | Unset = UNSET
    type: ResourceType | Unset = UNSET
    is_active: bool | Unset = UNSET


@renders(setup.BookingType)
@attrs.frozen
class BookingType:
    """A booking type (SPEC 2). `created_at` and `updated_at` are additions to the SPEC fields."""

    id: int
    name: str
    duration_minutes: int
    description: str | None
    is_active: bool
    created_at: datetime
    updated_at: datetime


@renders(setup.Resource)
@attrs.frozen
class Resource:
    """A bookable resource (SPEC 2). `created_at` and `updated_at` are additions to the SPEC fields."""

    id: int
    name: str
    type: str
    is_active: bool
    created_at: datetime
    updated_at: datetime


# -- hours ------------------------------------------------------------------------------------------


@structures_into(hours.OpeningInput)
@attrs.frozen
class Opening:
    """One open stretch of a day, `[opens, closes)`; `closes` may be `24:00`."""

    opens: Clock
    closes: Clock


Openings = Annotated[tuple[Opening, ...], Items(max_items=hours.OPENINGS_PER_DAY_MAX)]


@structures_into(hours.ExceptionInput)
@attrs.frozen
class ScheduleException:
    """The hours of one date, replacing its weekly hours; no openings closes the day."""

    date: Date
    openings: Openings = ()


Exceptions = Annotated[tuple[ScheduleException, ...], Items(max_items=hours.EXCEPTIONS_MAX)]


def _weekly_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`weekly` takes only the seven weekday names."""
    weekly = schema["properties"]["weekly"]
    weekly["propertyNames"] = {"enum": list(hours.WEEKDAYS)}
    weekly["description"] = "Weekday name (`monday` ... `sunday`) to openings; a day left out is closed."
    return schema


def _weekly_input(weekly: Mapping[str, Openings]) -> dict[str, list[hours.OpeningInput]]:
    return {day: to_core(list(openings)) for day, openings in weekly.items()}


def _schedule_input(body: Schedule) -> hours.ScheduleInput:
    # `to_core` maps sequences but not a mapping's values: the weekly openings are mapped here.
    return hours.ScheduleInput(_weekly_input(body.weekly), to_core(body.exceptions))


@structures_into(hours.ScheduleInput, _schedule_input)
@attrs.frozen
class Schedule:
    """Weekly hours and dated exceptions (a resource's own hours)."""

    weekly: Mapping[str, Openings] = attrs.field(factory=dict)
    exceptions: Exceptions = ()

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _weekly_schema(schema)

    @classmethod
    def from_domain(cls, schedule: hours.Schedule) -> Schedule:
        # The core keeps minutes, Monday first, and exceptions by date; the wire writes its `document()`.
        document = schedule.document()
        return cls(
            weekly={day: tuple(Opening(**o) for o in openings) for day, openings in document["weekly"].items()},
            exceptions=tuple(
                ScheduleException(e["date"], tuple(Opening(**o) for o in e["openings"])) for e in document["exceptions"]
            ),
        )


def _working_hours_input(body: WorkingHoursUpdate) -> hours.WorkingHoursInput:
    # `to_core` maps sequences but not a mapping's values: the weekly openings are mapped here.
    return hours.WorkingHoursInput(body.timezone, _weekly_input(body.weekly), to_core(body.exceptions))


@structures_into(hours.WorkingHoursInput, _working_hours_input)
@attrs.frozen
class WorkingHoursUpdate:
    """The workspace's timezone and hours, replacing the earlier ones."""

    timezone: Timezone
    weekly: Mapping[str, Openings] = attrs.field(factory=dict)
    exceptions: Exceptions = ()

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _weekly_schema(schema)


@attrs.frozen
class TimezoneUpdate:
    """The workspace's timezone; the hours stay the same wall-clock hours, read in the new zone."""

    timezone: Timezone


@attrs.frozen
class WorkingHours:
    """The workspace's timezone and hours. Every weekday is listed; an empty one is closed."""

    timezone: str
    weekly: Mapping[str, Openings]
    exceptions: Exceptions

    @classmethod
    def from_domain(cls, working_hours: hours.WorkingHours) -> WorkingHours:
        # The wire flattens the schedule beside the timezone (written as `Schedule.from_domain` does).
        schedule = Schedule.from_domain(working_hours.schedule)
        return cls(timezone=working_hours.timezone, weekly=schedule.weekly, exceptions=schedule.exceptions)


@attrs.frozen
class ResourceHours:
    """A resource's own hours, or null when it follows the workspace's."""

    resource_id: int
    schedule: Schedule | None

    @classmethod
    def from_domain(cls, resource_id: int, schedule: hours.Schedule | None) -> ResourceHours:
        # The core's schedule does not know its resource: the id comes from the request.
        return cls(resource_id, None if schedule is None else Schedule.from_domain(schedule))


__all__ = [
    "BookingType",
    "BookingTypeCreate",
    "BookingTypeUpdate",
    "Opening",
    "Resource",
    "ResourceCreate",
    "ResourceHours",
    "ResourceUpdate",
    "Schedule",
    "ScheduleException",
    "TimezoneUpdate",
    "WorkingHours",
    "WorkingHoursUpdate",
]
