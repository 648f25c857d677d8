"""What can be booked: booking types (what, and for how long) and resources (who or where).

SPEC 4 only reads them (`GET /bookings/types`, `GET /bookings/resources`); a workspace sets
itself up by creating, updating and deactivating them. Neither is ever deleted: bookings keep
pointing at them. Deactivating stops new bookings (and availability) for it; existing bookings
stay as they are, to be kept or cancelled one by one.

A booking type "uses resources" when the workspace has at least one active resource: every new
booking then takes one (named, or the first free one), and a resource is never double-booked.
A workspace without active resources is one calendar of its own: its bookings (without a
resource) do not overlap one another either.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, optional_text, required_text

NAME_MAX = 255
DESCRIPTION_MAX = 2000
RESOURCE_TYPE_MAX = 100
DURATION_MAX = 24 * 60
"""A booking lasts at most a day (openings never cross midnight)."""


@attrs.frozen
class BookingType:
    """SPEC 2: `id`, `name`, `duration_minutes`, `description`, `is_active`."""

    id: int
    name: str
    duration_minutes: int
    description: str | None
    is_active: bool
    created_at: datetime
    updated_at: datetime

    @property
    def duration(self) -> timedelta:
        return timedelta(minutes=self.duration_minutes)


@attrs.frozen
class Resource:
    """SPEC 2, bookable resource: `id`, `name`, `type` (free text, e.g. staff or room), `is_active`."""

    id: int
    name: str
    type: str
    is_active: bool
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class BookingTypeDraft:
    name: str
    duration_minutes: int
    description: str | None = None
    is_active: bool = True


@attrs.frozen
class ResourceDraft:
    name: str
    type: str
    is_active: bool = True


@attrs.frozen
class BookingTypeInput:
    name: str
    duration_minutes: int
    description: str | None = None
    is_active: bool = True


@attrs.frozen
class BookingTypePatch:
    """Any subset of the fields; `UNSET` leaves one alone."""

    name: str | Unset = UNSET
    duration_minutes: int | Unset = UNSET
    description: str | Unset | None = UNSET
    is_active: bool | Unset = UNSET


@attrs.frozen
class ResourceInput:
    name: str
    type: str
    is_active: bool = True


@attrs.frozen
class ResourcePatch:
    name: str | Unset = UNSET
    type: str | Unset = UNSET
    is_active: bool | Unset = UNSET


def validate_booking_type(data: BookingTypeInput) -> BookingTypeDraft:
    errors = ErrorCollector()
    name = errors.run(lambda: required_text("name", _text(data.name), max_length=NAME_MAX))
    duration = errors.run(lambda: parse_duration(data.duration_minutes))
    description = errors.run(lambda: optional_text("description", data.description, max_length=DESCRIPTION_MAX))
    errors.run(lambda: _flag("is_active", data.is_active))
    errors.raise_if_any()
    assert name is not None and duration is not None
    return BookingTypeDraft(name, duration, description, data.is_active)


def patched_booking_type(current: BookingType, patch: BookingTypePatch, now: datetime) -> BookingType:
    """The type with the patch applied (every field checked at once); `updated_at` moves only
    when something changed."""
    errors = ErrorCollector()
    changed = current
    if patch.name is not UNSET:
        name = errors.run(lambda: required_text("name", _text(patch.name), max_length=NAME_MAX))
        changed = attrs.evolve(changed, name=name or current.name)
    if patch.duration_minutes is not UNSET:
        duration = errors.run(lambda: parse_duration(patch.duration_minutes))
        changed = attrs.evolve(changed, duration_minutes=duration or current.duration_minutes)
    if patch.description is not UNSET:
        description = errors.run(
            lambda: optional_text("description", _optional(patch.description), max_length=DESCRIPTION_MAX)
        )
        changed = attrs.evolve(changed, description=description)
    if patch.is_active is not UNSET:
        errors.run(lambda: _flag("is_active", patch.is_active))
        changed = attrs.evolve(changed, is_active=bool(patch.is_active))
    errors.raise_if_any()
    return changed if changed == current else attrs.evolve(changed, updated_at=now)


def validate_resource(data: ResourceInput) -> ResourceDraft:
    errors = ErrorCollector()
    name = errors.run(lambda: required_text("name", _text(data.name), max_length=NAME_MAX))
    kind = errors.run(lambda: required_text("type", _text(data.type), max_length=RESOURCE_TYPE_MAX))
    errors.run(lambda: _flag("is_active", data.is_active))
    errors.raise_if_any()
    assert name is not None and kind is not None
    return ResourceDraft(name, kind, data.is_active)


def patched_resource(current: Resource, patch: ResourcePatch, now: datetime) -> Resource:
    errors = ErrorCollector()
    changed = current
    if patch.name is not UNSET:
        name = errors.run(lambda: required_text("name", _text(patch.name), max_length=NAME_MAX))
        changed = attrs.evolve(changed, name=name or current.name)
    if patch.type is not UNSET:
        kind = errors.run(lambda: required_text("type", _text(patch.type), max_length=RESOURCE_TYPE_MAX))
        changed = attrs.evolve(changed, type=kind or current.type)
    if patch.is_active is not UNSET:
        errors.run(lambda: _flag("is_active", patch.is_active))
        changed = attrs.evolve(changed, is_active=bool(patch.is_active))
    errors.raise_if_any()
    return changed if changed == current else attrs.evolve(changed, updated_at=now)


def parse_duration(value: object) -> int:
    """`duration_minutes`: a whole number of minutes from 1 to `DURATION_MAX`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= DURATION_MAX:
        raise ValidationFailed.on(
            "duration_minutes", f"The duration minutes must be a whole number from 1 to {DURATION_MAX}."
        )
    return value


def _flag(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise ValidationFailed.on(field, f"The {field.replace('_', ' ')} field must be true or false.")
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _optional(value: object) -> str | None:
    return value if isinstance(value, str) else None
