"""Fixtures inside the workspace an operator's command names (`engage tickets show 1 TKT-000003`).

The API can only make things in the page's own workspace, and cannot make what only time brings (a
booking that has started), so these are made through the services over the served database, as the
CLI's tests do: a booking that has started is booked with the clock standing before its start.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from engage_core.agents.model import AgentInput
from engage_core.bookings.booking_service import BookingInput
from engage_core.bookings.setup import BookingTypeInput, ResourceInput
from engage_core.contacts.model import ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.support.tickets import TicketFilter
from engage_core.testing import FakeClock
from engage_sql import Database

DAYS_BACK = 14
"""How far back a started booking's day is looked for: the workspace's hours leave some days closed."""


class AccountFixtures:
    """Makes fixtures in any workspace of the served database; `n` numbers their names."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._made = 0

    def make(self, kind: str, account_id: int) -> int | None:
        """A new `kind` in the workspace `account_id`: its id; None for a kind made elsewhere."""
        self._made += 1
        n = self._made
        with self._services(datetime.now(UTC)) as services:
            if kind == "booking_type":
                return services.booking_setup.create_type(account_id, BookingTypeInput(f"Fixture {n}", 30)).id
            if kind == "resource":
                return services.booking_setup.create_resource(account_id, ResourceInput(f"Room {n}", "room")).id
            if kind == "department":
                return services.departments.create(account_id, f"Fixture {n}").id
            if kind == "ticket":
                return self._ticket(services, account_id, n)
            if kind == "agent":
                return services.ai_agents.create(account_id, AgentInput(f"Fixture {n}", "A fixture agent.")).id
        if kind == "booking":
            return self._started_booking(account_id, n)
        return None

    def tickets_up_to(self, account_id: int, number: int) -> None:
        """The workspace has at least `number` tickets, so its reference `TKT-<number>` names one."""
        with self._services(datetime.now(UTC)) as services:
            had = services.tickets.find(account_id, TicketFilter(), PageRequest(1, 1)).total
            for _ in range(had, number):
                self._made += 1
                self._ticket(services, account_id, self._made)

    def _ticket(self, services: Services, account_id: int, n: int) -> int:
        return services.tickets.create(account_id, TicketInput(f"Fixture {n}", "A fixture ticket.")).id

    def _started_booking(self, account_id: int, n: int) -> int:
        """A confirmed booking of a new type, in the first open slot of a recent past day."""
        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        with self._services(today) as services:
            contact = services.contacts.create(account_id, ContactInput(name=f"Fixture {n}", type="instagram"))
            booking_type = services.booking_setup.create_type(account_id, BookingTypeInput(f"Visit {n}", 30)).id
        for back in range(1, DAYS_BACK + 1):
            day = (today - timedelta(days=back)).date()
            with self._services(today - timedelta(days=back + 2)) as services:  # the day lies wholly ahead
                free = [s for s in services.bookings.availability(account_id, booking_type, day).slots if s.available]
                if free:
                    booked = BookingInput(contact.id, booking_type, free[0].starts_at)
                    return services.bookings.create(account_id, booked).id
        raise AssertionError(f"account {account_id} had no open slot in the last {DAYS_BACK} days")

    @contextmanager
    def _services(self, now: datetime) -> Iterator[Services]:
        clock = FakeClock(now)
        database = Database.connect(self.database_url, clock)
        try:
            yield Services.build(database.uow, clock)
        finally:
            database.dispose()
