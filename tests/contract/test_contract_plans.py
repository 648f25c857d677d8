"""Plans and usage: the plan repository and service, the plan in force for a workspace, the usage
counts and report of a workspace, and a partner's usage summary, on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import attrs
import pytest
from partner_workspace import PartnerServices, client_input, partner_services
from support import NOW

from engage_core.accounts.account_service import AccountService
from engage_core.bookings.model import BookingDraft
from engage_core.bookings.setup import BookingTypeDraft
from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.channels import ChannelDraft
from engage_core.messaging.messages import MessageDraft
from engage_core.partners.client_service import ClientPatch
from engage_core.plans.entitlements import Entitlements
from engage_core.plans.model import CHANNELS, CONTACTS, MESSAGES_PER_MONTH, SEED_PLANS, TEAM_MEMBERS
from engage_core.plans.plan_service import PlanPatch
from engage_core.plans.usage import WorkspaceUsage
from engage_core.team.model import MemberDraft
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory

MARCH = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
MARCH_START, APRIL_START = datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC)


@pytest.fixture
def partner(uow: UnitOfWorkFactory, clock: FakeClock) -> PartnerServices:
    return partner_services(uow, clock)


@pytest.fixture
def partner_id(partner: PartnerServices) -> int:
    return partner.partners.create("Reseller", "ops@reseller.example").partner.id


@pytest.fixture
def entitlements(uow: UnitOfWorkFactory, clock: FakeClock) -> Entitlements:
    return Entitlements(uow, clock, "pro")


def test_by_slug_finds_a_plan_and_not_an_unknown_one(uow: UnitOfWorkFactory) -> None:
    """`by_slug` returns the stored plan, or None for a slug that is no plan."""
    with uow.partners(readonly=True) as unit:
        assert (unit.plans.by_slug("pro"), unit.plans.by_slug("gold")) == (SEED_PLANS[1], None)


def test_update_round_trips_name_limits_and_features(uow: UnitOfWorkFactory) -> None:
    """An updated plan reads back with its new name, limits and features."""
    changed = attrs.evolve(
        SEED_PLANS[0],
        name="Starter+",
        limits={**SEED_PLANS[0].limits, "contacts": 5},
        features=frozenset({"webhooks"}),
    )
    with uow.partners() as unit:
        unit.plans.update(changed)
        unit.commit()

    with uow.partners(readonly=True) as unit:
        assert unit.plans.by_slug("starter") == changed


def test_plan_service_update_merges_a_partial_patch(partner: PartnerServices) -> None:
    """The service changes only the limits and features named, and stores the result."""
    partner.plans.update("pro", PlanPatch(limits={"channels": 1}, features={"campaigns": False}))

    stored = partner.plans.get("pro")
    assert (stored.limit("channels"), stored.limit("contacts"), stored.has("campaigns"), stored.has("webhooks")) == (
        1,
        10_000,
        False,
        True,
    )


def test_unknown_plan_is_not_found(partner: PartnerServices) -> None:
    """Reading a plan that does not exist is NotFound."""
    with pytest.raises(NotFound):
        partner.plans.get("gold")


def test_workspace_without_partner_runs_on_the_default_plan(partner: PartnerServices, account: int) -> None:
    """A workspace no partner owns gets the configured default plan."""
    assert partner.entitlements.plan_of(account).slug == "business"


def test_client_runs_on_its_plan(partner: PartnerServices) -> None:
    """A client workspace's plan is its client record's."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input(plan="starter")).client

    assert partner.entitlements.plan_of(client.id).slug == "starter"


def test_deferred_plan_change_applies_at_the_next_boundary(partner: PartnerServices, clock: FakeClock) -> None:
    """A non-immediate change keeps the old plan until the cycle boundary, then the new one is in force."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    partner.clients.update(partner_id, client.id, ClientPatch(plan="pro"))
    before = partner.entitlements.plan_of(client.id).slug

    clock.advance(days=31)

    assert (before, partner.entitlements.plan_of(client.id).slug) == ("starter", "pro")


def test_a_workspace_without_a_partner_is_on_the_default_plan(
    uow: UnitOfWorkFactory, clock: FakeClock, entitlements: Entitlements
) -> None:
    """No client row: the configured default plan."""
    account_id = AccountService(uow, clock).create("Acme").account.id

    assert entitlements.plan_of(account_id).slug == "pro"


def test_a_client_is_on_its_plan_until_the_boundary_of_a_pending_one(
    partner: PartnerServices, partner_id: int, entitlements: Entitlements, clock: FakeClock
) -> None:
    """Before `pending_from` the client's plan; from that instant on, the pending one."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business"))
    assert pending.schedule.pending_from is not None
    clock.set(pending.schedule.pending_from - timedelta(microseconds=1))
    before = entitlements.plan_of(client.id)
    clock.set(pending.schedule.pending_from)

    assert (before.slug, entitlements.plan_of(client.id)) == ("starter", partner.plans.get("business"))


def _contact(uow: UnitOfWorkFactory, account: int, name: str, when: datetime, *, blacklisted: bool = False) -> Contact:
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name=name, type="instagram"), when)
        if blacklisted:
            contact = attrs.evolve(contact, blacklisted=True)
            unit.contacts.update(contact)
        unit.commit()
    return contact


def _message(
    uow: UnitOfWorkFactory, account: int, contact: Contact, direction: str, status: str, when: datetime
) -> None:
    with uow.workspace(account) as unit:
        unit.messages.add(MessageDraft(contact.id, direction, "instagram", "Hi", status), when)
        unit.commit()


def _count(uow: UnitOfWorkFactory, account: int, limit: str, since: datetime = MARCH_START) -> int:
    with uow.workspace(account, readonly=True) as unit:
        return unit.usage.count(limit, since)


def _report(uow: UnitOfWorkFactory, account: int) -> WorkspaceUsage:
    with uow.workspace(account, readonly=True) as unit:
        return unit.usage.report(MARCH_START, APRIL_START)


def _client_with(
    partner: PartnerServices,
    uow: UnitOfWorkFactory,
    partner_id: int,
    n: int,
    contacts: int,
    traffic: list[tuple[str, str, datetime]],
) -> int:
    """A client of the partner with `contacts` contacts and one message per (direction, status, when)."""
    client = partner.clients.create(partner_id, client_input(f"Client {n}", f"a@{n}.example")).client
    people = [_contact(uow, client.id, f"Contact {i}", MARCH - timedelta(days=40 * i)) for i in range(contacts)]
    for direction, status, when in traffic:
        _message(uow, client.id, people[0], direction, status, when)
    return client.id


def test_contacts_count_every_contact_of_the_account(
    uow: UnitOfWorkFactory, account: int, make_account: Callable[..., int]
) -> None:
    """`contacts` counts the account's contacts only, whenever created."""
    other = make_account("Other")
    _contact(uow, account, "Old", MARCH - timedelta(days=90))
    _contact(uow, account, "New", MARCH)
    _contact(uow, other, "Theirs", MARCH)

    assert _count(uow, account, CONTACTS) == 2


def test_messages_per_month_counts_outbound_since_the_start(uow: UnitOfWorkFactory, account: int) -> None:
    """Only outbound messages created at or after `since` count."""
    contact = _contact(uow, account, "Ada", MARCH)
    _message(uow, account, contact, "outbound", "sent", MARCH_START - timedelta(seconds=1))
    _message(uow, account, contact, "outbound", "sent", MARCH_START)
    _message(uow, account, contact, "outbound", "failed", MARCH)
    _message(uow, account, contact, "inbound", "delivered", MARCH)

    assert _count(uow, account, MESSAGES_PER_MONTH) == 2


def test_team_members_and_channels_are_counted(uow: UnitOfWorkFactory, account: int) -> None:
    """`team_members` counts members; `channels` counts settings, connected or not."""
    with uow.workspace(account) as unit:
        unit.team.add(MemberDraft("Ada", "ada@example.com", "admin"), "fake$x$y", MARCH)
        unit.channels.add(ChannelDraft("instagram", "ig-1"), MARCH)
        unit.channels.add(ChannelDraft("whatsapp", "wa-1"), MARCH)
        unit.commit()

    assert (_count(uow, account, TEAM_MEMBERS), _count(uow, account, CHANNELS)) == (1, 2)


def test_unknown_limit_is_an_error(uow: UnitOfWorkFactory, account: int) -> None:
    """A name that is no limit raises instead of counting nothing."""
    with pytest.raises(ValueError, match="unknown limit"):
        _count(uow, account, "widgets")


def test_report_counts_the_period_from_the_records(uow: UnitOfWorkFactory, account: int) -> None:
    """The report counts contacts, messages, bookings, members and connected channels as the fake does."""
    ada = _contact(uow, account, "Ada", MARCH)
    _contact(uow, account, "Old", MARCH - timedelta(days=40), blacklisted=True)
    for direction, status, when in [
        ("outbound", "sent", MARCH),
        ("outbound", "delivered", MARCH),
        ("outbound", "failed", MARCH),
        ("inbound", "delivered", MARCH),
        ("outbound", "sent", APRIL_START),  # the next period
    ]:
        _message(uow, account, ada, direction, status, when)
    with uow.workspace(account) as unit:
        kind = unit.booking_types.add(BookingTypeDraft("Call", 30), MARCH)
        for day, status in enumerate(["confirmed", "completed", "cancelled"], start=1):
            start = MARCH + timedelta(days=day)
            unit.bookings.add(
                BookingDraft(ada.id, kind.id, None, "Call", start, start + timedelta(minutes=30), status), MARCH
            )
        unit.team.add(MemberDraft("Ada", "ada@example.com", "admin"), "fake$x$y", MARCH)
        telegram = unit.channels.add(ChannelDraft("telegram", "tg-1"), MARCH)
        instagram = unit.channels.add(ChannelDraft("instagram", "ig-1"), MARCH)
        unit.channels.add(ChannelDraft("whatsapp", "wa-1"), MARCH)  # still connecting
        for channel in (telegram, instagram):
            unit.channels.update(attrs.evolve(channel, is_connected=True, sync_status="OK"))
        unit.commit()

    assert _report(uow, account) == WorkspaceUsage(
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


def test_client_usage_service_reports_a_past_month(uow: UnitOfWorkFactory, clock: FakeClock) -> None:
    """`usage(partner, client, "YYYY-MM")` counts that month's records of the client's workspace."""
    partner: PartnerServices = partner_services(uow, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input()).client
    ada = _contact(uow, client.id, "Ada", MARCH)
    _message(uow, client.id, ada, "outbound", "sent", MARCH)

    usage = partner.clients.usage(partner_id, client.id, "2026-03")

    assert (usage.period, usage.usage.messages_sent, usage.usage.contacts_created, usage.usage.team_members) == (
        "2026-03",
        1,
        1,
        1,
    )


def test_usage_summary_totals_every_client(uow: UnitOfWorkFactory, clock: FakeClock) -> None:
    """The partner summary adds up the clients' messages and contacts for the current month."""
    partner = partner_services(uow, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    for n in range(2):
        client = partner.clients.create(partner_id, client_input(f"Client {n}", f"a@{n}.example")).client
        contact = _contact(uow, client.id, "Ada", clock.now())
        _message(uow, client.id, contact, "outbound", "sent", clock.now())

    summary = partner.clients.usage_summary(partner_id, None, PageRequest())
    assert (summary.total_clients, summary.total_messages_sent, summary.total_contacts) == (2, 2, 2)


def test_usage_summary_lines_equal_each_clients_report(uow: UnitOfWorkFactory, clock: FakeClock) -> None:
    """Each line of the summary has the messages sent, contacts and AI sessions of its client's own report."""
    partner = partner_services(uow, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    other_id = partner.partners.create("Rival", "ops@rival.example").partner.id
    _client_with(partner, uow, other_id, 0, 2, [("outbound", "sent", MARCH)])  # another partner's
    clients = [
        _client_with(
            partner, uow, partner_id, 1, 3,
            [
                ("outbound", "sent", MARCH),
                ("outbound", "delivered", MARCH_START),
                ("outbound", "failed", MARCH),
                ("inbound", "delivered", MARCH),
                ("outbound", "sent", APRIL_START),  # the next period
                ("outbound", "sent", MARCH_START - timedelta(microseconds=1)),  # the previous one
            ],
        ),
        _client_with(partner, uow, partner_id, 2, 1, [("inbound", "read", MARCH), ("outbound", "read", MARCH)]),
        _client_with(partner, uow, partner_id, 3, 0, []),
    ]  # fmt: skip

    summary = partner.clients.usage_summary(partner_id, "2026-03", PageRequest())

    lines = [
        (line.client_id, line.messages_sent, line.contacts, line.ai_agent_sessions) for line in summary.clients.items
    ]
    reports = [(client, _report(uow, client)) for client in clients]
    expected = [(client, r.messages_sent, r.contacts_total, r.ai_agent_sessions) for client, r in reports]
    assert lines == expected == [(clients[0], 2, 3, 0), (clients[1], 1, 1, 0), (clients[2], 0, 0, 0)]


def test_storage_holds_the_seed_plans_in_ascending_id(uow: UnitOfWorkFactory) -> None:
    """An empty storage lists exactly `SEED_PLANS`, ascending id."""
    with uow.partners(readonly=True) as unit:
        assert list(unit.plans.list()) == list(SEED_PLANS)


def test_updating_an_unknown_slug_adds_no_plan(uow: UnitOfWorkFactory) -> None:
    """Plans are changed, never added: `update` of a slug that is no plan stores nothing."""
    with uow.partners() as unit:
        unit.plans.update(attrs.evolve(SEED_PLANS[0], slug="gold", name="Gold"))
        unit.commit()

    with uow.partners(readonly=True) as unit:
        assert (unit.plans.by_slug("gold"), list(unit.plans.list())) == (None, list(SEED_PLANS))


def test_in_force_is_none_only_for_a_slug_without_a_plan(uow: UnitOfWorkFactory, account: int) -> None:
    """`in_force` of a workspace without a partner is the default plan, or None when that slug has no plan."""
    with uow.partners(readonly=True) as unit:
        found = (unit.plans.in_force(account, NOW, "pro"), unit.plans.in_force(account, NOW, "gold"))

    assert found == (SEED_PLANS[1], None)


def test_in_force_follows_a_pending_plan_from_its_boundary(
    uow: UnitOfWorkFactory, partner: PartnerServices, partner_id: int
) -> None:
    """`in_force` of a client is its plan before `pending_from` and the pending plan from that instant on."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business")).schedule.pending_from
    assert pending is not None

    with uow.partners(readonly=True) as unit:
        found = [unit.plans.in_force(client.id, at, "pro") for at in (pending - timedelta(microseconds=1), pending)]

    assert [plan and plan.slug for plan in found] == ["starter", "business"]


def test_the_report_counts_contacts_created_in_the_half_open_period(uow: UnitOfWorkFactory, account: int) -> None:
    """A contact created at the period's start counts as created in it; one created at its end does not."""
    _contact(uow, account, "At the start", MARCH_START)
    _contact(uow, account, "At the end", APRIL_START)

    assert (_report(uow, account).contacts_created, _report(uow, account).contacts_total) == (1, 2)
