"""Support tickets as a state machine over the in-memory fakes: the kit's
:class:`engage_testing.machines.tickets.TicketMachine`, whose module says what it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.tickets import TicketMachine

TicketMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
test_ticket_machine = TicketMachine.TestCase
test_ticket_machine.__doc__ = (
    "Tickets move only as SPEC 3 says, closed tickets take no reply, and every change is in the outbox."
)
