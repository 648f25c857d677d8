"""Partners in SQL: the repository, key authentication, partner webhooks and the partner outbox."""

from __future__ import annotations

import attrs
import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import Unauthenticated
from engage_core.kernel.events import DomainEvent
from engage_core.partners.model import Branding, PartnerDraft
from engage_core.partners.partner_service import PartnerWebhookInput
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.partners import outbox as partner_outbox
from engage_sql.webhooks.tables import webhook_attempts

from .conftest import START
from .partner_support import PartnerServices, client_input, partner_services

DRAFT = PartnerDraft("Reseller Ltd", "reseller-ltd", "ops@reseller.example", "agency", 25)
URL = "https://hooks.reseller.example/engage"


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database, clock)


def _add(database: Database, draft: PartnerDraft = DRAFT, digest: str = "d" * 64) -> int:
    with database.uow.partners() as uow:
        partner_id = uow.partners.add(draft, digest, "enp_abcd…", START).id
        uow.commit()
    return partner_id


def _attempts(database: Database) -> list[tuple[str, int, int | None, int, str]]:
    a = webhook_attempts.c
    with database.engine.connect() as connection:
        query = select(a.kind, a.owner_id, a.account_id, a.webhook_id, a.event_type).order_by(a.id)
        return [tuple(row) for row in connection.execute(query)]


def _events(database: Database, partner_id: int) -> list[str]:
    with database.engine.connect() as connection:
        return [event.name for event in partner_outbox.read(connection, partner_id)]


def test_add_and_get_round_trip(database: Database) -> None:
    """A stored partner reads back active, with every field of its draft."""
    partner_id = _add(database)

    with database.uow.partners(readonly=True) as uow:
        stored = uow.partners.get(partner_id)
    assert stored is not None
    assert (stored.company_name, stored.slug, stored.email, stored.plan, stored.status, stored.client_seats_max) == (
        "Reseller Ltd",
        "reseller-ltd",
        "ops@reseller.example",
        "agency",
        "active",
        25,
    )


def test_by_key_digest_returns_the_partner_and_its_digest(database: Database) -> None:
    """The key look-up finds the partner with the stored digest, and nothing for another digest."""
    partner_id = _add(database)

    with database.uow.partners(readonly=True) as uow:
        found, missing = uow.partners.by_key_digest("d" * 64), uow.partners.by_key_digest("e" * 64)
    assert (found and (found[0].id, found[1]), missing) == ((partner_id, "d" * 64), None)


def test_slugs_are_unique(database: Database) -> None:
    """A second partner with a taken slug is refused by the unique index."""
    _add(database)

    with pytest.raises(IntegrityError):
        _add(database, digest="e" * 64)


def test_slug_taken_reports_stored_slugs_only(database: Database) -> None:
    """`slug_taken` is true for a stored slug and false for another."""
    _add(database)

    with database.uow.partners(readonly=True) as uow:
        assert (uow.partners.slug_taken("reseller-ltd"), uow.partners.slug_taken("other")) == (True, False)


def test_update_stores_status_seats_and_branding(database: Database) -> None:
    """`update` stores the changed fields, branding included."""
    partner_id = _add(database)
    with database.uow.partners() as uow:
        current = uow.partners.get(partner_id)
        assert current is not None
        changed = attrs.evolve(
            current,
            status="suspended",
            client_seats_max=3,
            branding=Branding("https://cdn.example/logo.png", "#112233", "crm.reseller.example"),
        )
        uow.partners.update(changed)
        uow.commit()

    with database.uow.partners(readonly=True) as uow:
        assert uow.partners.get(partner_id) == changed


def test_list_is_ascending_id(database: Database) -> None:
    """Partners are listed oldest first."""
    first = _add(database)
    second = _add(database, attrs.evolve(DRAFT, slug="second"), "e" * 64)

    with database.uow.partners(readonly=True) as uow:
        assert [p.id for p in uow.partners.list()] == [first, second]


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
    database: Database, partner: PartnerServices, account: int
) -> None:
    """Another partner and every workspace see none of a partner's subscriptions."""
    owner = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    other = partner.partners.create("Other", "ops@other.example").partner.id
    hook = partner.partners.create_webhook(owner, PartnerWebhookInput("Ops", URL)).subscription

    with database.uow.partners(readonly=True) as uow:
        seen_by_other = (uow.partner_webhooks.get(other, hook.id), uow.partner_webhooks.list(other))
    with database.uow.workspace(account, readonly=True) as workspace:
        seen_by_workspace = (workspace.webhooks.get(hook.id), workspace.webhooks.list())
    assert (seen_by_other, seen_by_workspace) == ((None, []), (None, []))


def test_partner_event_queues_a_partner_attempt_for_each_active_subscription(
    database: Database, partner: PartnerServices
) -> None:
    """A client creation writes its event and one `partner` attempt per active, interested subscription."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    wanted = partner.partners.create_webhook(partner_id, PartnerWebhookInput("All", URL)).subscription
    partner.partners.create_webhook(partner_id, PartnerWebhookInput("Off", URL, is_active=False))
    partner.partners.create_webhook(partner_id, PartnerWebhookInput("Other", URL, ["partner.client.deleted"]))

    partner.clients.create(partner_id, client_input())

    assert (_events(database, partner_id), _attempts(database)) == (
        ["partner.client.created"],
        [("partner", partner_id, None, wanted.id, "partner.client.created")],
    )


def test_partner_events_of_a_rolled_back_change_are_not_written(database: Database) -> None:
    """Leaving the unit of work without commit writes neither the event nor its attempt."""
    partner_id = _add(database)
    with database.uow.partners() as uow:
        uow.emit(partner_id, DomainEvent("partner.client.updated", {"client_id": 1}, START))

    assert (_events(database, partner_id), _attempts(database)) == ([], [])


def test_delivery_queue_claims_partner_attempts(database: Database, partner: PartnerServices) -> None:
    """The shared delivery queue hands out a partner attempt as kind `partner`, owner the partner."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    partner.partners.create_webhook(partner_id, PartnerWebhookInput("All", URL))
    partner.clients.create(partner_id, client_input())

    claims = database.delivery_queue().claim(START.replace(year=2027), 30.0, 10)

    assert [(c.kind, c.owner_id, c.url, c.event_type) for c in claims] == [
        ("partner", partner_id, URL, "partner.client.created")
    ]
