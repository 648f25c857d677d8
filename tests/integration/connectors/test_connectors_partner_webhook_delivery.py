"""Partner-level deliveries end to end: the SQL outbox and queue, the real DeliveryWorker,
HttpWebhookSender and FernetCipher, to a local HTTPS receiver that checks the partner envelope and
its `X-Service-Signature` the way a partner's receiver would."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from datetime import UTC, datetime

from receiver import MakeReceiver

from engage_connectors.secrets import FernetCipher
from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core.partners.client_service import AdminInput, ClientInput, PartnerClientService
from engage_core.partners.partner_service import PartnerService, PartnerWebhookInput
from engage_core.testing import AllowAllTargets, FakeClock, FakeMailer, FakePasswordHasher
from engage_core.webhooks.delivery import DeliveryWorker
from engage_sql import Database


def test_a_partner_delivery_is_signed_in_x_service_signature(
    database: Database, make_sender: Callable[..., HttpWebhookSender], make_receiver: MakeReceiver
) -> None:
    """The receiver gets `event`, ISO `timestamp`, `partner_id`, `data`, signed with the partner secret."""
    clock = FakeClock(datetime.now(UTC))
    cipher = FernetCipher("a-long-enough-test-secret-key")
    partners = PartnerService(database.uow, clock, cipher, AllowAllTargets())
    clients = PartnerClientService(database.uow, clock, FakePasswordHasher(), FakeMailer(), "https://app.example.com")
    receiver = make_receiver()
    partner_id = partners.create("Agency", "owner@agency.example").partner.id
    secret = partners.create_webhook(partner_id, PartnerWebhookInput("CRM", receiver.url("/partner"))).secret
    client = clients.create(
        partner_id, ClientInput("Acme", "pro", AdminInput("Ada", "L", "ada@acme.example"), skip_invite=True)
    ).client
    worker = DeliveryWorker(database.delivery_queue(), make_sender(), cipher, clock)

    sent = worker.run_once()

    [request] = receiver.wait_for(1)
    expected = "sha256=" + hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
    signature = request.header("X-Service-Signature") or ""
    body = json.loads(request.body)
    assert sent == 1
    assert hmac.compare_digest(signature, expected)
    assert request.header("X-Service-Event") == "partner.client.created"
    assert (body["event"], body["partner_id"], body["data"]["client_id"]) == (
        "partner.client.created",
        partner_id,
        client.id,
    )
    assert datetime.fromisoformat(body["timestamp"].replace("Z", "+00:00")).tzinfo is not None
