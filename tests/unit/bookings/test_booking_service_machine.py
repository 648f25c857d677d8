"""Bookings and availability as a state machine over the in-memory fakes: the kit's
:class:`engage_testing.machines.bookings.BookingMachine`, whose module says what it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.bookings import BookingMachine

BookingMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=25, deadline=None)
test_booking_machine = BookingMachine.TestCase
test_booking_machine.__doc__ = (
    "No resource is ever double-booked, and availability always agrees with the stored bookings."
)
