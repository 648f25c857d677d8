"""Bookings: list, read, availability, create, reschedule, and the status moves.

The rules are in `engage_core.bookings` (state machine, events), `engage_core.bookings.availability`
(slots) and `engage_core.bookings.working_hours` (hours, timezones); this module runs them inside units of
work. Every write that gives a booking a time follows one order, in one transaction: check the
working hours, `lock_resource(calendar)`, `overlapping(calendar, ...)`, write. The lock is what
keeps concurrent requests from double-booking (see `ports.BookingRepository`).

Which calendar a new booking goes to:

- `resource_id` given: that resource, which must exist and be active;
- otherwise, when the workspace has active resources (the booking type "uses resources"): the
  active resource with the lowest id whose working hours cover the booking and which is free;
- otherwise the workspace's own calendar (no resource).

A rescheduled booking keeps its calendar and its length.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from zoneinfo import ZoneInfo

import attrs

from engage_core.bookings.availability import DayAvailability, calendar_slots, merge, slot_grid
from engage_core.bookings.model import (
    BOOKING_STATUSES,
    CREATE_STATUSES,
    NOTES_MAX,
    Booking,
    BookingDraft,
    BookingFilter,
    booking_events,
    booking_title,
    cancel,
    check_not_past,
    complete,
    confirm,
    reschedule,
)
from engage_core.bookings.setup import BookingType, Resource
from engage_core.bookings.working_hours import (
    DEFAULT_HOURS,
    Day,
    Schedule,
    WorkingHours,
    covers,
    day_bounds,
    describe_day,
    local_day,
    open_ranges,
    openings_on,
)
from engage_core.contacts.model import Contact
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, one_of, optional_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

EARLIEST_YEAR = 1970
LATEST_YEAR = 9998
"""Bookings and availability days lie in these years (no arithmetic near `datetime.max`)."""

_Move = Callable[[Booking, datetime], Booking]


@attrs.frozen
class BookingInput:
    """Fields of `POST /bookings`. `status` (not in SPEC 4; additive) lets a caller that needs an
    approval step create the booking `pending`."""

    contact_id: int
    booking_type_id: int
    starts_at: datetime
    resource_id: int | None = None
    notes: str | None = None
    status: str = CREATE_STATUSES[0]


@attrs.frozen
class BookingPatch:
    """Fields of `PUT /bookings/{id}`: any subset; `UNSET` leaves a field alone. A new `starts_at`
    reschedules."""

    starts_at: datetime | Unset = UNSET
    notes: str | Unset | None = UNSET


@attrs.frozen
class _Calendars:
    """The workspace's hours and resource overrides, as one transaction read them."""

    hours: WorkingHours
    overrides: Mapping[int, Schedule]

    @property
    def zone(self) -> ZoneInfo:
        return self.hours.zone

    def openings(self, day: date, resource_id: int | None) -> Day:
        override = None if resource_id is None else self.overrides.get(resource_id)
        return openings_on(day, self.hours.schedule, override)

    def covers(self, resource_id: int | None, starts_at: datetime, ends_at: datetime) -> bool:
        day = local_day(starts_at, self.zone)
        return covers(open_ranges(day, self.openings(day, resource_id), self.zone), starts_at, ends_at)

    def outside_hours(self, resource: Resource | None, starts_at: datetime) -> ValidationFailed:
        day = local_day(starts_at, self.zone)
        whose = "working hours" if resource is None else f"the working hours of {resource.name}"
        openings = self.openings(day, None if resource is None else resource.id)
        return ValidationFailed.on(
            "starts_at", f"A booking must lie within {whose}: {describe_day(day, openings, self.hours.timezone)}."
        )

    def span(self, starts_at: datetime, ends_at: datetime) -> str:
        """`2026-03-27 10:00-11:00 (Europe/Berlin)`."""
        start, end = starts_at.astimezone(self.zone), ends_at.astimezone(self.zone)
        return f"{start.date().isoformat()} {start:%H:%M}-{end:%H:%M} ({self.hours.timezone})"


class BookingService:
    """Bookings: listing, availability, creating, rescheduling and the status moves (pending, confirmed,
    completed, cancelled), with no double booking of a calendar.

    Methods that name a booking raise :class:`.NotFound` when it is not in the account. Invalid input,
    a time outside the working hours or taken by another live booking, and a status move the state
    machine does not have (:mod:`engage_core.bookings.model`) raise :class:`.ValidationFailed` naming
    the field, and nothing is written. Changes emit `booking.created`, `booking.updated`,
    `booking.confirmed`, `booking.completed` or `booking.cancelled`."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    # -- reading ------------------------------------------------------------------------------

    def find(self, account_id: int, filters: BookingFilter, page: PageRequest) -> Page[Booking]:
        """`GET /bookings`, by `starts_at` then id, ascending."""
        errors = ErrorCollector()
        if filters.status is not None:
            errors.run(lambda: one_of("status", filters.status or "", BOOKING_STATUSES))
        for field, moment in (("from", filters.starts_from), ("to", filters.starts_to)):
            if moment is not None and moment.tzinfo is None:
                errors.errors[field] = [f"The {field} must be an ISO 8601 timestamp with a timezone."]
        if filters.starts_from and filters.starts_to and not errors.errors and filters.starts_to < filters.starts_from:
            errors.errors["to"] = ["The to must be a moment after or equal to from."]
        errors.raise_if_any()
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.bookings.find(filters, page)

    def get(self, account_id: int, booking_id: int) -> Booking:
        """The booking `booking_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _booking(uow, booking_id)

    def availability(
        self, account_id: int, booking_type_id: int, day: date, resource_id: int | None = None
    ) -> DayAvailability:
        """`GET /bookings/availability`: the slots of the type's duration on `day` (a date in the
        workspace's timezone), each marked available or not (see `engage_core.bookings.availability`)."""
        errors = ErrorCollector()
        errors.run(lambda: _positive("booking_type_id", booking_type_id))
        if resource_id is not None:
            errors.run(lambda: _positive("resource_id", resource_id))
        if not EARLIEST_YEAR <= day.year <= LATEST_YEAR:
            errors.errors["date"] = [f"The date must lie in the years {EARLIEST_YEAR} to {LATEST_YEAR}."]
        errors.raise_if_any()
        now = self._clock.now()
        with self._uow.workspace(account_id, readonly=True) as uow:
            booking_type = _type_field(uow, booking_type_id)
            calendars = _calendars(uow)
            if resource_id is not None:
                wanted: Sequence[int | None] = [_resource_field(uow, resource_id).id]
            else:
                wanted = [r.id for r in _active_resources(uow)] or [None]
            live = uow.bookings.live_between(*day_bounds(day, calendars.zone))
        slots = []
        for calendar in wanted:
            grid = slot_grid(day, calendars.openings(day, calendar), calendars.zone, booking_type.duration)
            busy = [(b.starts_at, b.ends_at) for b in live if b.resource_id == calendar]
            slots.append(calendar_slots(grid, busy, now))
        return DayAvailability(day, merge(slots))

    # -- booking ------------------------------------------------------------------------------

    def create(self, account_id: int, data: BookingInput) -> Booking:
        """`POST /bookings`: `ends_at` is `starts_at` plus the type's duration; the booking must not
        start in the past, must lie within working hours, and its calendar must be free (else 422,
        nothing written). Emits `booking.created`."""
        errors = ErrorCollector()
        errors.run(lambda: _positive("contact_id", data.contact_id))
        errors.run(lambda: _positive("booking_type_id", data.booking_type_id))
        if data.resource_id is not None:
            errors.run(lambda: _positive("resource_id", data.resource_id))
        errors.run(lambda: _moment("starts_at", data.starts_at))
        notes = errors.run(lambda: optional_text("notes", data.notes, max_length=NOTES_MAX))
        errors.run(lambda: one_of("status", data.status, CREATE_STATUSES))
        errors.raise_if_any()
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            contact = _contact_field(uow, data.contact_id)
            booking_type = _type_field(uow, data.booking_type_id)
            calendars = _calendars(uow)
            check_not_past(data.starts_at, now)
            starts_at, ends_at = data.starts_at, data.starts_at + booking_type.duration
            resource_id = _place(uow, calendars, data.resource_id, starts_at, ends_at)
            draft = BookingDraft(
                contact_id=contact.id,
                booking_type_id=booking_type.id,
                resource_id=resource_id,
                title=booking_title(booking_type.name, contact.name),
                starts_at=starts_at,
                ends_at=ends_at,
                status=data.status,
                notes=notes,
            )
            booking = uow.bookings.add(draft, now)
            for event in booking_events(None, booking, now, calendars.zone, contact):
                uow.emit(event)
            uow.commit()
        return booking

    def update(self, account_id: int, booking_id: int, patch: BookingPatch) -> Booking:
        """`PUT /bookings/{id}`: notes, and a reschedule when `starts_at` changes (live bookings only;
        same checks as a create, against every booking but this one). Emits `booking.updated`
        when anything changed."""
        errors = ErrorCollector()
        notes: str | Unset | None = UNSET
        if patch.starts_at is not UNSET:
            errors.run(lambda: _moment("starts_at", patch.starts_at))
        if patch.notes is not UNSET:
            checked: str | None = errors.run(lambda: optional_text("notes", _text(patch.notes), max_length=NOTES_MAX))
            notes = checked
        errors.raise_if_any()
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _booking(uow, booking_id)
            changed = current
            calendars = _calendars(uow)
            starts_at = patch.starts_at
            if starts_at is not UNSET and starts_at != current.starts_at:
                changed = reschedule(current, starts_at, now)
                resource = None if current.resource_id is None else _booked_resource(uow, current.resource_id)
                _hold(uow, calendars, resource, changed.starts_at, changed.ends_at, exclude_id=current.id)
            if notes is not UNSET and notes != current.notes:
                changed = attrs.evolve(changed, notes=notes, updated_at=now)
            return _save(uow, calendars, current, changed, now)

    def confirm(self, account_id: int, booking_id: int) -> Booking:
        """pending -> confirmed."""
        return self._move(account_id, booking_id, confirm)

    def complete(self, account_id: int, booking_id: int) -> Booking:
        """confirmed -> completed, once the booking has started; emits `booking.completed`."""
        return self._move(account_id, booking_id, complete)

    def cancel(self, account_id: int, booking_id: int, reason: str | None = None) -> Booking:
        """`POST /bookings/{id}/cancel`: pending or confirmed -> cancelled, freeing the time;
        emits `booking.cancelled`."""
        return self._move(account_id, booking_id, lambda booking, now: cancel(booking, now, reason))

    def _move(self, account_id: int, booking_id: int, move: _Move) -> Booking:
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _booking(uow, booking_id)
            return _save(uow, _calendars(uow), current, move(current, now), now)


def _save(
    uow: WorkspaceUnitOfWork, calendars: _Calendars, current: Booking, changed: Booking, now: datetime
) -> Booking:
    """Store `changed` and emit its events, in this transaction; nothing when nothing changed."""
    events = booking_events(current, changed, now, calendars.zone, uow.contacts.get(current.contact_id))
    if not events:
        return current  # leaving uncommitted writes nothing
    uow.bookings.update(changed)
    for event in events:
        uow.emit(event)
    uow.commit()
    return changed


def _place(
    uow: WorkspaceUnitOfWork, calendars: _Calendars, resource_id: int | None, starts_at: datetime, ends_at: datetime
) -> int | None:
    """The calendar a new booking goes to (module docstring), locked and checked free."""
    if resource_id is not None:
        resource = _resource_field(uow, resource_id)
        _hold(uow, calendars, resource, starts_at, ends_at)
        return resource.id
    active = _active_resources(uow)
    if not active:
        _hold(uow, calendars, None, starts_at, ends_at)
        return None
    working = [r for r in active if calendars.covers(r.id, starts_at, ends_at)]
    if not working:
        if not calendars.covers(None, starts_at, ends_at):
            raise calendars.outside_hours(None, starts_at)
        raise ValidationFailed.on(
            "starts_at", f"No resource works at {calendars.span(starts_at, ends_at)}; choose another time."
        )
    for resource in working:  # ascending id: every transaction takes these locks in the same order
        uow.bookings.lock_resource(resource.id)
        if not uow.bookings.overlapping(resource.id, starts_at, ends_at):
            return resource.id
    raise ValidationFailed.on(
        "starts_at", f"Every resource is already booked at {calendars.span(starts_at, ends_at)}; choose another time."
    )


def _hold(
    uow: WorkspaceUnitOfWork,
    calendars: _Calendars,
    resource: Resource | None,
    starts_at: datetime,
    ends_at: datetime,
    exclude_id: int | None = None,
) -> None:
    """Check that `[starts_at, ends_at)` is within the calendar's hours, lock the calendar, and
    check that no other live booking of it overlaps."""
    calendar = None if resource is None else resource.id
    if not calendars.covers(calendar, starts_at, ends_at):
        raise calendars.outside_hours(resource, starts_at)
    uow.bookings.lock_resource(calendar)
    clash = uow.bookings.overlapping(calendar, starts_at, ends_at, exclude_id)
    if clash:
        whose = "Another booking" if resource is None else f"{resource.name} is already booked: a booking"
        raise ValidationFailed.on(
            "starts_at",
            f"{whose} holds {calendars.span(clash[0].starts_at, clash[0].ends_at)}, which overlaps "
            f"{calendars.span(starts_at, ends_at)}; choose another time"
            + ("." if resource is None else " or resource."),
        )


def _calendars(uow: WorkspaceUnitOfWork) -> _Calendars:
    return _Calendars(uow.working_hours.get() or DEFAULT_HOURS, uow.working_hours.resource_schedules())


def _active_resources(uow: WorkspaceUnitOfWork) -> list[Resource]:
    return sorted((r for r in uow.resources.list() if r.is_active), key=lambda r: r.id)


def _booking(uow: WorkspaceUnitOfWork, booking_id: int) -> Booking:
    booking = uow.bookings.get(booking_id)
    if booking is None:
        raise NotFound("Booking")
    return booking


def _contact_field(uow: WorkspaceUnitOfWork, contact_id: int) -> Contact:
    contact = uow.contacts.get(contact_id)
    if contact is None:
        raise ValidationFailed.on("contact_id", "The selected contact does not exist.")
    return contact


def _type_field(uow: WorkspaceUnitOfWork, booking_type_id: int) -> BookingType:
    """The booking type named by a request field: unknown or inactive is a 422 on the field."""
    booking_type = uow.booking_types.get(booking_type_id)
    if booking_type is None:
        raise ValidationFailed.on("booking_type_id", "The selected booking type does not exist.")
    if not booking_type.is_active:
        raise ValidationFailed.on("booking_type_id", f"The booking type {booking_type.name} is not active.")
    return booking_type


def _resource_field(uow: WorkspaceUnitOfWork, resource_id: int) -> Resource:
    resource = uow.resources.get(resource_id)
    if resource is None:
        raise ValidationFailed.on("resource_id", "The selected resource does not exist.")
    if not resource.is_active:
        raise ValidationFailed.on("resource_id", f"The resource {resource.name} is not active.")
    return resource


def _booked_resource(uow: WorkspaceUnitOfWork, resource_id: int) -> Resource:
    """The resource of a booking being rescheduled: it must still be active."""
    resource = uow.resources.get(resource_id)
    if resource is None or not resource.is_active:
        name = "its resource" if resource is None else resource.name
        raise ValidationFailed.on(
            "starts_at", f"The booking cannot be rescheduled: {name} is no longer active; cancel it and book again."
        )
    return resource


def _positive(field: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationFailed.on(field, f"The {field.replace('_', ' ')} must be a positive whole number.")
    return value


def _moment(field: str, value: object) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise ValidationFailed.on(field, f"The {field.replace('_', ' ')} must be an ISO 8601 timestamp.")
    if not EARLIEST_YEAR <= value.year <= LATEST_YEAR:
        raise ValidationFailed.on(field, f"The {field.replace('_', ' ')} must lie in the years 1970 to 9998.")
    return value


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
