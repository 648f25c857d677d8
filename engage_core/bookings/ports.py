"""What bookings need from storage: bookings, types, resources and working hours."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from engage_core.bookings.model import Booking, BookingDraft, BookingFilter
from engage_core.bookings.setup import BookingType, BookingTypeDraft, Resource, ResourceDraft
from engage_core.bookings.working_hours import Schedule, WorkingHours
from engage_core.kernel.pagination import Page, PageRequest


class BookingRepository(Protocol):
    """Bookings of one account.

    No double booking, on either engine, however many requests race: two live bookings (pending,
    confirmed) of one calendar never overlap. A calendar is a resource (`resource_id`), or None:
    the bookings without a resource, which a workspace without resources keeps one at a time. The
    services make every write that gives a booking a time (create, reschedule) in this order, in
    one transaction: `lock_resource(calendar)`, then `overlapping(calendar, ...)`, then `add` or
    `update`. The lock makes check and write atomic against every other such transaction:

    - PostgreSQL: `lock_resource` takes a transaction-level advisory lock on (account, calendar),
      e.g. `pg_advisory_xact_lock(hashtextextended('booking:' || :account || ':' ||
      coalesce(:resource, 0), 0))`, held until commit or rollback. The overlap query must see every
      booking committed before the lock was granted: READ COMMITTED gives that (each statement
      takes a fresh snapshot); under REPEATABLE READ the lock must come before the transaction's
      first query.
    - SQLite: a write transaction already holds the single write lock (`BEGIN IMMEDIATE`), so
      `lock_resource` has nothing to do.

    A transaction that locks several calendars (choosing a free resource) locks them in ascending
    id order, so two of them never deadlock."""

    def lock_resource(self, resource_id: int | None) -> None:
        """Serialise booking writes on this calendar (None: bookings without a resource) until the
        transaction ends. Called before `overlapping`, in a write transaction."""

    def add(self, draft: BookingDraft, now: datetime) -> Booking:
        """Store the booking; `created_at` = `updated_at` = `now`, `cancelled_at` and
        `cancellation_reason` None."""

    def get(self, booking_id: int) -> Booking | None:
        """The booking `booking_id`, or None."""

    def find(self, filters: BookingFilter, page: PageRequest) -> Page[Booking]:
        """`filters.matches` semantics; ordered by `starts_at`, then `id`, ascending."""

    def update(self, booking: Booking) -> None:
        """Store `status`, `starts_at`, `ends_at`, `resource_id`, `notes`, `cancelled_at`,
        `cancellation_reason` and `updated_at`."""

    def overlapping(
        self, resource_id: int | None, starts_at: datetime, ends_at: datetime, exclude_id: int | None = None
    ) -> Sequence[Booking]:
        """The live bookings of the calendar `resource_id` (None: `resource_id IS NULL`) whose range
        overlaps `[starts_at, ends_at)` (`starts_at < :ends_at AND ends_at > :starts_at`: touching
        ranges do not overlap), other than `exclude_id`; by `starts_at`. Only after
        `lock_resource(resource_id)` in the same transaction. An index on `(account_id,
        resource_id, starts_at)` serves it."""

    def live_between(self, starts_at: datetime, ends_at: datetime) -> Sequence[Booking]:
        """Every live booking, of any calendar, overlapping `[starts_at, ends_at)`, by `starts_at`
        then `id`: what availability reads for one day. A plain read, no lock."""


class BookingTypeRepository(Protocol):
    """Booking types of one account. Never deleted (bookings point at them)."""

    def add(self, draft: BookingTypeDraft, now: datetime) -> BookingType:
        """Store the type; `created_at` = `updated_at` = `now`."""

    def get(self, booking_type_id: int) -> BookingType | None:
        """The booking type `booking_type_id`, or None."""

    def list(self) -> Sequence[BookingType]:
        """Every type, active or not, ascending id."""

    def update(self, booking_type: BookingType) -> None:
        """Store `name`, `duration_minutes`, `description`, `is_active` and `updated_at`."""


class ResourceRepository(Protocol):
    """Bookable resources of one account. Never deleted (bookings point at them)."""

    def add(self, draft: ResourceDraft, now: datetime) -> Resource:
        """Store the resource; `created_at` = `updated_at` = `now`."""

    def get(self, resource_id: int) -> Resource | None:
        """The resource `resource_id`, or None."""

    def list(self) -> Sequence[Resource]:
        """Every resource, active or not, ascending id."""

    def update(self, resource: Resource) -> None:
        """Store `name`, `type`, `is_active` and `updated_at`."""


class WorkingHoursRepository(Protocol):
    """The workspace's timezone and working hours, and the resources' own schedules. A schedule is
    stored as its JSON document (`Schedule.document()`, read back with `Schedule.from_document`);
    the timezone is an IANA name, the workspace's timezone setting."""

    def get(self) -> WorkingHours | None:
        """The workspace's hours, or None when it never set them (the services use
        `working_hours.DEFAULT_HOURS`: UTC, open around the clock)."""

    def put(self, hours: WorkingHours) -> None:
        """Store the workspace's timezone and schedule, replacing any earlier ones."""

    def resource_schedules(self) -> Mapping[int, Schedule]:
        """Every resource's own schedule, by resource id (resources without one are left out)."""

    def put_resource(self, resource_id: int, schedule: Schedule) -> None:
        """Give the resource its own schedule, replacing any earlier one."""

    def clear_resource(self, resource_id: int) -> bool:
        """Drop the resource's own schedule; False when it had none."""


class BookingsRepositories(Protocol):
    """The bookings area's repositories, as a workspace unit of work hands them out."""

    @property
    def bookings(self) -> BookingRepository:
        """The bookings."""

    @property
    def booking_types(self) -> BookingTypeRepository:
        """The booking types."""

    @property
    def resources(self) -> ResourceRepository:
        """The resources."""

    @property
    def working_hours(self) -> WorkingHoursRepository:
        """The timezone, working hours and resource schedules."""
