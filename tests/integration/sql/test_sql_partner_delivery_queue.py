"""Partner-level attempts in the SQL delivery queue: claimed with the partner subscription's own secret."""

from __future__ import annotations

import pytest

from engage_core.partners.partner_service import PartnerWebhookInput, RevealedPartnerSecret
from engage_core.testing import FakeCipher, FakeClock
from engage_sql import Database

from .conftest import START
from .partner_support import PartnerServices, client_input, partner_services

URL = "https://partner.example.com/hooks"
LEASE = 60.0


@pytest.fixture
def world(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database, clock)


@pytest.fixture
def partner_id(world: PartnerServices) -> int:
    return world.partners.create("Agency", "owner@agency.example").partner.id


@pytest.fixture
def partner_hook(world: PartnerServices, partner_id: int) -> RevealedPartnerSecret:
    return world.partners.create_webhook(partner_id, PartnerWebhookInput("CRM", URL, ["partner.client.created"]))


def test_a_partner_attempt_is_claimed_with_the_partner_secret(
    database: Database, world: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret
) -> None:
    """Creating a client queues a `partner` attempt; its claim carries the partner, the url and the secret."""
    client = world.clients.create(partner_id, client_input()).client

    (claim,) = database.delivery_queue().claim(START, LEASE, 10)

    assert (claim.kind, claim.owner_id, claim.webhook_id) == ("partner", partner_id, partner_hook.subscription.id)
    assert (claim.url, claim.event_type) == (URL, "partner.client.created")
    assert FakeCipher().decrypt(claim.secret_ciphertext) == partner_hook.secret
    assert claim.payload["client_id"] == client.id


def test_an_unsubscribed_partner_event_queues_nothing(
    database: Database, world: PartnerServices, partner_id: int, partner_hook: RevealedPartnerSecret
) -> None:
    """An event the subscription does not list (suspended) is not queued for it."""
    client = world.clients.create(partner_id, client_input()).client
    database.delivery_queue().claim(START, LEASE, 10)

    world.clients.suspend(partner_id, client.id)

    assert database.delivery_queue().claim(START, LEASE, 10) == []
