"""The bookings area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.bookings.booking_service import BookingService
from engage_core.bookings.setup_service import BookingSetupService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class BookingsServices:
    """The bookings area's services: bookings, and the booking setup."""

    bookings: BookingService
    booking_setup: BookingSetupService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.bookings = BookingService(deps.uow, deps.clock)
        self.booking_setup = BookingSetupService(deps.uow, deps.clock)
