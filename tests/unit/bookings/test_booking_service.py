"""BookingService over the in-memory fakes: creating (ends_at, working hours, the past, no double
booking, choosing a resource), rescheduling, the status moves, listing, availability and events
(SPEC 3, 4, 6 Bookings)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.bookings.model import Booking, BookingFilter
from engage_core.bookings.setup import BookingTypeInput, BookingTypePatch, ResourceInput
from engage_core.bookings.working_hours import ExceptionInput, OpeningInput, ScheduleInput, WorkingHoursInput
from engage_core.contacts.model import Contact, ContactInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory, InMemoryWorkspaceUnitOfWork

BERLIN = ZoneInfo("Europe/Berlin")
MONDAY = date(2026, 1, 5)
"""A Monday after the unit tests' START (Thursday 2026-01-01 12:00 UTC)."""
SUNDAY = date(2026, 1, 4)


def at(day: date, clock: str) -> datetime:
    """A wall-clock time in Berlin (CET, UTC+1 in January) as a UTC instant."""
    hours, minutes = (int(part) for part in clock.split(":"))
    return datetime(day.year, day.month, day.day, hours, minutes, tzinfo=UTC) - timedelta(hours=1)


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def message_of(call: Callable[[], Any]) -> str:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.message


def events(store: InMemoryStore, name: str | None = None) -> list[DomainEvent]:
    return [e for e in store.events() if e.name.startswith("booking.") and (name is None or e.name == name)]


class Desk:
    """A Berlin workspace open Monday to Friday 09:00-12:00 and 13:00-17:00, with a one-hour type."""

    def __init__(self, services: Services, account_id: int, contact: Contact) -> None:
        self.services = services
        self.account = account_id
        self.contact = contact
        self.services.booking_setup.set_working_hours(
            account_id,
            WorkingHoursInput(
                "Europe/Berlin",
                weekly={
                    day: [OpeningInput("09:00", "12:00"), OpeningInput("13:00", "17:00")]
                    for day in ("monday", "tuesday", "wednesday", "thursday", "friday")
                },
            ),
        )
        self.hour = self.type("Consultation", 60)

    def type(self, name: str = "Consultation", minutes: int = 60) -> int:
        return self.services.booking_setup.create_type(self.account, BookingTypeInput(name, minutes)).id

    def resource(self, name: str = "Room A") -> int:
        return self.services.booking_setup.create_resource(self.account, ResourceInput(name, "room")).id

    def book(self, starts_at: datetime, **fields: Any) -> Booking:
        fields.setdefault("booking_type_id", self.hour)
        return self.services.bookings.create(
            self.account, BookingInput(contact_id=self.contact.id, starts_at=starts_at, **fields)
        )

    def slots(self, day: date, type_id: int | None = None, resource_id: int | None = None) -> dict[str, bool]:
        """Local start time -> available."""
        found = self.services.bookings.availability(self.account, type_id or self.hour, day, resource_id)
        return {s.starts_at.astimezone(BERLIN).strftime("%H:%M"): s.available for s in found.slots}


@pytest.fixture
def desk(services: Services, account_id: int, new_contact: Callable[..., Contact]) -> Desk:
    return Desk(services, account_id, new_contact())


# -- creating --------------------------------------------------------------------------------------


def test_ends_at_is_starts_at_plus_the_duration(desk: Desk) -> None:
    """A 45-minute type booked at 09:00 ends at 09:45."""
    booking = desk.book(at(MONDAY, "09:00"), booking_type_id=desk.type("Short", 45))
    assert booking.ends_at - booking.starts_at == timedelta(minutes=45)


def test_a_new_booking_is_confirmed_and_titled(desk: Desk) -> None:
    """The default status is confirmed; the title names type and customer."""
    booking = desk.book(at(MONDAY, "09:00"))
    assert (booking.status, booking.title, booking.resource_id) == ("confirmed", "Consultation with Ada", None)


def test_a_booking_can_be_created_pending(desk: Desk) -> None:
    """status pending asks for a later confirmation."""
    assert desk.book(at(MONDAY, "09:00"), status="pending").status == "pending"


@pytest.mark.parametrize("status", ["cancelled", "completed", "open"])
def test_a_booking_cannot_be_created_in_another_state(desk: Desk, status: str) -> None:
    """Only pending and confirmed are starting states."""
    assert "status" in errors_of(lambda: desk.book(at(MONDAY, "09:00"), status=status))


def test_an_unknown_contact_is_a_422(desk: Desk) -> None:
    """contact_id must name a contact of the workspace."""
    with pytest.raises(ValidationFailed) as caught:
        desk.services.bookings.create(desk.account, BookingInput(999, desk.hour, at(MONDAY, "09:00")))
    assert list(caught.value.errors) == ["contact_id"]


def test_an_inactive_type_cannot_be_booked(desk: Desk) -> None:
    """A deactivated booking type is refused on booking_type_id."""
    desk.services.booking_setup.deactivate_type(desk.account, desk.hour)
    assert "is not active" in errors_of(lambda: desk.book(at(MONDAY, "09:00")))["booking_type_id"][0]


def test_a_naive_start_is_refused(desk: Desk) -> None:
    """starts_at must carry a timezone."""
    assert "starts_at" in errors_of(lambda: desk.book(datetime(2026, 1, 5, 9)))


def test_a_booking_cannot_start_in_the_past(desk: Desk, clock: FakeClock) -> None:
    """Starting before now is a 422 on starts_at."""
    clock.set(at(MONDAY, "10:30"))
    assert "past" in message_of(lambda: desk.book(at(MONDAY, "10:00")))


def test_a_booking_outside_working_hours_is_refused(desk: Desk) -> None:
    """Across the lunch break: the message lists the day's hours in the workspace's zone."""
    message = message_of(lambda: desk.book(at(MONDAY, "11:30")))
    assert "on 2026-01-05 (Europe/Berlin) the hours are 09:00-12:00, 13:00-17:00" in message


def test_a_booking_on_a_closed_day_is_refused(desk: Desk) -> None:
    """Sunday has no hours."""
    assert "is closed" in message_of(lambda: desk.book(at(SUNDAY, "10:00")))


def test_a_holiday_exception_closes_the_day(desk: Desk) -> None:
    """A dated exception without openings closes an ordinary Monday."""
    hours = desk.services.booking_setup.working_hours(desk.account)
    desk.services.booking_setup.set_working_hours(
        desk.account,
        WorkingHoursInput(
            hours.timezone,
            weekly={"monday": [OpeningInput("09:00", "17:00")]},
            exceptions=[ExceptionInput(MONDAY)],
        ),
    )
    assert "is closed" in message_of(lambda: desk.book(at(MONDAY, "10:00")))


def test_a_resource_is_never_double_booked(desk: Desk) -> None:
    """A second booking overlapping the first on the same resource is a 422 naming the resource."""
    room = desk.resource("Room A")
    desk.book(at(MONDAY, "09:00"), resource_id=room)
    message = message_of(lambda: desk.book(at(MONDAY, "09:30"), resource_id=room, booking_type_id=desk.type("S", 30)))
    assert "Room A is already booked" in message
    assert "2026-01-05 09:00-10:00 (Europe/Berlin)" in message


def test_back_to_back_bookings_do_not_overlap(desk: Desk) -> None:
    """10:00 right after a 09:00-10:00 booking is fine: ranges are half-open."""
    room = desk.resource()
    desk.book(at(MONDAY, "09:00"), resource_id=room)
    assert desk.book(at(MONDAY, "10:00"), resource_id=room).resource_id == room


def test_without_resources_the_workspace_is_one_calendar(desk: Desk) -> None:
    """No resources: bookings without a resource do not overlap one another."""
    desk.book(at(MONDAY, "09:00"))
    assert "Another booking holds" in message_of(lambda: desk.book(at(MONDAY, "09:00")))


def test_the_first_free_resource_is_chosen(desk: Desk) -> None:
    """With no resource_id: the lowest-id free active resource, then the next."""
    first, second = desk.resource("A"), desk.resource("B")
    assert desk.book(at(MONDAY, "09:00")).resource_id == first
    assert desk.book(at(MONDAY, "09:00")).resource_id == second


def test_when_every_resource_is_booked_the_create_is_refused(desk: Desk) -> None:
    """Two resources, two bookings at 09:00: a third is a 422."""
    desk.resource("A")
    desk.resource("B")
    desk.book(at(MONDAY, "09:00"))
    desk.book(at(MONDAY, "09:00"))
    assert "Every resource is already booked" in message_of(lambda: desk.book(at(MONDAY, "09:00")))


def test_inactive_resources_are_not_chosen(desk: Desk) -> None:
    """A deactivated resource takes no new bookings."""
    old, new = desk.resource("Old"), desk.resource("New")
    desk.services.booking_setup.deactivate_resource(desk.account, old)
    assert desk.book(at(MONDAY, "09:00")).resource_id == new
    assert "is not active" in errors_of(lambda: desk.book(at(MONDAY, "10:00"), resource_id=old))["resource_id"][0]


def test_a_resource_with_its_own_hours_is_chosen_only_within_them(desk: Desk) -> None:
    """Room A works only mornings; an afternoon booking goes to Room B."""
    morning, other = desk.resource("A"), desk.resource("B")
    desk.services.booking_setup.set_resource_hours(
        desk.account, morning, ScheduleInput(weekly={"monday": [OpeningInput("09:00", "12:00")]})
    )
    assert desk.book(at(MONDAY, "14:00")).resource_id == other
    assert "working hours of A" in message_of(lambda: desk.book(at(MONDAY, "15:00"), resource_id=morning))


def test_another_workspaces_resource_is_unknown(
    desk: Desk, services: Services, new_account: Callable[..., int]
) -> None:
    """resource_id of another account is a 422 on resource_id: it does not exist here."""
    elsewhere = new_account("Other")
    resource = services.booking_setup.create_resource(elsewhere, ResourceInput("Theirs", "room")).id
    assert list(errors_of(lambda: desk.book(at(MONDAY, "09:00"), resource_id=resource))) == ["resource_id"]


def test_a_create_emits_booking_created_in_local_time(desk: Desk, store: InMemoryStore) -> None:
    """booking.created carries the Berlin date and times and the customer."""
    desk.book(at(MONDAY, "09:00"))
    (event,) = events(store, "booking.created")
    payload = event.payload
    assert (payload["booking_date"], payload["start_time"], payload["end_time"]) == ("2026-01-05", "09:00", "10:00")
    assert payload["customer_name"] == "Ada"


def test_a_refused_create_writes_nothing(desk: Desk, store: InMemoryStore) -> None:
    """A double booking leaves no booking and no event behind."""
    desk.book(at(MONDAY, "09:00"))
    with pytest.raises(ValidationFailed):
        desk.book(at(MONDAY, "09:00"))
    assert len(events(store)) == 1
    assert desk.services.bookings.find(desk.account, BookingFilter(), PageRequest()).total == 1


# -- rescheduling and notes ------------------------------------------------------------------------


def test_a_reschedule_moves_the_booking_and_keeps_its_length(desk: Desk) -> None:
    """PUT with starts_at moves both ends."""
    booking = desk.book(at(MONDAY, "09:00"))
    moved = desk.services.bookings.update(desk.account, booking.id, BookingPatch(starts_at=at(MONDAY, "14:00")))
    assert (moved.starts_at, moved.ends_at) == (at(MONDAY, "14:00"), at(MONDAY, "15:00"))


def test_a_reschedule_may_overlap_its_own_old_time(desk: Desk) -> None:
    """Moving by half an hour does not clash with itself."""
    booking = desk.book(at(MONDAY, "09:00"))
    moved = desk.services.bookings.update(desk.account, booking.id, BookingPatch(starts_at=at(MONDAY, "09:30")))
    assert moved.starts_at == at(MONDAY, "09:30")


def test_a_reschedule_onto_another_booking_is_refused(desk: Desk) -> None:
    """The new time is checked against every other live booking of the calendar."""
    desk.book(at(MONDAY, "10:00"))
    booking = desk.book(at(MONDAY, "14:00"))
    with pytest.raises(ValidationFailed):
        desk.services.bookings.update(desk.account, booking.id, BookingPatch(starts_at=at(MONDAY, "10:30")))
    assert desk.services.bookings.get(desk.account, booking.id).starts_at == at(MONDAY, "14:00")


def test_a_reschedule_outside_working_hours_is_refused(desk: Desk) -> None:
    """Moving onto Sunday is refused."""
    booking = desk.book(at(MONDAY, "09:00"))
    patch = BookingPatch(starts_at=at(SUNDAY + timedelta(days=7), "10:00"))
    assert "is closed" in message_of(lambda: desk.services.bookings.update(desk.account, booking.id, patch))


def test_a_reschedule_keeps_the_resource(desk: Desk) -> None:
    """A booking on Room A stays on Room A, and is refused when Room A is taken at the new time."""
    room, _ = desk.resource("A"), desk.resource("B")
    desk.book(at(MONDAY, "14:00"), resource_id=room)
    booking = desk.book(at(MONDAY, "09:00"), resource_id=room)
    patch = BookingPatch(starts_at=at(MONDAY, "14:00"))
    assert "A is already booked" in message_of(lambda: desk.services.bookings.update(desk.account, booking.id, patch))


def test_a_reschedule_emits_booking_updated(desk: Desk, store: InMemoryStore) -> None:
    """The updated payload has the new local start time."""
    booking = desk.book(at(MONDAY, "09:00"))
    desk.services.bookings.update(desk.account, booking.id, BookingPatch(starts_at=at(MONDAY, "15:00")))
    assert events(store, "booking.updated")[-1].payload["start_time"] == "15:00"


def test_notes_change_without_a_reschedule(desk: Desk, store: InMemoryStore) -> None:
    """Notes alone: saved, one booking.updated; the same notes again: no event."""
    booking = desk.book(at(MONDAY, "09:00"))
    desk.services.bookings.update(desk.account, booking.id, BookingPatch(notes="Bring forms"))
    desk.services.bookings.update(desk.account, booking.id, BookingPatch(notes="Bring forms"))
    assert desk.services.bookings.get(desk.account, booking.id).notes == "Bring forms"
    assert len(events(store, "booking.updated")) == 1


def test_a_cancelled_booking_cannot_be_rescheduled(desk: Desk) -> None:
    """Only live bookings move."""
    booking = desk.book(at(MONDAY, "09:00"))
    desk.services.bookings.cancel(desk.account, booking.id)
    with pytest.raises(ValidationFailed):
        desk.services.bookings.update(desk.account, booking.id, BookingPatch(starts_at=at(MONDAY, "10:00")))


# -- status moves ----------------------------------------------------------------------------------


def test_cancelling_frees_the_time(desk: Desk) -> None:
    """After a cancel the same time can be booked again."""
    booking = desk.book(at(MONDAY, "09:00"))
    desk.services.bookings.cancel(desk.account, booking.id, "Ill")
    assert desk.book(at(MONDAY, "09:00")).status == "confirmed"


def test_cancelling_emits_booking_cancelled(desk: Desk, store: InMemoryStore) -> None:
    """booking.cancelled carries status, cancelled_at and the reason."""
    booking = desk.book(at(MONDAY, "09:00"))
    desk.services.bookings.cancel(desk.account, booking.id, "Ill")
    payload = events(store, "booking.cancelled")[-1].payload
    assert (payload["status"], payload["cancellation_reason"]) == ("cancelled", "Ill")
    assert payload["cancelled_at"].endswith("Z")


def test_cancelling_twice_is_refused(desk: Desk) -> None:
    """A cancelled booking is final."""
    booking = desk.book(at(MONDAY, "09:00"))
    desk.services.bookings.cancel(desk.account, booking.id)
    assert "cancelled is final" in message_of(lambda: desk.services.bookings.cancel(desk.account, booking.id))


def test_confirming_a_pending_booking(desk: Desk) -> None:
    """pending -> confirmed."""
    booking = desk.book(at(MONDAY, "09:00"), status="pending")
    assert desk.services.bookings.confirm(desk.account, booking.id).status == "confirmed"


def test_completing_after_the_start(desk: Desk, clock: FakeClock, store: InMemoryStore) -> None:
    """A confirmed booking is completed once it has started, emitting booking.completed."""
    booking = desk.book(at(MONDAY, "09:00"))
    with pytest.raises(ValidationFailed):
        desk.services.bookings.complete(desk.account, booking.id)
    clock.set(at(MONDAY, "10:00"))
    assert desk.services.bookings.complete(desk.account, booking.id).status == "completed"
    assert events(store, "booking.completed")[-1].payload["status"] == "completed"


def test_an_unknown_booking_is_not_found(desk: Desk, new_account: Callable[..., int]) -> None:
    """Another workspace's booking is a 404 like a missing one."""
    booking = desk.book(at(MONDAY, "09:00"))
    with pytest.raises(NotFound):
        desk.services.bookings.get(new_account("Other"), booking.id)


# -- listing ---------------------------------------------------------------------------------------


def test_bookings_are_listed_by_start(desk: Desk) -> None:
    """GET /bookings orders by starts_at, whatever the creation order."""
    late = desk.book(at(MONDAY, "15:00"))
    early = desk.book(at(MONDAY, "09:00"))
    found = desk.services.bookings.find(desk.account, BookingFilter(), PageRequest())
    assert [b.id for b in found.items] == [early.id, late.id]


def test_bookings_filter_by_status_and_time(desk: Desk) -> None:
    """status and from/to narrow the list."""
    kept = desk.book(at(MONDAY, "15:00"))
    dropped = desk.book(at(MONDAY, "09:00"))
    desk.services.bookings.cancel(desk.account, dropped.id)
    filters = BookingFilter(status="confirmed", starts_from=at(MONDAY, "00:00"), starts_to=at(MONDAY, "23:59"))
    assert [b.id for b in desk.services.bookings.find(desk.account, filters, PageRequest()).items] == [kept.id]


def test_bookings_filter_checks_its_values(desk: Desk) -> None:
    """An unknown status and a naive moment are 422s."""
    filters = BookingFilter(status="done", starts_from=datetime(2026, 1, 1))
    assert set(errors_of(lambda: desk.services.bookings.find(desk.account, filters, PageRequest()))) == {
        "status",
        "from",
    }


# -- availability ----------------------------------------------------------------------------------


def test_availability_lists_the_slots_within_working_hours(desk: Desk) -> None:
    """Monday: 09, 10, 11, 13, 14, 15, 16, all free."""
    assert desk.slots(MONDAY) == dict.fromkeys(["09:00", "10:00", "11:00", "13:00", "14:00", "15:00", "16:00"], True)


def test_a_closed_day_has_no_slots(desk: Desk) -> None:
    """Sunday: an empty list."""
    assert desk.slots(SUNDAY) == {}


def test_a_booked_slot_is_unavailable_on_its_resource(desk: Desk) -> None:
    """Room A booked at 10:00: its 10:00 slot is unavailable, Room B's is not."""
    room_a, room_b = desk.resource("A"), desk.resource("B")
    desk.book(at(MONDAY, "10:00"), resource_id=room_a)
    assert desk.slots(MONDAY, resource_id=room_a)["10:00"] is False
    assert desk.slots(MONDAY, resource_id=room_b)["10:00"] is True


def test_without_a_resource_named_a_slot_is_unavailable_only_when_every_resource_is_booked(desk: Desk) -> None:
    """Two resources: one booking leaves 10:00 available, two make it unavailable."""
    desk.resource("A")
    desk.resource("B")
    desk.book(at(MONDAY, "10:00"))
    assert desk.slots(MONDAY)["10:00"] is True
    desk.book(at(MONDAY, "10:00"))
    assert desk.slots(MONDAY)["10:00"] is False


def test_cancelled_bookings_do_not_block_slots(desk: Desk) -> None:
    """Only live bookings hold their time."""
    booking = desk.book(at(MONDAY, "10:00"))
    desk.services.bookings.cancel(desk.account, booking.id)
    assert desk.slots(MONDAY)["10:00"] is True


def test_past_slots_are_unavailable(desk: Desk, clock: FakeClock) -> None:
    """At 10:15 the 09:00 and 10:00 slots are past; 11:00 is still open."""
    clock.set(at(MONDAY, "10:15"))
    slots = desk.slots(MONDAY)
    assert (slots["09:00"], slots["10:00"], slots["11:00"]) == (False, False, True)


def test_availability_uses_a_resources_own_hours(desk: Desk) -> None:
    """A resource working 08:00-10:00 offers 08:00 and 09:00 only."""
    room = desk.resource()
    desk.services.booking_setup.set_resource_hours(
        desk.account, room, ScheduleInput(weekly={"monday": [OpeningInput("08:00", "10:00")]})
    )
    assert desk.slots(MONDAY, resource_id=room) == {"08:00": True, "09:00": True}


def test_availability_of_an_inactive_type_is_refused(desk: Desk) -> None:
    """booking_type_id must name an active type."""
    desk.services.booking_setup.update_type(desk.account, desk.hour, BookingTypePatch(is_active=False))
    assert list(errors_of(lambda: desk.slots(MONDAY))) == ["booking_type_id"]


def test_availability_on_a_daylight_saving_day(desk: Desk) -> None:
    """Open all night on Berlin's spring day: hourly slots are 23, and none starts at 02:00 local."""
    desk.services.booking_setup.set_working_hours(
        desk.account,
        WorkingHoursInput("Europe/Berlin", exceptions=[ExceptionInput("2026-03-29", [OpeningInput("00:00", "24:00")])]),
    )
    found = desk.services.bookings.availability(desk.account, desk.hour, date(2026, 3, 29))
    assert len(found.slots) == 23
    assert all(s.starts_at.astimezone(BERLIN).hour != 2 for s in found.slots)


# -- locking ---------------------------------------------------------------------------------------


class RecordingFactory(InMemoryUnitOfWorkFactory):
    """Keeps every workspace unit of work it opened, so a test can read what it locked."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[InMemoryWorkspaceUnitOfWork] = []

    def workspace(self, account_id: int, *, readonly: bool = False) -> InMemoryWorkspaceUnitOfWork:
        opened = super().workspace(account_id, readonly=readonly)
        self.opened.append(opened)
        return opened


def test_choosing_a_resource_locks_candidates_in_ascending_id_order(clock: FakeClock) -> None:
    """With A busy, a create locks A, then B, and stops there: the order no two creates can deadlock on."""
    factory = RecordingFactory()
    services = Services.build(factory, clock)
    account = services.accounts.create("Acme").account.id
    desk = Desk(services, account, services.contacts.create(account, ContactInput(name="Ada", type="instagram")))
    a, b, _ = desk.resource("A"), desk.resource("B"), desk.resource("C")
    desk.book(at(MONDAY, "09:00"), resource_id=a)
    desk.book(at(MONDAY, "09:00"))
    assert factory.opened[-1].bookings.locked == [a, b]


def test_the_fake_refuses_an_overlap_check_without_the_lock(uow: InMemoryUnitOfWorkFactory, account_id: int) -> None:
    """The reference repository holds callers to lock_resource before overlapping."""
    with uow.workspace(account_id) as work, pytest.raises(RuntimeError):
        work.bookings.overlapping(None, at(MONDAY, "09:00"), at(MONDAY, "10:00"))
