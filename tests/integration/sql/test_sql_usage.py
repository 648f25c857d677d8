"""Usage on SQL only: the statements of the partner summary, and limits that hold under concurrent
writes (lock, count, write in one transaction: `services.plans.reserve`). What every adapter counts is
in tests/contract/test_contract_plans.py."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta

import attrs
from partner_workspace import PartnerServices, client_input, partner_services

from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.messages import MessageDraft
from engage_core.plans.entitlements import reserve
from engage_core.plans.model import CONTACTS, MESSAGES_PER_MONTH, SEED_PLANS, Plan
from engage_core.testing import FakeClock
from engage_sql import Database

from .concurrency import at_once, outcome

MARCH = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
MARCH_START, APRIL_START = datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC)


def _contact(database: Database, account: int, name: str, when: datetime, *, blacklisted: bool = False) -> Contact:
    with database.uow.workspace(account) as uow:
        contact = uow.contacts.add(ContactDraft(name=name, type="instagram"), when)
        if blacklisted:
            contact = attrs.evolve(contact, blacklisted=True)
            uow.contacts.update(contact)
        uow.commit()
    return contact


def _message(database: Database, account: int, contact: Contact, direction: str, status: str, when: datetime) -> None:
    with database.uow.workspace(account) as uow:
        uow.messages.add(MessageDraft(contact.id, direction, "instagram", "Hi", status), when)
        uow.commit()


def _count(database: Database, account: int, limit: str, since: datetime = MARCH_START) -> int:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.usage.count(limit, since)


def _client_with(
    partner: PartnerServices,
    database: Database,
    partner_id: int,
    n: int,
    contacts: int,
    traffic: list[tuple[str, str, datetime]],
) -> int:
    """A client of the partner with `contacts` contacts and one message per (direction, status, when)."""
    client = partner.clients.create(partner_id, client_input(f"Client {n}", f"a@{n}.example")).client
    people = [_contact(database, client.id, f"Contact {i}", MARCH - timedelta(days=40 * i)) for i in range(contacts)]
    for direction, status, when in traffic:
        _message(database, client.id, people[0], direction, status, when)
    return client.id


def test_usage_summary_runs_as_many_statements_for_six_clients_as_for_two(
    database: Database, clock: FakeClock, statements: list[str]
) -> None:
    """The summary's statements do not grow with the number of clients."""
    partner = partner_services(database.uow, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id

    def statements_of_summary() -> int:
        statements.clear()
        partner.clients.usage_summary(partner_id, "2026-03", PageRequest())
        return len(statements)

    for n in range(2):
        _client_with(partner, database, partner_id, n, 1, [("outbound", "sent", MARCH)])
    with_two = statements_of_summary()
    for n in range(2, 6):
        _client_with(partner, database, partner_id, n, 1, [("outbound", "sent", MARCH)])

    assert statements_of_summary() == with_two


def _plan_with(limit: str, maximum: int) -> Plan:
    return attrs.evolve(SEED_PLANS[2], limits={**SEED_PLANS[2].limits, limit: maximum})


def test_concurrent_contact_creates_stop_exactly_at_the_limit(database: Database, account: int) -> None:
    """30 threads each reserving a contact under a limit of 10 create exactly 10."""
    plan = _plan_with(CONTACTS, 10)

    def create(n: int) -> None:
        with database.uow.workspace(account) as uow:
            reserve(uow, plan, CONTACTS, MARCH)
            uow.contacts.add(ContactDraft(name=f"Contact {n}", type="instagram"), MARCH)
            uow.commit()

    results = at_once(30, create)

    assert (Counter(outcome(r) for r in results), _count(database, account, CONTACTS)) == (
        {"ok": 10, "PlanLimitReached plan_limit_reached": 20},
        10,
    )


def test_concurrent_sends_stop_exactly_at_the_monthly_limit(database: Database, account: int) -> None:
    """30 threads each reserving an outbound message under a monthly limit of 10 store exactly 10."""
    plan = _plan_with(MESSAGES_PER_MONTH, 10)
    contact = _contact(database, account, "Ada", MARCH)

    def send(n: int) -> None:
        with database.uow.workspace(account) as uow:
            reserve(uow, plan, MESSAGES_PER_MONTH, MARCH)
            uow.messages.add(MessageDraft(contact.id, "outbound", "instagram", f"Hi {n}", "sent"), MARCH)
            uow.commit()

    results = at_once(30, send)

    assert (Counter(outcome(r) for r in results), _count(database, account, MESSAGES_PER_MONTH)) == (
        {"ok": 10, "PlanLimitReached plan_limit_reached": 20},
        10,
    )
