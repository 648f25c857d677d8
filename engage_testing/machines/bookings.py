"""Bookings and availability as a state machine, driven by Hypothesis.

A Berlin workspace with two resources (one with hours of its own) is booked over five days around
the spring daylight-saving change, through the real `Services` over the storage `make_backend()`
gives (the in-memory fakes by default). Rules
create bookings (on a named resource or on whichever is free, confirmed or pending), reschedule,
cancel, confirm and complete them, and let the clock run. A plain model, whose working hours are
written out by hand as UTC ranges (an oracle independent of `engage_core.bookings.working_hours`), predicts
whether each request succeeds and which resource it gets.

After every step:

- no two live bookings on one resource overlap;
- the stored bookings agree with the model (status, resource, times);
- availability agrees with the stored bookings: for each day and resource, the slots are the
  duration's steps through the resource's hours, and a slot is available iff it has not started
  and no live booking on that resource overlaps it; asked without a resource, a slot is available
  iff some resource has it available.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from itertools import combinations
from typing import Any
from zoneinfo import ZoneInfo

import attrs
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, initialize, invariant, multiple, rule

from engage_core.bookings.booking_service import BookingInput, BookingPatch
from engage_core.bookings.model import Booking, BookingFilter
from engage_core.bookings.setup import BookingTypeInput, ResourceInput
from engage_core.bookings.working_hours import ExceptionInput, OpeningInput, ScheduleInput, WorkingHoursInput
from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock

from .base import EngageMachine, refused

START = datetime(2026, 3, 26, 6, 0, tzinfo=UTC)
EVERY = PageRequest(per_page=10_000)
"""Thursday morning; Berlin moves its clocks from 02:00 CET to 03:00 CEST on Sunday 29 March."""
DAYS = (date(2026, 3, 26), date(2026, 3, 27), date(2026, 3, 28), date(2026, 3, 29), date(2026, 3, 30))
END = datetime(2026, 3, 31, 0, 0, tzinfo=UTC)
DURATIONS = (30, 45, 60)
LIVE = {"pending", "confirmed"}
BERLIN = ZoneInfo("Europe/Berlin")

Range = tuple[datetime, datetime]
OPEN_QUARTERS = st.integers(24, 63)
"""Quarter hours of a UTC day from 06:00 to 16:00, where most opening hours lie: creates land there often."""


def z(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 3, day, hour, minute, tzinfo=UTC)


WORKSPACE_HOURS: dict[date, list[Range]] = {
    DAYS[0]: [(z(26, 8), z(26, 11)), (z(26, 12), z(26, 16))],  # 09-12, 13-17 CET
    DAYS[1]: [(z(27, 8), z(27, 11)), (z(27, 12), z(27, 16))],
    DAYS[2]: [(z(28, 9), z(28, 13))],  # Saturday 10-14 CET
    DAYS[3]: [(z(29, 0), z(29, 2))],  # the exception 01:00 CET - 04:00 CEST: two real hours
    DAYS[4]: [(z(30, 7), z(30, 10)), (z(30, 11), z(30, 15))],  # 09-12, 13-17 CEST
}
OWN_HOURS: dict[date, list[Range]] = {
    DAYS[0]: [(z(26, 7), z(26, 9)), (z(26, 12), z(26, 14))],  # 08-10, 13-15 CET
    DAYS[1]: [(z(27, 7), z(27, 9)), (z(27, 12), z(27, 14))],
    DAYS[2]: [(z(28, 7), z(28, 9)), (z(28, 12), z(28, 14))],
    DAYS[3]: [(z(29, 0), z(29, 2))],  # the workspace's exception applies to it too
    DAYS[4]: [(z(30, 6), z(30, 8)), (z(30, 11), z(30, 13))],  # 08-10, 13-15 CEST
}
"""Hand-computed UTC ranges of the setup `start` makes: the oracle for working hours."""


def overlaps(a: Range, b: Range) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@attrs.define
class ModelBooking:
    resource: int
    starts_at: datetime
    ends_at: datetime
    status: str


class BookingMachine(EngageMachine):
    bookings: Bundle[int] = Bundle("bookings")

    @initialize(target=bookings)
    def start(self) -> Any:
        self.clock = FakeClock(START)
        self.backend = self.make_backend()
        self.uow = self.backend.uow
        self.services = Services.build(self.uow, self.clock)
        self.account = self.services.accounts.create("Acme").account.id
        self.contact = self.services.contacts.create(self.account, ContactInput(name="Ada", type="instagram")).id
        setup = self.services.booking_setup
        weekdays = ("monday", "tuesday", "wednesday", "thursday", "friday")
        setup.set_working_hours(
            self.account,
            WorkingHoursInput(
                "Europe/Berlin",
                weekly={
                    **{d: [OpeningInput("09:00", "12:00"), OpeningInput("13:00", "17:00")] for d in weekdays},
                    "saturday": [OpeningInput("10:00", "14:00")],
                },
                exceptions=[ExceptionInput("2026-03-29", [OpeningInput("01:00", "04:00")])],
            ),
        )
        self.shared = setup.create_resource(self.account, ResourceInput("Room", "room")).id
        self.own = setup.create_resource(self.account, ResourceInput("Ada", "staff")).id
        every_day = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
        setup.set_resource_hours(
            self.account,
            self.own,
            ScheduleInput(
                weekly={d: [OpeningInput("08:00", "10:00"), OpeningInput("13:00", "15:00")] for d in every_day}
            ),
        )
        self.hours = {self.shared: WORKSPACE_HOURS, self.own: OWN_HOURS}
        self.types = {
            minutes: setup.create_type(self.account, BookingTypeInput(f"{minutes} min", minutes)).id
            for minutes in DURATIONS
        }
        self.model: dict[int, ModelBooking] = {}
        first = self.services.bookings.create(
            self.account, BookingInput(self.contact, self.types[60], z(26, 12), resource_id=self.shared)
        )
        self.model[first.id] = ModelBooking(self.shared, z(26, 12), z(26, 13), "confirmed")
        return first.id

    # -- the model ---------------------------------------------------------------------------------

    def _within_hours(self, resource: int, span: Range) -> bool:
        day = span[0].astimezone(BERLIN).date()
        return any(start <= span[0] and span[1] <= end for start, end in self.hours[resource].get(day, []))

    def _free(self, resource: int, span: Range, exclude: int | None = None) -> bool:
        return not any(
            b.resource == resource
            and b.status in LIVE
            and booking_id != exclude
            and overlaps((b.starts_at, b.ends_at), span)
            for booking_id, b in self.model.items()
        )

    def _bookable(self, resource: int, span: Range, exclude: int | None = None) -> bool:
        return self._within_hours(resource, span) and self._free(resource, span, exclude)

    # -- rules -------------------------------------------------------------------------------------

    @rule(
        target=bookings,
        minutes=st.sampled_from(DURATIONS),
        which=st.sampled_from(["shared", "own", None]),
        day=st.sampled_from(DAYS),
        quarter=st.one_of(st.integers(0, 95), OPEN_QUARTERS, OPEN_QUARTERS),
        status=st.sampled_from(["confirmed", "pending"]),
    )
    def create(self, minutes: int, which: str | None, day: date, quarter: int, status: str) -> Any:
        starts = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(minutes=15 * quarter)
        span = (starts, starts + timedelta(minutes=minutes))
        named = None if which is None else getattr(self, which)
        if starts < self.clock.now():
            expected = None
        elif named is not None:
            expected = named if self._bookable(named, span) else None
        else:
            expected = next((r for r in (self.shared, self.own) if self._bookable(r, span)), None)
        data = BookingInput(self.contact, self.types[minutes], starts, resource_id=named, status=status)
        if expected is None:
            with refused(ValidationFailed):
                self.services.bookings.create(self.account, data)
            event("create refused")
            return multiple()  # nothing for the bundle
        booking = self.services.bookings.create(self.account, data)
        assert (booking.resource_id, booking.starts_at, booking.ends_at, booking.status) == (expected, *span, status)
        self.model[booking.id] = ModelBooking(expected, span[0], span[1], status)
        event("created")
        return booking.id

    @rule(booking=bookings, shift=st.integers(-16, 16))
    def reschedule(self, booking: int, shift: int) -> None:
        model = self.model[booking]
        starts = model.starts_at + timedelta(minutes=15 * shift)
        span = (starts, starts + (model.ends_at - model.starts_at))
        patch = BookingPatch(starts_at=starts)
        if shift == 0:
            self.services.bookings.update(self.account, booking, patch)
            return
        if model.status not in LIVE or starts < self.clock.now() or not self._bookable(model.resource, span, booking):
            with refused(ValidationFailed):
                self.services.bookings.update(self.account, booking, patch)
            event("reschedule refused")
            return
        moved = self.services.bookings.update(self.account, booking, patch)
        assert (moved.resource_id, moved.starts_at, moved.ends_at) == (model.resource, *span)
        model.starts_at, model.ends_at = span
        event("rescheduled")

    @rule(booking=bookings)
    def cancel(self, booking: int) -> None:
        self._move(booking, "cancelled", self.services.bookings.cancel, allowed=model_live(self.model[booking]))

    @rule(booking=bookings)
    def confirm(self, booking: int) -> None:
        self._move(
            booking, "confirmed", self.services.bookings.confirm, allowed=self.model[booking].status == "pending"
        )

    @rule(booking=bookings)
    def complete(self, booking: int) -> None:
        model = self.model[booking]
        allowed = model.status == "confirmed" and model.starts_at <= self.clock.now()
        self._move(booking, "completed", self.services.bookings.complete, allowed=allowed)

    def _move(self, booking: int, to: str, call: Any, *, allowed: bool) -> None:
        if not allowed:
            with refused(ValidationFailed):
                call(self.account, booking)
            return
        assert call(self.account, booking).status == to
        self.model[booking].status = to
        event(f"moved to {to}")

    @rule(hours=st.sampled_from([0.25, 1, 3, 7, 16, 40]))
    def time_passes(self, hours: float) -> None:
        if self.clock.now() + timedelta(hours=hours) < END:
            self.clock.advance(hours=hours)

    # -- invariants --------------------------------------------------------------------------------

    def _stored(self) -> list[Booking]:
        return list(self.services.bookings.find(self.account, BookingFilter(), EVERY).items)

    @invariant()
    def no_resource_is_double_booked(self) -> None:
        live = [b for b in self._stored() if b.status in LIVE]
        for a, b in combinations(live, 2):
            assert a.resource_id != b.resource_id or not overlaps((a.starts_at, a.ends_at), (b.starts_at, b.ends_at))

    @invariant()
    def bookings_agree_with_the_model(self) -> None:
        stored = {b.id: (b.resource_id, b.starts_at, b.ends_at, b.status) for b in self._stored()}
        assert stored == {i: (m.resource, m.starts_at, m.ends_at, m.status) for i, m in self.model.items()}

    @invariant()
    def availability_agrees_with_the_bookings(self) -> None:
        now = self.clock.now()
        minutes = DURATIONS[len(self.model) % len(DURATIONS)]
        duration = timedelta(minutes=minutes)
        live = [(b.resource_id, (b.starts_at, b.ends_at)) for b in self._stored() if b.status in LIVE]
        for day in DAYS:
            per_resource: dict[Range, bool] = {}
            for resource in (self.shared, self.own):
                found = self.services.bookings.availability(self.account, self.types[minutes], day, resource)
                expected = [
                    (start + k * duration, start + (k + 1) * duration)
                    for start, end in self.hours[resource][day]
                    for k in range(int((end - start) / duration))
                ]
                assert [(s.starts_at, s.ends_at) for s in found.slots] == expected
                for slot in found.slots:
                    span = (slot.starts_at, slot.ends_at)
                    free = not any(r == resource and overlaps(span, booked) for r, booked in live)
                    assert slot.available == (slot.starts_at >= now and free), (resource, span)
                    per_resource[span] = per_resource.get(span, False) or slot.available
            merged = self.services.bookings.availability(self.account, self.types[minutes], day)
            assert {(s.starts_at, s.ends_at): s.available for s in merged.slots} == per_resource


def model_live(model: ModelBooking) -> bool:
    return model.status in LIVE
