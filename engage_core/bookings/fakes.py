"""In-memory fakes of the bookings area's ports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import attrs

from engage_core.bookings.model import Booking, BookingDraft, BookingFilter
from engage_core.bookings.setup import BookingType, BookingTypeDraft, Resource, ResourceDraft
from engage_core.bookings.working_hours import Schedule, WorkingHours
from engage_core.kernel.memory import FakeArea, MemoryStore, Repo, State, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate


@attrs.define
class BookingsTables(Tables):
    """The bookings area's rows, by table."""

    bookings: dict[int, tuple[int, Booking]] = attrs.Factory(dict)
    booking_types: dict[int, tuple[int, BookingType]] = attrs.Factory(dict)
    resources: dict[int, tuple[int, Resource]] = attrs.Factory(dict)
    working_hours: dict[int, WorkingHours] = attrs.Factory(dict)  # account_id -> hours
    resource_hours: dict[int, tuple[int, Schedule]] = attrs.Factory(dict)  # resource id -> (account, own)


class _Repo(Repo):
    @property
    def _t(self) -> BookingsTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(BookingsTables)


class InMemoryBookingRepository(_Repo):
    """The reference semantics of `BookingRepository`. The store lock already serialises every
    transaction, so `lock_resource` only records the lock; `overlapping` refuses to run on a
    calendar not locked in this transaction, holding the services to the order every adapter's
    double-booking guarantee relies on."""

    def __init__(self, store: MemoryStore, state: State, account_id: int = 0) -> None:
        super().__init__(store, state, account_id)
        self.locked: list[int | None] = []
        """Calendars locked in this transaction, in the order they were locked."""

    def _mine(self) -> list[Booking]:
        found = [b for (a, b) in self._t.bookings.values() if a == self._account]
        return sorted(found, key=lambda b: (b.starts_at, b.id))

    def lock_resource(self, resource_id: int | None) -> None:
        """In memory, as :meth:`.BookingRepository.lock_resource`."""
        if resource_id not in self.locked:
            self.locked.append(resource_id)

    def add(self, draft: BookingDraft, now: datetime) -> Booking:
        """In memory, as :meth:`.BookingRepository.add`."""
        booking = Booking(
            id=self._store.next_id(),
            contact_id=draft.contact_id,
            booking_type_id=draft.booking_type_id,
            resource_id=draft.resource_id,
            title=draft.title,
            starts_at=draft.starts_at,
            ends_at=draft.ends_at,
            status=draft.status,
            notes=draft.notes,
            created_at=now,
            updated_at=now,
        )
        self._t.bookings[booking.id] = (self._account, booking)
        return booking

    def get(self, booking_id: int) -> Booking | None:
        """In memory, as :meth:`.BookingRepository.get`."""
        row = self._t.bookings.get(booking_id)
        return None if row is None or row[0] != self._account else row[1]

    def find(self, filters: BookingFilter, page: PageRequest) -> Page[Booking]:
        """In memory, as :meth:`.BookingRepository.find`."""
        return paginate([b for b in self._mine() if filters.matches(b)], page)

    def update(self, booking: Booking) -> None:
        """In memory, as :meth:`.BookingRepository.update`."""
        current = self.get(booking.id)
        if current is not None:
            self._t.bookings[booking.id] = (
                self._account,
                attrs.evolve(
                    current,
                    status=booking.status,
                    starts_at=booking.starts_at,
                    ends_at=booking.ends_at,
                    resource_id=booking.resource_id,
                    notes=booking.notes,
                    cancelled_at=booking.cancelled_at,
                    cancellation_reason=booking.cancellation_reason,
                    updated_at=booking.updated_at,
                ),
            )

    def overlapping(
        self, resource_id: int | None, starts_at: datetime, ends_at: datetime, exclude_id: int | None = None
    ) -> Sequence[Booking]:
        """In memory, as :meth:`.BookingRepository.overlapping`."""
        if resource_id not in self.locked:
            raise RuntimeError(f"overlapping({resource_id}) before lock_resource({resource_id}) in this transaction")
        return [
            b
            for b in self._mine()
            if b.resource_id == resource_id
            and b.is_live
            and b.id != exclude_id
            and b.starts_at < ends_at
            and starts_at < b.ends_at
        ]

    def live_between(self, starts_at: datetime, ends_at: datetime) -> Sequence[Booking]:
        """In memory, as :meth:`.BookingRepository.live_between`."""
        return [b for b in self._mine() if b.is_live and b.starts_at < ends_at and starts_at < b.ends_at]


class InMemoryBookingTypeRepository(_Repo):
    """The in-memory :class:`.BookingTypeRepository`."""

    def add(self, draft: BookingTypeDraft, now: datetime) -> BookingType:
        """In memory, as :meth:`.BookingTypeRepository.add`."""
        booking_type = BookingType(
            self._store.next_id(), draft.name, draft.duration_minutes, draft.description, draft.is_active, now, now
        )
        self._t.booking_types[booking_type.id] = (self._account, booking_type)
        return booking_type

    def get(self, booking_type_id: int) -> BookingType | None:
        """In memory, as :meth:`.BookingTypeRepository.get`."""
        row = self._t.booking_types.get(booking_type_id)
        return None if row is None or row[0] != self._account else row[1]

    def list(self) -> Sequence[BookingType]:
        """In memory, as :meth:`.BookingTypeRepository.list`."""
        return sorted((t for (a, t) in self._t.booking_types.values() if a == self._account), key=lambda t: t.id)

    def update(self, booking_type: BookingType) -> None:
        """In memory, as :meth:`.BookingTypeRepository.update`."""
        current = self.get(booking_type.id)
        if current is not None:
            self._t.booking_types[booking_type.id] = (
                self._account,
                attrs.evolve(booking_type, created_at=current.created_at),
            )


class InMemoryResourceRepository(_Repo):
    """The in-memory :class:`.ResourceRepository`."""

    def add(self, draft: ResourceDraft, now: datetime) -> Resource:
        """In memory, as :meth:`.ResourceRepository.add`."""
        resource = Resource(self._store.next_id(), draft.name, draft.type, draft.is_active, now, now)
        self._t.resources[resource.id] = (self._account, resource)
        return resource

    def get(self, resource_id: int) -> Resource | None:
        """In memory, as :meth:`.ResourceRepository.get`."""
        row = self._t.resources.get(resource_id)
        return None if row is None or row[0] != self._account else row[1]

    def list(self) -> Sequence[Resource]:
        """In memory, as :meth:`.ResourceRepository.list`."""
        return sorted((r for (a, r) in self._t.resources.values() if a == self._account), key=lambda r: r.id)

    def update(self, resource: Resource) -> None:
        """In memory, as :meth:`.ResourceRepository.update`."""
        current = self.get(resource.id)
        if current is not None:
            self._t.resources[resource.id] = (self._account, attrs.evolve(resource, created_at=current.created_at))


class InMemoryWorkingHoursRepository(_Repo):
    """The in-memory :class:`.WorkingHoursRepository`."""

    def get(self) -> WorkingHours | None:
        """In memory, as :meth:`.WorkingHoursRepository.get`."""
        return self._t.working_hours.get(self._account)

    def put(self, hours: WorkingHours) -> None:
        """In memory, as :meth:`.WorkingHoursRepository.put`."""
        self._t.working_hours[self._account] = hours

    def resource_schedules(self) -> Mapping[int, Schedule]:
        """In memory, as :meth:`.WorkingHoursRepository.resource_schedules`."""
        return {rid: schedule for rid, (a, schedule) in self._t.resource_hours.items() if a == self._account}

    def put_resource(self, resource_id: int, schedule: Schedule) -> None:
        """In memory, as :meth:`.WorkingHoursRepository.put_resource`."""
        self._t.resource_hours[resource_id] = (self._account, schedule)

    def clear_resource(self, resource_id: int) -> bool:
        """In memory, as :meth:`.WorkingHoursRepository.clear_resource`."""
        row = self._t.resource_hours.get(resource_id)
        if row is None or row[0] != self._account:
            return False
        del self._t.resource_hours[resource_id]
        return True


AREA = FakeArea(
    BookingsTables,
    workspace={
        "bookings": InMemoryBookingRepository,
        "booking_types": InMemoryBookingTypeRepository,
        "resources": InMemoryResourceRepository,
        "working_hours": InMemoryWorkingHoursRepository,
    },
)
