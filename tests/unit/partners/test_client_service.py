"""Partners and their client workspaces over the in-memory fakes: keys, provisioning, listing,
plan changes, suspension, deletion, usage, impersonation and partner-level events
(`engage_core.partners.partner_service`, `engage_core.partners.client_service`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from engage_core.accounts import keys as api_keys
from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import ContactFilter, ContactInput
from engage_core.kernel.errors import Conflict, Forbidden, NotFound, Unauthenticated, ValidationFailed
from engage_core.kernel.events import EVENTS_MAX, PARTNER_CATALOGUE, DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.messages import MessageDraft
from engage_core.partners.client_service import AdminInput, ClientInput, ClientPatch
from engage_core.partners.fakes import PartnersTables
from engage_core.partners.model import ClientFilter, Impersonation
from engage_core.partners.partner_service import PartnerWebhookInput, PartnerWebhookPatch
from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.team.service import MemberInput
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    InMemoryStore,
    InMemoryUnitOfWorkFactory,
)

NewClient = Callable[..., int]
Message = Callable[[int, str, str], None]


@pytest.fixture
def mailer() -> FakeMailer:
    return FakeMailer()


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, mailer: FakeMailer) -> Services:
    return Services.build(
        uow, clock, hasher=FakePasswordHasher(), mailer=mailer, cipher=FakeCipher(), guard=AllowAllTargets()
    )


@pytest.fixture
def partner(services: Services) -> int:
    return services.partners.create("Reseller", "ops@reseller.example").partner.id


@pytest.fixture
def new_client(services: Services, partner: int) -> NewClient:
    """`new_client(name="Client", plan="pro", email=None, partner=None, **fields) -> client id`."""
    count = iter(range(1, 10_000))

    def make(
        name: str = "Client",
        plan: str = "pro",
        email: str | None = None,
        partner_id: int | None = None,
        **fields: object,
    ) -> int:
        address = email or f"admin{next(count)}@client.example"
        data = ClientInput(name, plan, AdminInput("Ada", "Lovelace", address), **fields)  # type: ignore[arg-type]
        return services.partner_clients.create(partner if partner_id is None else partner_id, data).client.id

    return make


def partner_events(store: InMemoryStore, name: str) -> list[dict[str, object]]:
    return [dict(e.payload) for _, e in store.state.of(PartnersTables).partner_events if e.name == name]


# -- partners and keys -----------------------------------------------------------------------------


def test_a_partner_starts_active_with_the_plans_seats(services: Services) -> None:
    """A new agency partner is active with the agency seat count and a slug from its company."""
    partner = services.partners.create("Acme Partners", "ops@acme.example").partner
    assert (partner.status, partner.plan, partner.client_seats_max, partner.slug) == (
        "active",
        "agency",
        25,
        "acme-partners",
    )


def test_a_partner_key_has_the_partner_prefix(services: Services) -> None:
    """The key is 44 characters, starts with enp_, and is never a well-formed workspace key."""
    key = services.partners.create("Acme", "ops@acme.example").partner_key
    assert (len(key), key[:4]) == (44, "enp_")
    assert not api_keys.is_well_formed(key)


def test_the_partner_key_authenticates_its_partner(services: Services) -> None:
    """authenticate() with the issued key returns that partner."""
    made = services.partners.create("Acme", "ops@acme.example")
    assert services.partners.authenticate(made.partner_key).id == made.partner.id


def test_a_workspace_key_is_not_a_partner_key(services: Services, account_id: int) -> None:
    """A valid workspace key on the partner side is 401."""
    key = services.accounts.rotate_key(account_id).api_key
    with pytest.raises(Unauthenticated):
        services.partners.authenticate(key)


def test_a_partner_key_is_not_a_workspace_key(services: Services) -> None:
    """A valid partner key on the workspace side is 401."""
    key = services.partners.create("Acme", "ops@acme.example").partner_key
    with pytest.raises(Unauthenticated):
        services.accounts.authenticate(key)


def test_a_rotated_key_replaces_the_old_one(services: Services) -> None:
    """After rotate_key the old key is 401 and the new one works."""
    made = services.partners.create("Acme", "ops@acme.example")
    fresh = services.partners.rotate_key(made.partner.id).partner_key
    with pytest.raises(Unauthenticated):
        services.partners.authenticate(made.partner_key)
    assert services.partners.authenticate(fresh).id == made.partner.id


def test_a_suspended_partner_is_403(services: Services) -> None:
    """A suspended partner's valid key is Forbidden with code partner_suspended; activate restores it."""
    made = services.partners.create("Acme", "ops@acme.example")
    services.partners.suspend(made.partner.id)
    with pytest.raises(Forbidden) as caught:
        services.partners.authenticate(made.partner_key)
    assert caught.value.code == "partner_suspended"
    services.partners.activate(made.partner.id)
    assert services.partners.authenticate(made.partner_key).status == "active"


def test_partner_slugs_are_unique(services: Services) -> None:
    """A second partner of the same company name gets a numbered slug."""
    services.partners.create("Acme", "a@acme.example")
    assert services.partners.create("Acme", "b@acme.example").partner.slug == "acme-2"


@pytest.mark.parametrize(
    ("company", "email", "plan"),
    [(" ", "a@b.example", "agency"), ("A", "nope", "agency"), ("A", "a@b.example", "gold")],
)
def test_a_bad_partner_is_422(services: Services, company: str, email: str, plan: str) -> None:
    """Blank company, malformed e-mail and unknown partner plan are refused."""
    with pytest.raises(ValidationFailed):
        services.partners.create(company, email, plan)


# -- provisioning ----------------------------------------------------------------------------------


def test_creating_a_client_makes_an_active_workspace(services: Services, partner: int) -> None:
    """The client is active, on its plan, and its workspace account exists under its company name."""
    made = services.partner_clients.create(
        partner, ClientInput("Bright Dental", "starter", AdminInput("Ada", "Lovelace", "ada@bright.example"))
    )
    assert (made.client.status, made.client.plan_at(datetime.now(UTC)), made.client.slug) == (
        "active",
        "starter",
        "bright-dental",
    )
    assert services.accounts.get(made.client.id).name == "Bright Dental"


def test_the_client_admin_is_a_team_member(services: Services, partner: int) -> None:
    """The admin is stored as an admin team member of the workspace and is the primary user."""
    made = services.partner_clients.create(
        partner, ClientInput("Bright", "pro", AdminInput("Ada", "Lovelace", "ada@bright.example", "+966501234567"))
    )
    member = services.team.get(made.client.id, made.client.primary_user.id or 0)
    assert (member.name, member.email, member.role) == ("Ada Lovelace", "ada@bright.example", "admin")
    assert made.client.primary_user.phone == "+966501234567"


def test_the_admin_is_invited(services: Services, partner: int, mailer: FakeMailer) -> None:
    """An invitation goes to the admin, linking to the sign-in page."""
    made = services.partner_clients.create(
        partner, ClientInput("Bright", "pro", AdminInput("Ada", "L", "ada@b.example"))
    )
    assert made.invitation_sent
    assert [m.to for m in mailer.sent] == ["ada@b.example"]
    assert "/login?email=ada%40b.example" in mailer.sent[0].text


def test_skip_invite_sends_nothing(services: Services, partner: int, mailer: FakeMailer) -> None:
    """skip_invite true creates the client without an e-mail."""
    data = ClientInput("Bright", "pro", AdminInput("Ada", "L", "ada@b.example"), skip_invite=True)
    assert not services.partner_clients.create(partner, data).invitation_sent
    assert mailer.sent == []


def test_a_failed_invitation_keeps_the_client(services: Services, partner: int, mailer: FakeMailer) -> None:
    """When the mail server fails the client is still active; invitation_sent is false."""
    mailer.fail()
    made = services.partner_clients.create(partner, ClientInput("Bright", "pro", AdminInput("Ada", "L", "a@b.example")))
    assert (made.client.status, made.invitation_sent) == ("active", False)


def test_an_admin_email_in_use_is_409(services: Services, new_client: NewClient) -> None:
    """A second client with the same admin address, in any case, is Conflict."""
    new_client(email="ada@b.example")
    with pytest.raises(Conflict):
        new_client(email="ADA@b.example")


def test_an_email_of_another_partners_client_is_409(services: Services, new_client: NewClient) -> None:
    """The admin address is unique across partners."""
    other = services.partners.create("Other", "ops@other.example").partner.id
    new_client(email="ada@b.example")
    with pytest.raises(Conflict):
        new_client(email="ada@b.example", partner_id=other)


def test_a_full_partner_is_403(services: Services, partner: int, new_client: NewClient) -> None:
    """At client_seats.max the next create is Forbidden with code client_seats_exhausted."""
    services.partners.set_seats(partner, 2)
    new_client()
    new_client()
    with pytest.raises(Forbidden) as caught:
        new_client()
    assert caught.value.code == "client_seats_exhausted"


def test_a_refused_create_leaves_no_workspace(services: Services, partner: int, new_client: NewClient) -> None:
    """A create refused for seats stores no account."""
    services.partners.set_seats(partner, 0)
    before = len(services.accounts.list())
    with pytest.raises(Forbidden):
        new_client()
    assert len(services.accounts.list()) == before


def test_every_bad_field_is_reported(services: Services, partner: int) -> None:
    """Company, plan, admin fields, phone, timezone and country are checked together."""
    data = ClientInput(" ", "gold", AdminInput("", "", "nope", "12"), timezone="Mars/Olympus", country_id=0)
    with pytest.raises(ValidationFailed) as caught:
        services.partner_clients.create(partner, data)
    assert set(caught.value.errors) == {
        "company_name",
        "plan",
        "admin.first_name",
        "admin.last_name",
        "admin.email",
        "admin.phone",
        "timezone",
        "country_id",
    }


def test_client_slugs_are_unique(new_client: NewClient, services: Services, partner: int) -> None:
    """Two clients of one company name get distinct slugs."""
    first, second = new_client("Bright"), new_client("Bright")
    slugs = {services.partner_clients.get(partner, c).slug for c in (first, second)}
    assert slugs == {"bright", "bright-2"}


def test_creation_emits_partner_client_created(services: Services, store: InMemoryStore, new_client: NewClient) -> None:
    """partner.client.created carries client_id, company_name, plan and primary_email (SPEC 6)."""
    client = new_client("Bright", "starter", "ada@b.example")
    payload = partner_events(store, "partner.client.created")[-1]
    assert (payload["client_id"], payload["company_name"], payload["plan"], payload["primary_email"]) == (
        client,
        "Bright",
        "starter",
        "ada@b.example",
    )


# -- reading ---------------------------------------------------------------------------------------


def test_another_partners_client_is_404(services: Services, new_client: NewClient) -> None:
    """Partner B asking for partner A's client gets NotFound."""
    client = new_client()
    other = services.partners.create("Other", "ops@other.example").partner.id
    with pytest.raises(NotFound):
        services.partner_clients.get(other, client)


def test_the_list_is_newest_first(services: Services, partner: int, new_client: NewClient, clock: FakeClock) -> None:
    """Clients are listed by creation, newest first."""
    first = new_client()
    clock.advance(minutes=1)
    second = new_client()
    page = services.partner_clients.find(partner, ClientFilter(), PageRequest())
    assert [c.id for c in page.items] == [second, first]


def test_the_list_shows_only_the_partners_clients(services: Services, partner: int, new_client: NewClient) -> None:
    """Another partner's clients are not listed."""
    other = services.partners.create("Other", "ops@other.example").partner.id
    mine = new_client()
    new_client(partner_id=other)
    assert [c.id for c in services.partner_clients.find(partner, ClientFilter(), PageRequest()).items] == [mine]


def test_search_matches_company_email_and_slug(services: Services, partner: int, new_client: NewClient) -> None:
    """search finds clients by company name, admin e-mail or slug, case-insensitively."""
    bright = new_client("Bright Dental", email="ada@bright.example")
    new_client("Other Co", email="bob@other.example")
    for term in ("BRIGHT", "ada@", "bright-dental"):
        found = services.partner_clients.find(partner, ClientFilter(search=term), PageRequest())
        assert [c.id for c in found.items] == [bright]


def test_status_and_plan_filters(services: Services, partner: int, new_client: NewClient) -> None:
    """status and plan narrow the list."""
    starter, pro = new_client(plan="starter"), new_client(plan="pro")
    services.partner_clients.suspend(partner, pro)
    by_plan = services.partner_clients.find(partner, ClientFilter(plan="starter"), PageRequest())
    by_status = services.partner_clients.find(partner, ClientFilter(status="suspended"), PageRequest())
    assert ([c.id for c in by_plan.items], [c.id for c in by_status.items]) == ([starter], [pro])


def test_an_unknown_status_filter_is_422(services: Services, partner: int) -> None:
    """status must be one of the client statuses."""
    with pytest.raises(ValidationFailed):
        services.partner_clients.find(partner, ClientFilter(status="gone"), PageRequest())


def test_the_list_is_paginated(services: Services, partner: int, new_client: NewClient) -> None:
    """per_page splits the list; total counts every match."""
    for _ in range(3):
        new_client()
    page = services.partner_clients.find(partner, ClientFilter(), PageRequest(page=2, per_page=2))
    assert (len(page.items), page.total, page.last_page) == (1, 3, 2)


# -- changes ---------------------------------------------------------------------------------------


def test_an_immediate_plan_change_applies_now(services: Services, partner: int, new_client: NewClient) -> None:
    """immediate true moves the client to the plan at once, and its entitlements with it."""
    client = new_client(plan="starter")
    services.partner_clients.update(partner, client, ClientPatch(plan="business", immediate=True))
    assert services.entitlements.plan_of(client).slug == "business"


def test_a_deferred_plan_change_waits_for_the_cycle(
    services: Services, partner: int, new_client: NewClient, clock: FakeClock
) -> None:
    """Without immediate the plan stays until the boundary a month after creation, then switches."""
    client = new_client(plan="starter")
    clock.advance(days=10)
    updated = services.partner_clients.update(partner, client, ClientPatch(plan="business"))
    assert updated.schedule.pending_from == updated.created_at + timedelta(days=31)
    assert services.entitlements.plan_of(client).slug == "starter"
    clock.set(updated.created_at + timedelta(days=31))
    assert services.entitlements.plan_of(client).slug == "business"


def test_an_update_emits_partner_client_updated(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """A company name change emits partner.client.updated with the new name."""
    client = new_client("Bright")
    services.partner_clients.update(partner, client, ClientPatch(company_name="Brighter"))
    assert partner_events(store, "partner.client.updated")[-1]["company_name"] == "Brighter"


def test_an_update_that_changes_nothing_emits_nothing(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """Setting the same name and plan emits no event."""
    client = new_client("Bright", plan="pro")
    services.partner_clients.update(partner, client, ClientPatch(company_name="Bright", plan="pro"))
    assert partner_events(store, "partner.client.updated") == []


def test_a_bad_update_is_422(services: Services, partner: int, new_client: NewClient) -> None:
    """An unknown plan or timezone is refused."""
    with pytest.raises(ValidationFailed) as caught:
        services.partner_clients.update(partner, new_client(), ClientPatch(plan="gold", timezone="Nowhere/Town"))
    assert set(caught.value.errors) == {"plan", "timezone"}


def test_suspend_sets_suspended_at(services: Services, partner: int, new_client: NewClient, clock: FakeClock) -> None:
    """Suspending records when, and why."""
    client = services.partner_clients.suspend(partner, new_client(), "Unpaid invoice")
    assert (client.status, client.suspended_at, client.suspension_reason) == (
        "suspended",
        clock.now(),
        "Unpaid invoice",
    )


def test_a_suspended_workspace_is_refused(services: Services, partner: int, new_client: NewClient) -> None:
    """ensure_not_suspended raises 403 workspace_suspended while the client is suspended."""
    client = new_client()
    services.partner_clients.suspend(partner, client)
    with pytest.raises(Forbidden) as caught:
        services.partner_clients.ensure_not_suspended(client)
    assert caught.value.code == "workspace_suspended"


def test_reactivation_lifts_the_refusal(services: Services, partner: int, new_client: NewClient) -> None:
    """After reactivate the workspace is accepted again and suspended_at is cleared."""
    client = new_client()
    services.partner_clients.suspend(partner, client)
    assert services.partner_clients.reactivate(partner, client).suspended_at is None
    services.partner_clients.ensure_not_suspended(client)


def test_suspension_keeps_the_data(services: Services, partner: int, new_client: NewClient) -> None:
    """A contact stored before suspension is still there after reactivation."""
    client = new_client()
    contact = services.contacts.create(client, ContactInput(name="Ada", type="instagram")).id
    services.partner_clients.suspend(partner, client)
    services.partner_clients.reactivate(partner, client)
    assert services.contacts.get(client, contact).name == "Ada"


def test_suspending_twice_is_409(services: Services, partner: int, new_client: NewClient) -> None:
    """Only an active client can be suspended."""
    client = new_client()
    services.partner_clients.suspend(partner, client)
    with pytest.raises(Conflict):
        services.partner_clients.suspend(partner, client)


def test_reactivating_an_active_client_is_409(services: Services, partner: int, new_client: NewClient) -> None:
    """Only a suspended client can be reactivated."""
    with pytest.raises(Conflict):
        services.partner_clients.reactivate(partner, new_client())


def test_suspend_and_reactivate_emit_their_events(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """partner.client.suspended then partner.client.reactivated are recorded."""
    client = new_client()
    services.partner_clients.suspend(partner, client)
    services.partner_clients.reactivate(partner, client)
    names = [e.name for _, e in store.state.of(PartnersTables).partner_events]
    assert names[-2:] == ["partner.client.suspended", "partner.client.reactivated"]


def test_another_partner_cannot_suspend(services: Services, new_client: NewClient) -> None:
    """Suspending another partner's client is NotFound."""
    client = new_client()
    other = services.partners.create("Other", "ops@other.example").partner.id
    with pytest.raises(NotFound):
        services.partner_clients.suspend(other, client)


# -- deletion --------------------------------------------------------------------------------------


def _table_sizes(store: InMemoryStore) -> dict[str, int]:
    return {
        name: len(table)
        for name, table in store.state.tables().items()
        if name not in ("partner_events", "partner_attempts")
    }


def _fill(services: Services, uow: InMemoryUnitOfWorkFactory, account: int, clock: FakeClock) -> None:
    """Give the workspace records in many tables: contacts, tags, notes, messages, members, tickets."""
    contact = services.contacts.create(account, ContactInput(name="Ada", type="instagram")).id
    services.contacts.assign_tag(account, contact, TagAssignment(title="VIP"))
    services.contacts.add_note(account, contact, "Called back")
    services.team.create(account, MemberInput("Bob", f"bob{account}@x.example", "agent", "long enough"))
    with uow.workspace(account) as workspace:  # an inbound message, as a channel stores it
        workspace.messages.add(MessageDraft(contact, "inbound", "instagram", "Hi", "delivered"), clock.now())
        workspace.commit()
    services.tickets.create(account, TicketInput("Help", "Please"))


def test_delete_removes_every_record_of_the_workspace(
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
    partner: int,
    new_client: NewClient,
    clock: FakeClock,
    account_id: int,
) -> None:
    """After delete, every table holds exactly what it held before the client existed."""
    _fill(services, uow, account_id, clock)
    before = _table_sizes(uow.store)
    client = new_client()
    _fill(services, uow, client, clock)
    services.partner_clients.delete(partner, client)
    assert _table_sizes(uow.store) == before


def test_delete_keeps_other_workspaces(
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
    partner: int,
    new_client: NewClient,
    clock: FakeClock,
    account_id: int,
) -> None:
    """Another workspace's contacts survive a client's deletion."""
    _fill(services, uow, account_id, clock)
    services.partner_clients.delete(partner, new_client())
    assert services.contacts.find(account_id, ContactFilter(), PageRequest()).total == 1


def test_a_deleted_client_is_gone(services: Services, partner: int, new_client: NewClient) -> None:
    """After delete the client and its account are NotFound, and the seat is free."""
    client = new_client()
    services.partner_clients.delete(partner, client)
    with pytest.raises(NotFound):
        services.partner_clients.get(partner, client)
    with pytest.raises(NotFound):
        services.accounts.get(client)
    assert services.partner_clients.seats_used(partner) == 0


def test_delete_emits_partner_client_deleted(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """partner.client.deleted names the client."""
    client = new_client()
    services.partner_clients.delete(partner, client)
    assert partner_events(store, "partner.client.deleted")[-1]["client_id"] == client


# -- usage -----------------------------------------------------------------------------------------


@pytest.fixture
def message(services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> Message:
    """`message(account, direction, status)`: a new contact with one message, stored as a channel
    or a send stores it."""

    def make(account: int, direction: str, status: str) -> None:
        contact = services.contacts.create(account, ContactInput(name="C", type="instagram")).id
        with uow.workspace(account) as workspace:
            workspace.messages.add(MessageDraft(contact, direction, "instagram", "x", status), clock.now())
            workspace.commit()

    return make


def test_usage_counts_real_records(
    services: Services, partner: int, new_client: NewClient, clock: FakeClock, message: Message
) -> None:
    """Contacts, messages by kind and team members of the current month are counted."""
    client = new_client()
    message(client, "outbound", "sent")
    message(client, "outbound", "failed")
    message(client, "inbound", "delivered")
    document = services.partner_clients.usage(partner, client).usage.document(client, "x")
    assert document["contacts"] == {"total": 3, "created_this_period": 3, "blacklisted": 0}
    assert document["messages"] == {"sent": 1, "received": 1, "failed": 1}
    assert document["team_members"] == 1


def test_usage_of_another_month(
    services: Services, partner: int, new_client: NewClient, clock: FakeClock, message: Message
) -> None:
    """A YYYY-MM period counts that month's messages only; totals stay totals."""
    client = new_client()
    message(client, "outbound", "sent")
    clock.advance(days=40)
    report = services.partner_clients.usage(partner, client, "2026-01")
    later = services.partner_clients.usage(partner, client, "current")
    assert (report.period, report.usage.messages_sent, report.usage.contacts_total) == ("2026-01", 1, 1)
    assert (later.period, later.usage.messages_sent, later.usage.contacts_created) == ("2026-02", 0, 0)


def test_a_bad_period_is_422(services: Services, partner: int, new_client: NewClient) -> None:
    """A period that is neither current nor YYYY-MM is refused on `period`."""
    with pytest.raises(ValidationFailed) as caught:
        services.partner_clients.usage(partner, new_client(), "last-month")
    assert set(caught.value.errors) == {"period"}


def test_the_usage_summary_totals_every_client(
    services: Services, partner: int, new_client: NewClient, clock: FakeClock, message: Message
) -> None:
    """The summary adds up all clients, even those beyond the page."""
    first, second = new_client(), new_client()
    services.partner_clients.suspend(partner, second)
    message(first, "outbound", "sent")
    message(second, "outbound", "sent")
    summary = services.partner_clients.usage_summary(partner, None, PageRequest(per_page=1))
    assert (summary.total_clients, summary.active_clients, summary.total_messages_sent, summary.total_contacts) == (
        2,
        1,
        2,
        2,
    )
    assert [line.client_id for line in summary.clients.items] == [first]


# -- impersonation ---------------------------------------------------------------------------------


def _token(url: str) -> str:
    return url.rsplit("/", 1)[1]


def test_impersonation_gives_a_short_lived_link(
    services: Services, partner: int, new_client: NewClient, clock: FakeClock
) -> None:
    """The link expires five minutes from now and opens the client's workspace once."""
    client = new_client()
    link = services.partner_clients.impersonate(partner, client)
    assert link.expires_at == clock.now() + timedelta(minutes=5)
    assert services.partner_clients.redeem(_token(link.login_url)).account_id == client


def test_an_impersonation_link_works_once(services: Services, partner: int, new_client: NewClient) -> None:
    """A second use of the same link is refused."""
    link = services.partner_clients.impersonate(partner, new_client())
    services.partner_clients.redeem(_token(link.login_url))
    with pytest.raises(Unauthenticated):
        services.partner_clients.redeem(_token(link.login_url))


def test_an_expired_link_is_refused(services: Services, partner: int, new_client: NewClient, clock: FakeClock) -> None:
    """At five minutes the link no longer works."""
    link = services.partner_clients.impersonate(partner, new_client())
    clock.advance(minutes=5)
    with pytest.raises(Unauthenticated):
        services.partner_clients.redeem(_token(link.login_url))


def test_only_the_tokens_digest_is_stored(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """Storage holds the token's SHA-256, never the token."""
    link = services.partner_clients.impersonate(partner, new_client())
    token = _token(link.login_url)
    assert token not in store.state.of(PartnersTables).impersonations
    assert api_keys.digest_key(token) in store.state.of(PartnersTables).impersonations


def test_the_link_is_not_in_its_repr(services: Services, partner: int, new_client: NewClient) -> None:
    """Logging the result never shows the token."""
    link = services.partner_clients.impersonate(partner, new_client())
    assert _token(link.login_url) not in repr(link)


def test_a_suspended_client_cannot_be_impersonated(services: Services, partner: int, new_client: NewClient) -> None:
    """Impersonating a suspended workspace is 403 workspace_suspended."""
    client = new_client()
    services.partner_clients.suspend(partner, client)
    with pytest.raises(Forbidden):
        services.partner_clients.impersonate(partner, client)


def test_another_partner_cannot_impersonate(services: Services, new_client: NewClient) -> None:
    """Impersonating another partner's client is NotFound."""
    client = new_client()
    other = services.partners.create("Other", "ops@other.example").partner.id
    with pytest.raises(NotFound):
        services.partner_clients.impersonate(other, client)


# -- impersonation ends with the partner, the client and the key that minted it ---------------------


def test_a_link_minted_before_the_partner_was_suspended_does_not_redeem(
    services: Services, partner: int, new_client: NewClient
) -> None:
    """Suspending the partner voids its unused login links."""
    link = services.partner_clients.impersonate(partner, new_client())
    services.partners.suspend(partner)
    with pytest.raises((Forbidden, Unauthenticated)):
        services.partner_clients.redeem(_token(link.login_url))


def test_a_link_minted_before_the_key_was_rotated_does_not_redeem(
    services: Services, partner: int, new_client: NewClient
) -> None:
    """Rotating the partner key voids the login links the old key minted."""
    link = services.partner_clients.impersonate(partner, new_client())
    services.partners.rotate_key(partner)
    with pytest.raises(Unauthenticated):
        services.partner_clients.redeem(_token(link.login_url))


def test_a_link_minted_after_the_rotation_redeems(services: Services, partner: int, new_client: NewClient) -> None:
    """The new key's links work."""
    client = new_client()
    services.partners.rotate_key(partner)
    link = services.partner_clients.impersonate(partner, client)
    assert services.partner_clients.redeem(_token(link.login_url)).account_id == client


def test_a_suspended_partner_cannot_mint_a_link(services: Services, partner: int, new_client: NewClient) -> None:
    """Impersonate refuses a suspended partner with partner_suspended."""
    client = new_client()
    services.partners.suspend(partner)
    with pytest.raises(Forbidden) as caught:
        services.partner_clients.impersonate(partner, client)
    assert caught.value.code == "partner_suspended"


def _session(services: Services, partner: int, client: int) -> Impersonation:
    link = services.partner_clients.impersonate(partner, client)
    return services.partner_clients.redeem(_token(link.login_url))


def test_a_session_opens_its_client(services: Services, partner: int, new_client: NewClient) -> None:
    """While nothing changed, admit() returns the client of the grant."""
    client = new_client()
    assert services.partner_clients.admit(_session(services, partner, client)).id == client


def test_a_session_ends_when_the_partner_is_suspended(services: Services, partner: int, new_client: NewClient) -> None:
    """A session of a partner suspended since is refused with partner_suspended."""
    session = _session(services, partner, new_client())
    services.partners.suspend(partner)
    with pytest.raises(Forbidden) as caught:
        services.partner_clients.admit(session)
    assert caught.value.code == "partner_suspended"


def test_a_session_stays_ended_after_the_partner_is_activated_again(
    services: Services, partner: int, new_client: NewClient
) -> None:
    """A suspension retires the sessions for good: activating the partner does not revive them."""
    session = _session(services, partner, new_client())
    services.partners.suspend(partner)
    services.partners.activate(partner)
    with pytest.raises(Unauthenticated):
        services.partner_clients.admit(session)


def test_a_session_ends_when_the_key_is_rotated(services: Services, partner: int, new_client: NewClient) -> None:
    """A session the old key opened is refused after a rotation."""
    session = _session(services, partner, new_client())
    services.partners.rotate_key(partner)
    with pytest.raises(Unauthenticated):
        services.partner_clients.admit(session)


def test_a_session_ends_when_the_client_is_suspended(services: Services, partner: int, new_client: NewClient) -> None:
    """A session of a client suspended since is refused with workspace_suspended."""
    client = new_client()
    session = _session(services, partner, client)
    services.partner_clients.suspend(partner, client)
    with pytest.raises(Forbidden) as caught:
        services.partner_clients.admit(session)
    assert caught.value.code == "workspace_suspended"


def test_a_session_ends_when_the_client_is_deleted(services: Services, partner: int, new_client: NewClient) -> None:
    """A session of a client deleted since is refused."""
    client = new_client()
    session = _session(services, partner, client)
    services.partner_clients.delete(partner, client)
    with pytest.raises(Unauthenticated):
        services.partner_clients.admit(session)


def test_a_session_survives_a_plan_change(services: Services, partner: int, new_client: NewClient) -> None:
    """Changing the client's plan changes nothing about who may look at it."""
    client = new_client(plan="pro")
    session = _session(services, partner, client)
    services.partner_clients.update(partner, client, ClientPatch(plan="starter", immediate=True))
    assert services.partner_clients.admit(session).id == client


# -- partner webhooks ------------------------------------------------------------------------------


def test_a_partner_webhook_with_more_events_than_the_limit_is_refused(services: Services, partner: int) -> None:
    """A partner subscription listing more than `EVENTS_MAX` event names is refused on `events`."""
    data = PartnerWebhookInput("Ops", "https://hooks.example/p", events=["partner.client.created"] * (EVENTS_MAX + 1))
    with pytest.raises(ValidationFailed) as raised:
        services.partners.create_webhook(partner, data)
    assert list(raised.value.errors) == ["events"]


def test_partner_events_are_queued_for_the_partners_webhooks(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """With a subscription, a created client queues one partner.client.created delivery to it."""
    hook = services.partners.create_webhook(partner, PartnerWebhookInput("Ops", "https://hooks.example/p"))
    client = new_client()
    (attempt,) = [
        a for a in store.state.of(PartnersTables).partner_attempts if a.event_type == "partner.client.created"
    ]
    assert (attempt.webhook_id, attempt.partner_id, attempt.payload["client_id"]) == (
        hook.subscription.id,
        partner,
        client,
    )
    assert len(hook.secret) == 64


def test_a_disabled_partner_webhook_gets_nothing(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """While a partner subscription is inactive no delivery is queued for it."""
    hook = services.partners.create_webhook(partner, PartnerWebhookInput("Ops", "https://hooks.example/p"))
    services.partners.update_webhook(partner, hook.subscription.id, PartnerWebhookPatch(is_active=False))
    new_client()
    assert store.state.of(PartnersTables).partner_attempts == []


def test_a_webhook_hears_only_its_partner(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient
) -> None:
    """Another partner's client events are not queued to this partner's subscription."""
    services.partners.create_webhook(partner, PartnerWebhookInput("Ops", "https://hooks.example/p"))
    other = services.partners.create("Other", "ops@other.example").partner.id
    new_client(partner_id=other)
    assert store.state.of(PartnersTables).partner_attempts == []


@pytest.mark.parametrize(
    "data",
    [
        PartnerWebhookInput("Ops", "http://hooks.example/p"),
        PartnerWebhookInput("Ops", "https://hooks.example/p", events=["contact.created"]),
        PartnerWebhookInput("", "https://hooks.example/p"),
    ],
)
def test_a_bad_partner_webhook_is_422(services: Services, partner: int, data: PartnerWebhookInput) -> None:
    """Plain HTTP, workspace events and a blank name are refused."""
    with pytest.raises(ValidationFailed):
        services.partners.create_webhook(partner, data)


def test_channel_events_reach_the_partner(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient, clock: FakeClock
) -> None:
    """relay_channel_event turns a client's channel.connected into partner.client.channel.connected."""
    client = new_client()
    event = DomainEvent("channel.connected", {"channel": "whatsapp", "status": "OK"}, clock.now())
    services.partner_clients.relay_channel_event(client, event)
    assert partner_events(store, "partner.client.channel.connected") == [
        {"client_id": client, "company_name": "Client", "channel": "whatsapp", "status": "OK"}
    ]


def test_channel_events_of_partnerless_workspaces_go_nowhere(
    services: Services, store: InMemoryStore, account_id: int, clock: FakeClock
) -> None:
    """A workspace without a partner produces no partner event."""
    services.partner_clients.relay_channel_event(account_id, DomainEvent("channel.connected", {}, clock.now()))
    assert store.state.of(PartnersTables).partner_events == []


# -- the partner event catalogue -------------------------------------------------------------------

SPEC_PARTNER_EVENTS = (
    "partner.client.created",
    "partner.client.updated",
    "partner.client.suspended",
    "partner.client.reactivated",
    "partner.client.deleted",
    "partner.client.channel.connected",
    "partner.client.channel.disconnected",
)
"""SPEC 6, Partner events: every row, in the spec's order."""


def _partner_trigger(name: str, services: Services, partner: int, client: int, clock: FakeClock) -> None:
    """The real action that emits partner event `name` for `client`."""
    clients = services.partner_clients
    if name == "partner.client.updated":
        clients.update(partner, client, ClientPatch(company_name="Renamed"))
    elif name == "partner.client.suspended":
        clients.suspend(partner, client)
    elif name == "partner.client.reactivated":
        clients.suspend(partner, client)
        clients.reactivate(partner, client)
    elif name == "partner.client.deleted":
        clients.delete(partner, client)
    elif name.startswith("partner.client.channel."):
        workspace_event = "channel." + name.rsplit(".", 1)[1]
        clients.relay_channel_event(client, DomainEvent(workspace_event, {"channel": "telegram"}, clock.now()))


def test_the_partner_catalogue_is_the_spec_list() -> None:
    """engage_core.kernel.events.PARTNER_CATALOGUE lists SPEC 6's partner events, in order."""
    assert PARTNER_CATALOGUE == SPEC_PARTNER_EVENTS


@pytest.mark.parametrize("name", SPEC_PARTNER_EVENTS)
def test_every_partner_event_is_queued_by_its_trigger(
    services: Services, store: InMemoryStore, partner: int, new_client: NewClient, clock: FakeClock, name: str
) -> None:
    """Each partner event's real trigger queues one delivery of it, naming the client."""
    services.partners.create_webhook(partner, PartnerWebhookInput("Ops", "https://hooks.example/p"))
    client = new_client()
    _partner_trigger(name, services, partner, client, clock)
    queued = [a for a in store.state.of(PartnersTables).partner_attempts if a.event_type == name]
    assert [a.payload["client_id"] for a in queued] == [client]
