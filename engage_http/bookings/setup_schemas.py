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

from engage_core.bookings import catalogue
from engage_core.bookings import working_hours as hours
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import Doc, Integer, Text

Name = Annotated[str, Text(max_length=catalogue.NAME_MAX, blank=False), Doc(example="Consultation")]
Description = Annotated[str, Text(max_length=catalogue.DESCRIPTION_MAX)]
Duration = Annotated[int, Integer(minimum=1, maximum=catalogue.DURATION_MAX), Doc(example=30)]
ResourceName = Annotated[str, Text(max_length=catalogue.NAME_MAX, blank=False), Doc(example="Dr. Ada Lovelace")]
ResourceType = Annotated[str, Text(max_length=catalogue.RESOURCE_TYPE_MAX, blank=False), Doc(example="staff")]
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


@attrs.frozen
class BookingTypeCreate:
    """A new booking type: what can be booked, and for how long."""

    name: Name
    duration_minutes: Duration
    description: Description | None = None
    is_active: bool = True

    def to_input(self) -> catalogue.BookingTypeInput:
        return catalogue.BookingTypeInput(self.name, self.duration_minutes, self.description, self.is_active)


@attrs.frozen
class BookingTypeUpdate:
    """Any subset of the fields. A new duration applies to bookings made from now on."""

    name: Name | Unset = UNSET
    duration_minutes: Duration | Unset = UNSET
    description: Description | Unset | None = UNSET
    is_active: bool | Unset = UNSET

    def to_patch(self) -> catalogue.BookingTypePatch:
        return catalogue.BookingTypePatch(self.name, self.duration_minutes, self.description, self.is_active)


@attrs.frozen
class ResourceCreate:
    """A new bookable resource: who or where (a member of staff, a room)."""

    name: ResourceName
    type: ResourceType
    is_active: bool = True

    def to_input(self) -> catalogue.ResourceInput:
        return catalogue.ResourceInput(self.name, self.type, self.is_active)


@attrs.frozen
class ResourceUpdate:
    """Any subset of the fields."""

    name: ResourceName | Unset = UNSET
    type: ResourceType | Unset = UNSET
    is_active: bool | Unset = UNSET

    def to_patch(self) -> catalogue.ResourcePatch:
        return catalogue.ResourcePatch(self.name, self.type, self.is_active)


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

    @classmethod
    def from_domain(cls, booking_type: catalogue.BookingType) -> BookingType:
        return cls(
            id=booking_type.id,
            name=booking_type.name,
            duration_minutes=booking_type.duration_minutes,
            description=booking_type.description,
            is_active=booking_type.is_active,
            created_at=booking_type.created_at,
            updated_at=booking_type.updated_at,
        )


@attrs.frozen
class Resource:
    """A bookable resource (SPEC 2). `created_at` and `updated_at` are additions to the SPEC fields."""

    id: int
    name: str
    type: str
    is_active: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, resource: catalogue.Resource) -> Resource:
        return cls(
            id=resource.id,
            name=resource.name,
            type=resource.type,
            is_active=resource.is_active,
            created_at=resource.created_at,
            updated_at=resource.updated_at,
        )


# -- hours ------------------------------------------------------------------------------------------


@attrs.frozen
class Opening:
    """One open stretch of a day, `[opens, closes)`; `closes` may be `24:00`."""

    opens: Clock
    closes: Clock

    def to_input(self) -> hours.OpeningInput:
        return hours.OpeningInput(self.opens, self.closes)


Openings = tuple[Opening, ...]


@attrs.frozen
class ScheduleException:
    """The hours of one date, replacing its weekly hours; no openings closes the day."""

    date: Date
    openings: Openings = ()

    def to_input(self) -> hours.ExceptionInput:
        return hours.ExceptionInput(self.date, [o.to_input() for o in self.openings])


def _weekly_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`weekly` takes only the seven weekday names."""
    weekly = schema["properties"]["weekly"]
    weekly["propertyNames"] = {"enum": list(hours.WEEKDAYS)}
    weekly["description"] = "Weekday name (`monday` ... `sunday`) to openings; a day left out is closed."
    return schema


def _weekly_input(weekly: Mapping[str, Openings]) -> dict[str, list[hours.OpeningInput]]:
    return {day: [o.to_input() for o in openings] for day, openings in weekly.items()}


@attrs.frozen
class Schedule:
    """Weekly hours and dated exceptions (a resource's own hours)."""

    weekly: Mapping[str, Openings] = attrs.field(factory=dict)
    exceptions: tuple[ScheduleException, ...] = ()

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _weekly_schema(schema)

    def to_input(self) -> hours.ScheduleInput:
        return hours.ScheduleInput(_weekly_input(self.weekly), [e.to_input() for e in self.exceptions])

    @classmethod
    def from_domain(cls, schedule: hours.Schedule) -> Schedule:
        document = schedule.document()
        return cls(
            weekly={day: tuple(Opening(**o) for o in openings) for day, openings in document["weekly"].items()},
            exceptions=tuple(
                ScheduleException(e["date"], tuple(Opening(**o) for o in e["openings"])) for e in document["exceptions"]
            ),
        )


@attrs.frozen
class WorkingHoursUpdate:
    """The workspace's timezone and hours, replacing the earlier ones."""

    timezone: Timezone
    weekly: Mapping[str, Openings] = attrs.field(factory=dict)
    exceptions: tuple[ScheduleException, ...] = ()

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _weekly_schema(schema)

    def to_input(self) -> hours.WorkingHoursInput:
        return hours.WorkingHoursInput(
            self.timezone, _weekly_input(self.weekly), [e.to_input() for e in self.exceptions]
        )


@attrs.frozen
class TimezoneUpdate:
    """The workspace's timezone; the hours stay the same wall-clock hours, read in the new zone."""

    timezone: Timezone


@attrs.frozen
class WorkingHours:
    """The workspace's timezone and hours. Every weekday is listed; an empty one is closed."""

    timezone: str
    weekly: Mapping[str, Openings]
    exceptions: tuple[ScheduleException, ...]

    @classmethod
    def from_domain(cls, working_hours: hours.WorkingHours) -> WorkingHours:
        schedule = Schedule.from_domain(working_hours.schedule)
        return cls(timezone=working_hours.timezone, weekly=schedule.weekly, exceptions=schedule.exceptions)


@attrs.frozen
class ResourceHours:
    """A resource's own hours, or null when it follows the workspace's."""

    resource_id: int
    schedule: Schedule | None

    @classmethod
    def from_domain(cls, resource_id: int, schedule: hours.Schedule | None) -> ResourceHours:
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
