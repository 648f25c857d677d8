"""Partner clients in SQL: provisioning through the service, filters, isolation between partners,
state changes, and the seat limit under concurrent creation."""

from __future__ import annotations

from collections import Counter

import pytest

from engage_core.kernel.errors import Conflict, Forbidden, NotFound
from engage_core.kernel.pagination import PageRequest
from engage_core.partners.client_service import ClientPatch
from engage_core.partners.model import ClientFilter
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.partners import outbox as partner_outbox

from .concurrency import at_once, outcome
from .partner_support import PartnerServices, client_input, partner_services


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database, clock)


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
    database: Database, partner: PartnerServices, reseller: int
) -> None:
    """A created client is active, names its admin team member, and that member exists in the workspace."""
    created = partner.clients.create(reseller, client_input()).client

    stored = partner.clients.get(reseller, created.id)
    with database.uow.workspace(created.id, readonly=True) as uow:
        admin = uow.team.get(stored.primary_user.id or 0)
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
    database: Database, partner: PartnerServices, reseller: int
) -> None:
    """The per-request look-up by workspace needs no partner."""
    created = partner.clients.create(reseller, client_input()).client

    with database.uow.partners(readonly=True) as uow:
        found = uow.clients.of_account(created.id)
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


def test_concurrent_creates_never_exceed_the_seats(partner: PartnerServices, reseller: int) -> None:
    """Of 20 concurrent creates with 5 seats, exactly 5 succeed and the others are refused for seats."""
    partner.partners.set_seats(reseller, 5)

    results = at_once(20, lambda n: partner.clients.create(reseller, client_input(f"Client {n}", f"a@{n}.example")))

    assert (Counter(outcome(r) for r in results), partner.clients.seats_used(reseller)) == (
        {"ok": 5, "Forbidden client_seats_exhausted": 15},
        5,
    )


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


def test_client_events_are_in_the_partner_outbox(database: Database, partner: PartnerServices, reseller: int) -> None:
    """Every change of a client writes its partner event, in order."""
    client = partner.clients.create(reseller, client_input()).client
    partner.clients.suspend(reseller, client.id)
    partner.clients.reactivate(reseller, client.id)
    partner.clients.delete(reseller, client.id)

    with database.engine.connect() as connection:
        names = [event.name for event in partner_outbox.read(connection, reseller)]
    assert names == [
        "partner.client.created",
        "partner.client.suspended",
        "partner.client.reactivated",
        "partner.client.deleted",
    ]
