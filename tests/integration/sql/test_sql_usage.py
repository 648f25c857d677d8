"""Usage in SQL: limits counted from the records, the usage report of a period, and limits that
hold under concurrent writes (lock, count, write in one transaction: `services.plans.reserve`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import attrs
import pytest

from engage_core.bookings.catalogue import BookingTypeDraft
from engage_core.bookings.model import BookingDraft
from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.channels import ChannelDraft
from engage_core.messaging.messages import MessageDraft
from engage_core.plans.entitlements import reserve
from engage_core.plans.model import CHANNELS, CONTACTS, MESSAGES_PER_MONTH, SEED_PLANS, TEAM_MEMBERS, Plan
from engage_core.plans.usage import WorkspaceUsage
from engage_core.team.model import MemberDraft
from engage_core.testing import FakeClock
from engage_sql import Database

from .concurrency import at_once, outcome
from .partner_support import PartnerServices, client_input, partner_services

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


def _report(database: Database, account: int) -> WorkspaceUsage:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.usage.report(MARCH_START, APRIL_START)


def test_contacts_count_every_contact_of_the_account(
    database: Database, account: int, make_account: Callable[..., int]
) -> None:
    """`contacts` counts the account's contacts only, whenever created."""
    other = make_account("Other")
    _contact(database, account, "Old", MARCH - timedelta(days=90))
    _contact(database, account, "New", MARCH)
    _contact(database, other, "Theirs", MARCH)

    assert _count(database, account, CONTACTS) == 2


def test_messages_per_month_counts_outbound_since_the_start(database: Database, account: int) -> None:
    """Only outbound messages created at or after `since` count."""
    contact = _contact(database, account, "Ada", MARCH)
    _message(database, account, contact, "outbound", "sent", MARCH_START - timedelta(seconds=1))
    _message(database, account, contact, "outbound", "sent", MARCH_START)
    _message(database, account, contact, "outbound", "failed", MARCH)
    _message(database, account, contact, "inbound", "delivered", MARCH)

    assert _count(database, account, MESSAGES_PER_MONTH) == 2


def test_team_members_and_channels_are_counted(database: Database, account: int) -> None:
    """`team_members` counts members; `channels` counts settings, connected or not."""
    with database.uow.workspace(account) as uow:
        uow.team.add(MemberDraft("Ada", "ada@example.com", "admin"), "fake$x$y", MARCH)
        uow.channels.add(ChannelDraft("instagram", "ig-1"), MARCH)
        uow.channels.add(ChannelDraft("whatsapp", "wa-1"), MARCH)
        uow.commit()

    assert (_count(database, account, TEAM_MEMBERS), _count(database, account, CHANNELS)) == (1, 2)


def test_unknown_limit_is_an_error(database: Database, account: int) -> None:
    """A name that is no limit raises instead of counting nothing."""
    with pytest.raises(ValueError, match="unknown limit"):
        _count(database, account, "widgets")


def test_report_counts_the_period_from_the_records(database: Database, account: int) -> None:
    """The report counts contacts, messages, bookings, members and connected channels as the fake does."""
    ada = _contact(database, account, "Ada", MARCH)
    _contact(database, account, "Old", MARCH - timedelta(days=40), blacklisted=True)
    for direction, status, when in [
        ("outbound", "sent", MARCH),
        ("outbound", "delivered", MARCH),
        ("outbound", "failed", MARCH),
        ("inbound", "delivered", MARCH),
        ("outbound", "sent", APRIL_START),  # the next period
    ]:
        _message(database, account, ada, direction, status, when)
    with database.uow.workspace(account) as uow:
        kind = uow.booking_types.add(BookingTypeDraft("Call", 30), MARCH)
        for day, status in enumerate(["confirmed", "completed", "cancelled"], start=1):
            start = MARCH + timedelta(days=day)
            uow.bookings.add(
                BookingDraft(ada.id, kind.id, None, "Call", start, start + timedelta(minutes=30), status), MARCH
            )
        uow.team.add(MemberDraft("Ada", "ada@example.com", "admin"), "fake$x$y", MARCH)
        telegram = uow.channels.add(ChannelDraft("telegram", "tg-1"), MARCH)
        instagram = uow.channels.add(ChannelDraft("instagram", "ig-1"), MARCH)
        uow.channels.add(ChannelDraft("whatsapp", "wa-1"), MARCH)  # still connecting
        for channel in (telegram, instagram):
            uow.channels.update(attrs.evolve(channel, is_connected=True, sync_status="OK"))
        uow.commit()

    assert _report(database, account) == WorkspaceUsage(
        contacts_total=2,
        contacts_created=1,
        contacts_blacklisted=1,
        messages_sent=2,
        messages_received=1,
        messages_failed=1,
        bookings_total=3,
        bookings_completed=1,
        bookings_cancelled=1,
        team_members=1,
        channels_connected=("instagram", "telegram"),
    )


def test_client_usage_service_reports_a_past_month(database: Database, clock: FakeClock) -> None:
    """`usage(partner, client, "YYYY-MM")` counts that month's records of the client's workspace."""
    partner: PartnerServices = partner_services(database, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input()).client
    ada = _contact(database, client.id, "Ada", MARCH)
    _message(database, client.id, ada, "outbound", "sent", MARCH)

    usage = partner.clients.usage(partner_id, client.id, "2026-03")

    assert (usage.period, usage.usage.messages_sent, usage.usage.contacts_created, usage.usage.team_members) == (
        "2026-03",
        1,
        1,
        1,
    )


def test_usage_summary_totals_every_client(database: Database, clock: FakeClock) -> None:
    """The partner summary adds up the clients' messages and contacts for the current month."""
    partner = partner_services(database, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    for n in range(2):
        client = partner.clients.create(partner_id, client_input(f"Client {n}", f"a@{n}.example")).client
        contact = _contact(database, client.id, "Ada", clock.now())
        _message(database, client.id, contact, "outbound", "sent", clock.now())

    summary = partner.clients.usage_summary(partner_id, None, PageRequest())
    assert (summary.total_clients, summary.total_messages_sent, summary.total_contacts) == (2, 2, 2)


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


def test_usage_summary_lines_equal_each_clients_report(database: Database, clock: FakeClock) -> None:
    """Each line of the summary has the messages sent, contacts and AI sessions of its client's own report."""
    partner = partner_services(database, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    other_id = partner.partners.create("Rival", "ops@rival.example").partner.id
    _client_with(partner, database, other_id, 0, 2, [("outbound", "sent", MARCH)])  # another partner's
    clients = [
        _client_with(
            partner, database, partner_id, 1, 3,
            [
                ("outbound", "sent", MARCH),
                ("outbound", "delivered", MARCH_START),
                ("outbound", "failed", MARCH),
                ("inbound", "delivered", MARCH),
                ("outbound", "sent", APRIL_START),  # the next period
                ("outbound", "sent", MARCH_START - timedelta(microseconds=1)),  # the previous one
            ],
        ),
        _client_with(partner, database, partner_id, 2, 1, [("inbound", "read", MARCH), ("outbound", "read", MARCH)]),
        _client_with(partner, database, partner_id, 3, 0, []),
    ]  # fmt: skip

    summary = partner.clients.usage_summary(partner_id, "2026-03", PageRequest())

    lines = [
        (line.client_id, line.messages_sent, line.contacts, line.ai_agent_sessions) for line in summary.clients.items
    ]
    reports = [(client, _report(database, client)) for client in clients]
    expected = [(client, r.messages_sent, r.contacts_total, r.ai_agent_sessions) for client, r in reports]
    assert lines == expected == [(clients[0], 2, 3, 0), (clients[1], 1, 1, 0), (clients[2], 0, 0, 0)]


def test_usage_summary_runs_as_many_statements_for_six_clients_as_for_two(
    database: Database, clock: FakeClock, statements: list[str]
) -> None:
    """The summary's statements do not grow with the number of clients."""
    partner = partner_services(database, clock)
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
