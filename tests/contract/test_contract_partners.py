"""Partners: the partner repository and key authentication, client workspaces, impersonation tokens,
partner webhooks and their deliveries through the shared queue, and the deletion of a client's
workspace, through the repositories and the partner services, on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest
from partner_workspace import PartnerServices, client_input, fill_workspace, partner_services
from support import NOW

from engage_core.bookings.model import BookingFilter
from engage_core.commerce.orders import OrderFilter
from engage_core.commerce.products import ProductFilter
from engage_core.kernel.errors import Conflict, Forbidden, NotFound, Unauthenticated
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.partners.client_service import ClientPatch
from engage_core.partners.model import Branding, ClientFilter, Impersonation, PartnerDraft
from engage_core.partners.partner_service import PartnerWebhookInput, PartnerWebhookPatch, RevealedPartnerSecret
from engage_core.support.tickets import TicketFilter
from engage_core.testing import FakeCipher, FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.webhooks.model import NextStep, Outcome
from engage_core.webhooks.ports import DeliveryQueue

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""

DRAFT = PartnerDraft("Reseller Ltd", "reseller-ltd", "ops@reseller.example", "agency", 25)
URL = "https://hooks.reseller.example/engage"
CRM_URL = "https://partner.example.com/hooks"
DIGEST = "a" * 64
LEASE = 60.0
FAILED = Outcome(500, "boom", None)


@pytest.fixture
def partner(uow: UnitOfWorkFactory, clock: FakeClock) -> PartnerServices:
    return partner_services(uow, clock)


def _add(uow: UnitOfWorkFactory, draft: PartnerDraft = DRAFT, digest: str = "d" * 64) -> int:
    with uow.partners() as unit:
        partner = unit.partners.add(draft, digest, "enp_abcd…", NOW)
        unit.commit()
    assert partner is not None
    return partner.id


def test_add_and_get_round_trip(uow: UnitOfWorkFactory) -> None:
    """A stored partner reads back active, with every field of its draft."""
    partner_id = _add(uow)

    with uow.partners(readonly=True) as unit:
        stored = unit.partners.get(partner_id)
    assert stored is not None
    assert (stored.company_name, stored.slug, stored.email, stored.plan, stored.status, stored.client_seats_max) == (
        "Reseller Ltd",
        "reseller-ltd",
        "ops@reseller.example",
        "agency",
        "active",
        25,
    )


def test_by_key_digest_returns_the_partner_and_its_digest(uow: UnitOfWorkFactory) -> None:
    """The key look-up finds the partner with the stored digest, and nothing for another digest."""
    partner_id = _add(uow)

    with uow.partners(readonly=True) as unit:
        found, missing = unit.partners.by_key_digest("d" * 64), unit.partners.by_key_digest("e" * 64)
    assert (found and (found[0].id, found[1]), missing) == ((partner_id, "d" * 64), None)


def test_slug_taken_reports_stored_slugs_only(uow: UnitOfWorkFactory) -> None:
    """`slug_taken` is true for a stored slug and false for another."""
    _add(uow)

    with uow.partners(readonly=True) as unit:
        assert (unit.partners.slug_taken("reseller-ltd"), unit.partners.slug_taken("other")) == (True, False)


def test_add_of_a_taken_slug_stores_nothing(uow: UnitOfWorkFactory) -> None:
    """`add` with a stored slug gives None and leaves the partners as they were."""
    _add(uow)

    with uow.partners() as unit:
        assert unit.partners.add(DRAFT, "e" * 64, "enp_efgh…", NOW) is None
        unit.commit()
    with uow.partners(readonly=True) as unit:
        assert [p.slug for p in unit.partners.list()] == ["reseller-ltd"]


def test_update_stores_status_seats_and_branding(uow: UnitOfWorkFactory) -> None:
    """`update` stores the changed fields, branding included."""
    partner_id = _add(uow)
    with uow.partners() as unit:
        current = unit.partners.get(partner_id)
        assert current is not None
        changed = attrs.evolve(
            current,
            status="suspended",
            client_seats_max=3,
            branding=Branding("https://cdn.example/logo.png", "#112233", "crm.reseller.example"),
        )
        unit.partners.update(changed)
        unit.commit()

    with uow.partners(readonly=True) as unit:
        assert unit.partners.get(partner_id) == changed


def test_list_is_ascending_id(uow: UnitOfWorkFactory) -> None:
    """Partners are listed oldest first."""
    first = _add(uow)
    second = _add(uow, attrs.evolve(DRAFT, slug="second"), "e" * 64)

    with uow.partners(readonly=True) as unit:
        assert [p.id for p in unit.partners.list()] == [first, second]


def test_rotated_key_authenticates_and_the_old_one_does_not(partner: PartnerServices) -> None:
    """After a rotation only the new key is accepted."""
    created = partner.partners.create("Reseller", "ops@reseller.example")
    rotated = partner.partners.rotate_key(created.partner.id)

    assert partner.partners.authenticate(rotated.partner_key).id == created.partner.id
    with pytest.raises(Unauthenticated):
        partner.partners.authenticate(created.partner_key)


def test_partner_webhook_round_trip(partner: PartnerServices) -> None:
    """A partner webhook is stored, listed, updated and deleted through the service."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    created = partner.partners.create_webhook(partner_id, PartnerWebhookInput("Ops", URL, ["partner.client.created"]))

    listed = partner.partners.webhooks(partner_id)
    partner.partners.delete_webhook(partner_id, created.subscription.id)

    assert ([s.events for s in listed], partner.partners.webhooks(partner_id)) == ([("partner.client.created",)], [])


def test_partner_webhooks_are_invisible_to_other_partners_and_workspaces(
    uow: UnitOfWorkFactory, partner: PartnerServices, account: int
) -> None:
    """Another partner and every workspace see none of a partner's subscriptions."""
    owner = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    other = partner.partners.create("Other", "ops@other.example").partner.id
    hook = partner.partners.create_webhook(owner, PartnerWebhookInput("Ops", URL)).subscription

    with uow.partners(readonly=True) as unit:
        seen_by_other = (unit.partner_webhooks.get(other, hook.id), unit.partner_webhooks.list(other))
    with uow.workspace(account, readonly=True) as workspace:
        seen_by_workspace = (workspace.webhooks.get(hook.id), workspace.webhooks.list())
    assert (seen_by_other, seen_by_workspace) == ((None, []), (None, []))


def test_delivery_queue_claims_partner_attempts(partner: PartnerServices, delivery_queue: DeliveryQueue) -> None:
    """The shared delivery queue hands out a partner attempt as kind `partner`, owner the partner."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    partner.partners.create_webhook(partner_id, PartnerWebhookInput("All", URL))
    partner.clients.create(partner_id, client_input())

    claims = delivery_queue.claim(NOW.replace(year=2027), 30.0, 10)

    assert [(c.kind, c.owner_id, c.url, c.event_type) for c in claims] == [
        ("partner", partner_id, URL, "partner.client.created")
    ]


@pytest.fixture
def grant(partner: PartnerServices) -> Impersonation:
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    return Impersonation(partner_id, partner.clients.create(partner_id, client_input()).client.id, 1)


def _add_token(uow: UnitOfWorkFactory, grant: Impersonation, clock: FakeClock) -> None:
    with uow.partners() as unit:
        unit.impersonations.add(DIGEST, grant, clock.now() + timedelta(minutes=5), clock.now())
        unit.commit()


def _redeem(uow: UnitOfWorkFactory, clock: FakeClock, digest: str = DIGEST) -> Impersonation | None:
    with uow.partners() as unit:
        found = unit.impersonations.redeem(digest, clock.now())
        unit.commit()
    return found


def test_redeem_returns_the_grant_once(uow: UnitOfWorkFactory, grant: Impersonation, clock: FakeClock) -> None:
    """The first redeem returns the grant; the second finds the token used."""
    _add_token(uow, grant, clock)

    assert (_redeem(uow, clock), _redeem(uow, clock)) == (grant, None)


def test_unknown_token_is_not_redeemed(uow: UnitOfWorkFactory, grant: Impersonation, clock: FakeClock) -> None:
    """A digest that was never stored redeems nothing."""
    _add_token(uow, grant, clock)

    assert _redeem(uow, clock, "b" * 64) is None


def test_expired_token_is_not_redeemed(uow: UnitOfWorkFactory, grant: Impersonation, clock: FakeClock) -> None:
    """At its expiry instant the token no longer works."""
    _add_token(uow, grant, clock)
    clock.advance(minutes=5)

    assert _redeem(uow, clock) is None


def test_service_link_opens_the_workspace_once(partner: PartnerServices, grant: Impersonation) -> None:
    """The service's login link redeems to the client's workspace once, then is refused."""
    link = partner.clients.impersonate(grant.partner_id, grant.account_id)
    token = link.login_url.rsplit("/", 1)[1]

    first = partner.clients.redeem(token)
    with pytest.raises(Unauthenticated):
        partner.clients.redeem(token)
    assert first == grant


def test_a_rotation_and_a_suspension_each_advance_the_key_generation(uow: UnitOfWorkFactory) -> None:
    """`set_key` and `advance_key_generation` each add one; `update` leaves the generation alone."""
    partner_id = _add(uow)
    with uow.partners() as unit:
        unit.partners.set_key(partner_id, "e" * 64, "enp_efgh…", NOW)
        unit.partners.advance_key_generation(partner_id)
        current = unit.partners.get(partner_id)
        assert current is not None
        unit.partners.update(attrs.evolve(current, key_generation=99, status="suspended"))
        unit.commit()

    with uow.partners(readonly=True) as unit:
        stored = unit.partners.get(partner_id)
    assert (current.key_generation, stored and stored.key_generation) == (3, 3)


def test_redeem_returns_the_key_generation_of_the_grant(
    uow: UnitOfWorkFactory, grant: Impersonation, clock: FakeClock
) -> None:
    """The stored token keeps the key generation it was minted under."""
    minted = attrs.evolve(grant, key_generation=7)
    _add_token(uow, minted, clock)

    assert _redeem(uow, clock) == minted


def _open_session(partner: PartnerServices, grant: Impersonation) -> Impersonation:
    """Mint a login link for `grant`'s client and redeem it: the grant a dashboard session holds."""
    link = partner.clients.impersonate(grant.partner_id, grant.account_id)
    return partner.clients.redeem(link.login_url.rsplit("/", 1)[1])


PARTNER_CHANGES: dict[str, Callable[[PartnerServices, int], object]] = {
    "suspend": lambda partner, partner_id: partner.partners.suspend(partner_id),
    "rotate-key": lambda partner, partner_id: partner.partners.rotate_key(partner_id),
    "suspend-and-activate": lambda partner, partner_id: (
        partner.partners.suspend(partner_id),
        partner.partners.activate(partner_id),
    ),
}


@pytest.mark.parametrize("change", PARTNER_CHANGES.values(), ids=PARTNER_CHANGES.keys())
def test_a_link_minted_before_the_partner_changed_does_not_redeem(
    partner: PartnerServices, grant: Impersonation, change: Callable[[PartnerServices, int], object]
) -> None:
    """After the partner is suspended or its key rotated, an unused link is refused."""
    link = partner.clients.impersonate(grant.partner_id, grant.account_id)
    change(partner, grant.partner_id)

    with pytest.raises((Unauthenticated, Forbidden)):
        partner.clients.redeem(link.login_url.rsplit("/", 1)[1])


@pytest.mark.parametrize("change", PARTNER_CHANGES.values(), ids=PARTNER_CHANGES.keys())
def test_a_session_opened_before_the_partner_changed_is_refused(
    partner: PartnerServices, grant: Impersonation, change: Callable[[PartnerServices, int], object]
) -> None:
    """After the partner is suspended or its key rotated, a redeemed grant admits nothing."""
    session = _open_session(partner, grant)
    change(partner, grant.partner_id)

    with pytest.raises((Unauthenticated, Forbidden)):
        partner.clients.admit(session)


def test_a_session_ends_with_its_client(partner: PartnerServices, grant: Impersonation) -> None:
    """A redeemed grant admits nothing once its client is suspended, nor once it is deleted."""
    session = _open_session(partner, grant)
    partner.clients.suspend(grant.partner_id, grant.account_id)
    with pytest.raises(Forbidden):
        partner.clients.admit(session)

    partner.clients.delete(grant.partner_id, grant.account_id)
    with pytest.raises(Unauthenticated):
        partner.clients.admit(session)


@pytest.fixture
def reseller(partner: PartnerServices) -> int:
    return partner.partners.create("Reseller", "ops@reseller.example").partner.id


@pytest.fixture
def rival(partner: PartnerServices) -> int:
    return partner.partners.create("Rival", "ops@rival.example").partner.id


def _names(
    partner: PartnerServices, partner_id: int, filters: ClientFilter, page: PageRequest | None = None
) -> list[str]:
    return [c.company_name for c in partner.clients.find(partner_id, filters, page or PageRequest()).items]


def test_create_stores_an_active_client_with_its_admin(
    uow: UnitOfWorkFactory, partner: PartnerServices, reseller: int
) -> None:
    """A created client is active, names its admin team member, and that member exists in the workspace."""
    created = partner.clients.create(reseller, client_input()).client

    stored = partner.clients.get(reseller, created.id)
    with uow.workspace(created.id, readonly=True) as unit:
        admin = unit.team.get(stored.primary_user.id or 0)
    assert (stored.status, stored.slug, admin and admin.email, admin and admin.role) == (
        "active",
        "acme-cafe",
        "ada@acme.example",
        "admin",
    )


def test_create_sends_the_invitation(partner: PartnerServices, reseller: int) -> None:
    """Without `skip_invite` the admin is mailed."""
    result = partner.clients.create(reseller, client_input())

    assert (result.invitation_sent, [m.to for m in partner.mailer.sent]) == (True, ["ada@acme.example"])


def test_of_account_finds_the_client_of_any_partner(
    uow: UnitOfWorkFactory, partner: PartnerServices, reseller: int
) -> None:
    """The per-request look-up by workspace needs no partner."""
    created = partner.clients.create(reseller, client_input()).client

    with uow.partners(readonly=True) as unit:
        found = unit.clients.of_account(created.id)
    assert found == partner.clients.get(reseller, created.id)


def test_admin_email_in_use_by_any_partner_is_a_conflict(partner: PartnerServices, reseller: int, rival: int) -> None:
    """An address used by another partner's client, in any case, is 409."""
    partner.clients.create(reseller, client_input(email="ada@acme.example"))

    with pytest.raises(Conflict):
        partner.clients.create(rival, client_input("Other", email="ADA@Acme.example"))


def test_same_company_gets_a_distinct_slug(partner: PartnerServices, reseller: int) -> None:
    """A second client of the same name gets the next free slug."""
    partner.clients.create(reseller, client_input(email="a@one.example"))

    again = partner.clients.create(reseller, client_input(email="a@two.example")).client

    assert again.slug == "acme-cafe-2"


def test_seat_limit_is_forbidden(partner: PartnerServices, reseller: int) -> None:
    """At `client_seats_max` a further create is 403 `client_seats_exhausted`."""
    partner.partners.set_seats(reseller, 1)
    partner.clients.create(reseller, client_input())

    with pytest.raises(Forbidden) as refused:
        partner.clients.create(reseller, client_input("Second", "b@second.example"))
    assert refused.value.code == "client_seats_exhausted"


def test_find_filters_by_status(partner: PartnerServices, reseller: int) -> None:
    """`status` keeps only the clients in that status."""
    partner.clients.create(reseller, client_input("Open", "a@open.example"))
    closed = partner.clients.create(reseller, client_input("Closed", "a@closed.example")).client
    partner.clients.suspend(reseller, closed.id, "Unpaid")

    assert _names(partner, reseller, ClientFilter(status="suspended")) == ["Closed"]


def test_find_filters_by_the_plan_in_force(partner: PartnerServices, reseller: int, clock: FakeClock) -> None:
    """The plan filter compares the plan in force now, so a deferred change counts from its boundary."""
    moving = partner.clients.create(reseller, client_input("Moving", "a@moving.example", plan="starter")).client
    partner.clients.create(reseller, client_input("Staying", "a@staying.example", plan="starter"))
    partner.clients.update(reseller, moving.id, ClientPatch(plan="pro"))
    before = _names(partner, reseller, ClientFilter(plan="pro"))

    clock.advance(days=32)

    assert (before, _names(partner, reseller, ClientFilter(plan="pro"))) == ([], ["Moving"])


@pytest.mark.parametrize(
    ("needle", "expected"),
    [("CAFÉ", ["Acme Café"]), ("@BETA.", ["Beta"]), ("beta-", []), ("acme-c", ["Acme Café"]), ("%", [])],
)
def test_find_searches_company_email_and_slug(
    partner: PartnerServices, reseller: int, needle: str, expected: list[str]
) -> None:
    """`search` matches company name, admin e-mail or slug as a case-insensitive substring."""
    partner.clients.create(reseller, client_input("Acme Café", "ada@acme.example"))
    partner.clients.create(reseller, client_input("Beta", "bob@beta.example"))

    assert _names(partner, reseller, ClientFilter(search=needle)) == expected


def test_find_pages_newest_first(partner: PartnerServices, reseller: int, clock: FakeClock) -> None:
    """Pages run newest first and the total counts every match."""
    for n in range(5):
        partner.clients.create(reseller, client_input(f"Client {n}", f"a@{n}.example"))
        clock.advance(minutes=1)

    page = partner.clients.find(reseller, ClientFilter(), PageRequest(page=2, per_page=2))

    assert ([c.company_name for c in page.items], page.total) == (["Client 2", "Client 1"], 5)


def test_another_partner_cannot_see_or_change_the_client(partner: PartnerServices, reseller: int, rival: int) -> None:
    """Partner B's reads and writes of partner A's client are 404, and its list is empty."""
    client = partner.clients.create(reseller, client_input()).client

    for attempt in (
        lambda: partner.clients.get(rival, client.id),
        lambda: partner.clients.update(rival, client.id, ClientPatch(company_name="Mine")),
        lambda: partner.clients.suspend(rival, client.id),
        lambda: partner.clients.delete(rival, client.id),
        lambda: partner.clients.usage(rival, client.id),
        lambda: partner.clients.impersonate(rival, client.id),
    ):
        with pytest.raises(NotFound):
            attempt()
    assert (_names(partner, rival, ClientFilter()), partner.clients.get(reseller, client.id).company_name) == (
        [],
        "Acme Café",
    )


def test_suspend_and_reactivate_are_stored(partner: PartnerServices, reseller: int, clock: FakeClock) -> None:
    """Suspension stores when and why; reactivation clears both."""
    client = partner.clients.create(reseller, client_input()).client
    partner.clients.suspend(reseller, client.id, "Unpaid")
    suspended = partner.clients.get(reseller, client.id)

    partner.clients.reactivate(reseller, client.id)

    active = partner.clients.get(reseller, client.id)
    assert (suspended.status, suspended.suspended_at, suspended.suspension_reason) == (
        "suspended",
        clock.now(),
        "Unpaid",
    )
    assert (active.status, active.suspended_at, active.suspension_reason) == ("active", None, None)


def test_update_stores_company_timezone_and_pending_plan(partner: PartnerServices, reseller: int) -> None:
    """A patch reads back with its company name, timezone and scheduled plan change."""
    client = partner.clients.create(reseller, client_input(plan="starter")).client

    changed = partner.clients.update(
        reseller, client.id, ClientPatch(company_name="Acme Two", timezone="Asia/Riyadh", plan="business")
    )

    assert partner.clients.get(reseller, client.id) == changed
    assert (changed.schedule.plan, changed.schedule.pending_plan) == ("starter", "business")


@pytest.fixture
def partner_id(partner: PartnerServices) -> int:
    return partner.partners.create("Agency", "owner@agency.example").partner.id


@pytest.fixture
def partner_hook(partner: PartnerServices, partner_id: int) -> RevealedPartnerSecret:
    return partner.partners.create_webhook(partner_id, PartnerWebhookInput("CRM", CRM_URL, ["partner.client.created"]))


def test_a_partner_attempt_is_claimed_with_the_partner_secret(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """Creating a client queues a `partner` attempt; its claim carries the partner, the url and the secret."""
    client = partner.clients.create(partner_id, client_input()).client

    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    assert (claim.kind, claim.owner_id, claim.webhook_id) == ("partner", partner_id, partner_hook.subscription.id)
    assert (claim.url, claim.event_type) == (CRM_URL, "partner.client.created")
    assert FakeCipher().decrypt(claim.secret_ciphertext) == partner_hook.secret
    assert claim.payload["client_id"] == client.id


def test_an_unsubscribed_partner_event_queues_nothing(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """An event the subscription does not list (suspended) is not queued for it."""
    client = partner.clients.create(partner_id, client_input()).client
    delivery_queue.claim(NOW, LEASE, 10)

    partner.clients.suspend(partner_id, client.id)

    assert delivery_queue.claim(NOW, LEASE, 10) == []


def test_a_failed_partner_attempt_is_retried_in_the_same_delivery(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """A partner attempt completed with a retry time is claimed again, attempt 2 of its delivery, once due."""
    partner.clients.create(partner_id, client_input())
    (first,) = delivery_queue.claim(NOW, LEASE, 10)
    retry_at = NOW + timedelta(minutes=2)

    recorded = delivery_queue.complete(first, FAILED, NextStep("failed", retry_at), NOW)

    early, due = delivery_queue.claim(NOW, LEASE, 10), delivery_queue.claim(retry_at, LEASE, 10)
    assert (recorded, early) == (True, [])
    assert [(c.kind, c.delivery_id, c.attempt_number, c.payload) for c in due] == [
        ("partner", first.delivery_id, 2, first.payload)
    ]


def test_a_delivered_partner_attempt_leaves_the_queue(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """Once delivered, a partner attempt is never claimed again, lease or no lease."""
    partner.clients.create(partner_id, client_input())
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    delivery_queue.complete(claim, Outcome(200, "ok", None), NextStep("delivered", None), NOW)

    assert delivery_queue.claim(NOW + timedelta(days=1), LEASE, 10) == []


def test_a_partner_attempt_with_a_lost_lease_cannot_complete(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """After its lease ended and the attempt was claimed again, the first claim's completion is refused."""
    partner.clients.create(partner_id, client_input())
    (stale,) = delivery_queue.claim(NOW, LEASE, 10)
    (fresh,) = delivery_queue.claim(NOW + timedelta(seconds=LEASE), LEASE, 10)

    results = [
        delivery_queue.complete(claim, Outcome(200, "ok", None), NextStep("delivered", None), NOW)
        for claim in (stale, fresh)
    ]

    assert (results, fresh.attempt_id) == ([False, True], stale.attempt_id)


def test_a_released_partner_claim_is_due_again_at_once(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """Releasing a partner claim never sent makes the claims of the same call take it again."""
    partner.clients.create(partner_id, client_input())
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    _, claims = delivery_queue.complete_and_claim([], NOW, LEASE, 10, release=[claim])

    assert [(c.kind, c.attempt_id, c.lease_token != claim.lease_token) for c in claims] == [
        ("partner", claim.attempt_id, True)
    ]


def test_a_deleted_partner_subscription_takes_its_attempts_with_it(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """Deleting a partner subscription leaves nothing to claim, and its claimed attempt cannot complete."""
    partner.clients.create(partner_id, client_input("First", "a@first.example"))
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)
    partner.clients.create(partner_id, client_input("Second", "a@second.example"))

    partner.partners.delete_webhook(partner_id, partner_hook.subscription.id)

    completed = delivery_queue.complete(claim, FAILED, NextStep("failed", NOW), NOW)
    assert (completed, delivery_queue.claim(NOW + timedelta(days=1), LEASE, 10)) == (False, [])


def test_a_disabled_partner_subscription_gets_nothing_claimed(
    partner: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret, delivery_queue: DeliveryQueue
) -> None:
    """A due partner attempt of a disabled subscription waits: it is claimed once the subscription is enabled."""
    partner.clients.create(partner_id, client_input())
    hook_id = partner_hook.subscription.id
    partner.partners.update_webhook(partner_id, hook_id, PartnerWebhookPatch(is_active=False))
    while_off = delivery_queue.claim(NOW, LEASE, 10)

    partner.partners.update_webhook(partner_id, hook_id, PartnerWebhookPatch(is_active=True))

    assert (while_off, [c.kind for c in delivery_queue.claim(NOW, LEASE, 10)]) == ([], ["partner"])


def test_every_change_of_a_client_queues_its_partner_event_in_order(
    partner: PartnerServices, reseller: int, delivery_queue: DeliveryQueue
) -> None:
    """A subscription to every partner event gets each change of a client, in the order they were made."""
    partner.partners.create_webhook(reseller, PartnerWebhookInput("All", URL))
    client = partner.clients.create(reseller, client_input()).client
    partner.clients.suspend(reseller, client.id)
    partner.clients.reactivate(reseller, client.id)
    partner.clients.delete(reseller, client.id)

    assert [c.event_type for c in delivery_queue.claim(NOW, LEASE, 10)] == [
        "partner.client.created",
        "partner.client.suspended",
        "partner.client.reactivated",
        "partner.client.deleted",
    ]


def test_a_rolled_back_partner_event_queues_nothing(
    uow: UnitOfWorkFactory, partner: PartnerServices, reseller: int, delivery_queue: DeliveryQueue
) -> None:
    """A partner event emitted in a unit of work left without commit() is never delivered."""
    partner.partners.create_webhook(reseller, PartnerWebhookInput("All", URL))
    with uow.partners() as unit:
        unit.emit(reseller, DomainEvent("partner.client.updated", {"client_id": 1}, NOW))

    assert delivery_queue.claim(NOW, LEASE, 10) == []


def test_a_refused_redeem_leaves_the_token_unused(
    uow: UnitOfWorkFactory, grant: Impersonation, clock: FakeClock
) -> None:
    """A redeem refused for expiry does not use the token up: a redeem dated before its expiry still works."""
    _add_token(uow, grant, clock)
    with uow.partners() as unit:
        late = unit.impersonations.redeem(DIGEST, clock.now() + timedelta(minutes=6))
        in_time = unit.impersonations.redeem(DIGEST, clock.now())
        unit.commit()

    assert (late, in_time) == (None, grant)


def _two_filled_clients(uow: UnitOfWorkFactory, partner: PartnerServices, clock: FakeClock) -> tuple[int, int, int]:
    """A partner with two client workspaces, each holding a record of every kind."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    doomed = partner.clients.create(partner_id, client_input("Doomed", "a@doomed.example")).client.id
    kept = partner.clients.create(partner_id, client_input("Kept", "a@kept.example")).client.id
    for account_id in (doomed, kept):
        fill_workspace(uow, account_id, partner_id, clock.now())
    return partner_id, doomed, kept


def _records(uow: UnitOfWorkFactory, account_id: int) -> dict[str, int]:
    """How many records of each kind the workspace's repositories read (a sample of every area)."""
    page = PageRequest(per_page=100)
    with uow.workspace(account_id, readonly=True) as unit:
        counts = {
            "contacts": unit.contacts.count(),
            "tags": unit.tags.list(ALL_TAGS).total,
            "lists": len(unit.lists.list()),
            "segments": len(unit.segments.list(NOW)),
            "webhooks": len(unit.webhooks.list()),
            "products": unit.products.find(ProductFilter(), page).total,
            "orders": unit.orders.find(OrderFilter(), page).total,
            "channels": len(unit.channels.list()),
            "conversations": unit.messages.conversations(ConversationFilter(), page).total,
            "departments": len(unit.departments.list()),
            "team": unit.team.find(None, page).total,
            "tickets": unit.tickets.find(TicketFilter(), page).total,
            "booking_types": len(unit.booking_types.list()),
            "resources": len(unit.resources.list()),
            "bookings": unit.bookings.find(BookingFilter(), page).total,
            "working_hours": int(unit.working_hours.get() is not None),
            "resource_schedules": len(unit.working_hours.resource_schedules()),
        }
    with uow.admin(readonly=True) as admin:
        counts["account"] = int(admin.accounts.get(account_id) is not None)
    return counts


def test_every_kind_of_record_is_filled_before_the_delete(
    uow: UnitOfWorkFactory, partner: PartnerServices, clock: FakeClock
) -> None:
    """The set-up really gives both workspaces a record of every kind counted."""
    _, doomed, kept = _two_filled_clients(uow, partner, clock)

    empty = [name for account in (doomed, kept) for name, n in _records(uow, account).items() if n == 0]

    assert empty == []


def test_deleting_a_client_leaves_nothing_of_its_workspace(
    uow: UnitOfWorkFactory,
    partner: PartnerServices,
    clock: FakeClock,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """After the delete no repository reads a record of the deleted workspace, its account included."""
    partner_id, doomed, _ = _two_filled_clients(uow, partner, clock)

    partner.clients.delete(partner_id, doomed)

    left = {name: n for name, n in _records(uow, doomed).items() if n}
    assert (left, outbox_events(doomed)) == ({}, [])


def test_deleting_a_client_leaves_another_workspace_untouched(
    uow: UnitOfWorkFactory, partner: PartnerServices, clock: FakeClock
) -> None:
    """Every record of the other client's workspace is still there after the delete."""
    partner_id, doomed, kept = _two_filled_clients(uow, partner, clock)
    before = _records(uow, kept)

    partner.clients.delete(partner_id, doomed)

    assert _records(uow, kept) == before


def test_another_partner_cannot_delete_the_client_through_the_repository(
    uow: UnitOfWorkFactory, partner: PartnerServices, clock: FakeClock
) -> None:
    """The repository's delete with another partner's id removes nothing."""
    partner_id, doomed, _ = _two_filled_clients(uow, partner, clock)
    intruder = partner.partners.create("Intruder", "ops@intruder.example").partner.id
    before = _records(uow, doomed)

    with uow.partners() as unit:
        unit.clients.delete(intruder, doomed)
        unit.commit()

    assert (_records(uow, doomed), partner.clients.get(partner_id, doomed).id) == (before, doomed)
