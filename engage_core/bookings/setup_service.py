"""Booking setup: a workspace's booking types, resources, timezone and working hours.

Types and resources are created, updated and deactivated, never deleted (bookings point at them).
Changing hours, the timezone or a duration never touches existing bookings: they keep their
instants; only new bookings and reschedules are checked against the new setup.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.bookings.setup import (
    BookingType,
    BookingTypeInput,
    BookingTypePatch,
    Resource,
    ResourceInput,
    ResourcePatch,
    patched_booking_type,
    patched_resource,
    validate_booking_type,
    validate_resource,
)
from engage_core.bookings.working_hours import (
    DEFAULT_HOURS,
    Schedule,
    ScheduleInput,
    WorkingHours,
    WorkingHoursInput,
    parse_schedule,
    parse_timezone,
    parse_working_hours,
)
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


class BookingSetupService:
    """A workspace's booking setup: booking types, resources, the timezone, working hours and the
    resources' own schedules.

    Methods that name a type or resource raise :class:`.NotFound` when it is not in the account;
    invalid input raises :class:`.ValidationFailed` naming each bad field, and nothing is written."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    # -- booking types ------------------------------------------------------------------------

    def list_types(self, account_id: int, *, active_only: bool = False) -> Sequence[BookingType]:
        """`GET /bookings/types`, ascending id."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return [t for t in uow.booking_types.list() if t.is_active or not active_only]

    def get_type(self, account_id: int, booking_type_id: int) -> BookingType:
        """The booking type `booking_type_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _booking_type(uow, booking_type_id)

    def create_type(self, account_id: int, data: BookingTypeInput) -> BookingType:
        """Create a booking type.

        Raises :class:`.ValidationFailed` naming each invalid field."""
        draft = validate_booking_type(data)
        with self._uow.workspace(account_id) as uow:
            created = uow.booking_types.add(draft, self._clock.now())
            uow.commit()
        return created

    def update_type(self, account_id: int, booking_type_id: int, patch: BookingTypePatch) -> BookingType:
        """A new duration applies to bookings made from now on; existing ones keep their length."""
        with self._uow.workspace(account_id) as uow:
            current = _booking_type(uow, booking_type_id)
            changed = patched_booking_type(current, patch, self._clock.now())
            if changed != current:
                uow.booking_types.update(changed)
                uow.commit()
        return changed

    def deactivate_type(self, account_id: int, booking_type_id: int) -> BookingType:
        """No new bookings of this type; its existing bookings stay."""
        return self.update_type(account_id, booking_type_id, BookingTypePatch(is_active=False))

    # -- resources ----------------------------------------------------------------------------

    def list_resources(self, account_id: int, *, active_only: bool = False) -> Sequence[Resource]:
        """`GET /bookings/resources`, ascending id."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return [r for r in uow.resources.list() if r.is_active or not active_only]

    def get_resource(self, account_id: int, resource_id: int) -> Resource:
        """The resource `resource_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _resource(uow, resource_id)

    def create_resource(self, account_id: int, data: ResourceInput) -> Resource:
        """From the first active resource on, every new booking takes a resource."""
        draft = validate_resource(data)
        with self._uow.workspace(account_id) as uow:
            created = uow.resources.add(draft, self._clock.now())
            uow.commit()
        return created

    def update_resource(self, account_id: int, resource_id: int, patch: ResourcePatch) -> Resource:
        """Change the given fields of the resource (`UNSET` leaves one alone); nothing is written when
        nothing changes.

        Raises :class:`.NotFound` when it is not in the account; :class:`.ValidationFailed` naming each
        invalid field."""
        with self._uow.workspace(account_id) as uow:
            current = _resource(uow, resource_id)
            changed = patched_resource(current, patch, self._clock.now())
            if changed != current:
                uow.resources.update(changed)
                uow.commit()
        return changed

    def deactivate_resource(self, account_id: int, resource_id: int) -> Resource:
        """No new bookings on this resource; its existing bookings stay (and can no longer be
        rescheduled: cancel and book them again)."""
        return self.update_resource(account_id, resource_id, ResourcePatch(is_active=False))

    # -- timezone and working hours -----------------------------------------------------------

    def working_hours(self, account_id: int) -> WorkingHours:
        """The workspace's timezone and schedule (`DEFAULT_HOURS` until set)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.working_hours.get() or DEFAULT_HOURS

    def set_working_hours(self, account_id: int, data: WorkingHoursInput) -> WorkingHours:
        """Replace the workspace's timezone and schedule."""
        hours = parse_working_hours(data)
        with self._uow.workspace(account_id) as uow:
            uow.working_hours.put(hours)
            uow.commit()
        return hours

    def set_timezone(self, account_id: int, timezone: str) -> WorkingHours:
        """Change the workspace's timezone, keeping its schedule (the same wall-clock hours, now
        read in the new zone)."""
        name = parse_timezone("timezone", timezone)
        with self._uow.workspace(account_id) as uow:
            current = uow.working_hours.get() or DEFAULT_HOURS
            hours = WorkingHours(name, current.schedule)
            uow.working_hours.put(hours)
            uow.commit()
        return hours

    def resource_hours(self, account_id: int, resource_id: int) -> Schedule | None:
        """The resource's own schedule, or None when it follows the workspace's."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            _resource(uow, resource_id)
            return uow.working_hours.resource_schedules().get(resource_id)

    def set_resource_hours(self, account_id: int, resource_id: int, data: ScheduleInput) -> Schedule:
        """Give the resource a schedule of its own (in the workspace's timezone). Its exceptions
        come first; the workspace's exceptions (holidays) still apply on other dates."""
        schedule = parse_schedule(data)
        with self._uow.workspace(account_id) as uow:
            _resource(uow, resource_id)
            uow.working_hours.put_resource(resource_id, schedule)
            uow.commit()
        return schedule

    def clear_resource_hours(self, account_id: int, resource_id: int) -> None:
        """The resource follows the workspace's schedule again."""
        with self._uow.workspace(account_id) as uow:
            _resource(uow, resource_id)
            if uow.working_hours.clear_resource(resource_id):
                uow.commit()


def _booking_type(uow: WorkspaceUnitOfWork, booking_type_id: int) -> BookingType:
    found = uow.booking_types.get(booking_type_id)
    if found is None:
        raise NotFound("Booking type")
    return found


def _resource(uow: WorkspaceUnitOfWork, resource_id: int) -> Resource:
    found = uow.resources.get(resource_id)
    if found is None:
        raise NotFound("Resource")
    return found
