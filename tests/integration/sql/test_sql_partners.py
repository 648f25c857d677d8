"""Partners on SQL only: the unique slug, and the partner outbox and its attempts read from their tables
(the rest is in tests/contract/test_contract_partners.py)."""

from __future__ import annotations

import pytest
from partner_workspace import PartnerServices, client_input, partner_services
from sqlalchemy import select

from engage_core.kernel.events import DomainEvent
from engage_core.partners.model import PartnerDraft
from engage_core.partners.partner_service import PartnerWebhookInput
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.partners import outbox as partner_outbox
from engage_sql.webhooks.tables import webhook_attempts

from .conftest import START

DRAFT = PartnerDraft("Reseller Ltd", "reseller-ltd", "ops@reseller.example", "agency", 25)
URL = "https://hooks.reseller.example/engage"


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database.uow, clock)


def _attempts(database: Database) -> list[tuple[str, int, int | None, int, str]]:
    a = webhook_attempts.c
    with database.engine.connect() as connection:
        query = select(a.kind, a.owner_id, a.account_id, a.webhook_id, a.event_type).order_by(a.id)
        return [tuple(row) for row in connection.execute(query)]


def _events(database: Database, partner_id: int) -> list[str]:
    with database.engine.connect() as connection:
        return [event.name for event in partner_outbox.read(connection, partner_id)]


def _add(database: Database, draft: PartnerDraft = DRAFT, digest: str = "d" * 64) -> int | None:
    with database.uow.partners() as uow:
        partner = uow.partners.add(draft, digest, "enp_abcd…", START)
        uow.commit()
    return None if partner is None else partner.id


def test_slugs_are_unique(database: Database) -> None:
    """A second partner with a taken slug is skipped by the unique index: nothing is stored."""
    _add(database)

    assert _add(database, digest="e" * 64) is None
    with database.uow.partners() as uow:
        assert len(uow.partners.list()) == 1


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
    assert partner_id is not None
    with database.uow.partners() as uow:
        uow.emit(partner_id, DomainEvent("partner.client.updated", {"client_id": 1}, START))

    assert (_events(database, partner_id), _attempts(database)) == ([], [])
