"""The `BookingDesk` of the booking step (`engage_core.answering.booking`), over the bookings area:
availability from `BookingService.availability`, bookings made with `BookingService.create` (so
they follow every rule of a booking made through the API, and emit `booking.created`)."""

from __future__ import annotations

from datetime import datetime, timedelta

from engage_core.answering.booking import HORIZON_DAYS, OFFERED, Booked, SlotOffer
from engage_core.bookings.booking_service import BookingInput, BookingService
from engage_core.bookings.model import BookingFilter
from engage_core.bookings.setup_service import BookingSetupService
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest


class ServiceBookingDesk:
    """The workspace's bookings as an AI agent uses them (see `BookingDesk`)."""

    def __init__(self, bookings: BookingService, setup: BookingSetupService, clock: Clock) -> None:
        self._bookings = bookings
        self._setup = setup
        self._clock = clock

    def offer(self, account_id: int) -> SlotOffer | None:
        """The first free slot of each of the next days that have one, up to `OFFERED`, for the
        first active booking type (lowest id)."""
        types = self._setup.list_types(account_id, active_only=True)
        if not types:
            return None
        kind = min(types, key=lambda t: t.id)
        hours = self._setup.working_hours(account_id)
        timezone = hours.timezone
        today = self._clock.now().astimezone(hours.zone).date()
        starts: list[datetime] = []
        for offset in range(HORIZON_DAYS):
            if len(starts) == OFFERED:
                break
            day = self._bookings.availability(account_id, kind.id, today + timedelta(days=offset))
            free = next((slot for slot in day.slots if slot.available), None)
            if free is not None:
                starts.append(free.starts_at)
        return SlotOffer(kind.id, kind.name, timezone, tuple(starts))

    def book(self, account_id: int, contact_id: int, booking_type_id: int, starts_at: datetime) -> Booked | None:
        """Book it, unless the contact already has this booking (a retried job) or the slot is gone."""
        try:
            kind = self._setup.get_type(account_id, booking_type_id)
        except NotFound:
            return None
        timezone = self._setup.working_hours(account_id).timezone
        mine = self._bookings.find(
            account_id,
            BookingFilter(contact_id=contact_id, starts_from=starts_at, starts_to=starts_at),
            PageRequest(1, 10),
        )
        for booking in mine.items:
            if booking.booking_type_id == booking_type_id and booking.is_live:
                return Booked(booking.id, kind.name, timezone, booking.starts_at)
        if not kind.is_active:
            return None
        try:
            booking = self._bookings.create(account_id, BookingInput(contact_id, booking_type_id, starts_at))
        except ValidationFailed:  # taken meanwhile, or past, or outside the hours changed since
            return None
        return Booked(booking.id, kind.name, timezone, booking.starts_at)
