"""The testing kit's state machines over a real database (SQLite and PostgreSQL): the rules and
invariants engage's unit tests run over the fakes, through the `make_backend` hook a user overrides."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from databases import wipe
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test
from sqlalchemy import select

from engage_core.jobs.ports import JobQueue
from engage_core.kernel.events import DomainEvent
from engage_core.webhooks.ports import DeliveryQueue
from engage_sql import Database
from engage_sql.partners.tables import partner_events
from engage_sql.webhooks.tables import events
from engage_testing.machines import (
    BookingMachine,
    CampaignMachine,
    ChannelMachine,
    DeliveryMachine,
    EngageMachine,
    OrderStockMachine,
    PartnerClientMachine,
    TicketMachine,
    WebChatSessionMachine,
)
from engage_testing.machines.base import Backend

RUNS = settings(max_examples=6, stateful_step_count=15, deadline=None)
"""A few runs each: the unit tests run many more over the fakes; these check the SQL adapter keeps the rules."""


class SqlBackend:
    """A migrated database, emptied for each run (the workers' queues span every account): its units
    of work and queues, and its outboxes read back from the `events` and `partner_events` tables."""

    def __init__(self, database: Database) -> None:
        wipe(database)
        self.database = database
        self.uow = database.uow

    def events(self, account_id: int) -> Sequence[DomainEvent]:
        query = select(events.c.name, events.c.payload, events.c.occurred_at).where(events.c.account_id == account_id)
        with self.database.engine.connect() as connection:
            rows = connection.execute(query.order_by(events.c.id)).all()
        return [DomainEvent(name, payload, occurred_at) for name, payload, occurred_at in rows]

    def partner_events(self, partner_id: int) -> Sequence[DomainEvent]:
        table = partner_events
        query = select(table.c.name, table.c.payload, table.c.occurred_at).where(table.c.partner_id == partner_id)
        with self.database.engine.connect() as connection:
            rows = connection.execute(query.order_by(table.c.id)).all()
        return [DomainEvent(name, payload, occurred_at) for name, payload, occurred_at in rows]

    def delivery_queue(self) -> DeliveryQueue:
        return self.database.delivery_queue()

    def job_queue(self) -> JobQueue:
        return self.database.job_queue()


def _over(database: Database, machine: type[EngageMachine]) -> type[EngageMachine]:
    """`machine` with its backend hook pointed at `database` (each run works in an account of its own)."""

    class OverSql(machine):  # type: ignore[valid-type,misc]
        def make_backend(self) -> Backend:
            return SqlBackend(database)

    OverSql.__name__ = f"{machine.__name__}OverSql"
    return OverSql


MACHINES = [
    OrderStockMachine,
    TicketMachine,
    BookingMachine,
    ChannelMachine,
    PartnerClientMachine,
    DeliveryMachine,
    CampaignMachine,
    WebChatSessionMachine,
]


@pytest.mark.parametrize("machine", MACHINES, ids=lambda m: m.__name__)
def test_the_kit_machines_hold_over_sql(database: Database, machine: type[EngageMachine]) -> None:
    """Every rule and invariant of the machine holds over the SQL adapter as over the fakes."""
    run_state_machine_as_test(_over(database, machine), settings=RUNS)
