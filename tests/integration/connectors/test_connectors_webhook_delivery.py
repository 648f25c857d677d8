"""Real deliveries end to end: services and outbox over the in-memory fakes, the real DeliveryWorker,
HttpWebhookSender, DnsTargetGuard and FernetCipher, to a local HTTPS receiver that verifies what it
gets the way a customer's receiver would (the `standardwebhooks` package and `verify_signature`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
import standardwebhooks
from receiver import Answer, MakeReceiver, Receiver

from engage_connectors.secrets import FernetCipher
from engage_connectors.ssrf import AddressPolicy
from engage_connectors.target_guard import DnsTargetGuard
from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core import InvalidSignature, verify_signature
from engage_core.contacts.model import ContactInput
from engage_core.kernel.clock import Clock
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import FakeClock, InMemoryDeliveryQueue, InMemoryUnitOfWorkFactory
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.service import WebhookInput
from engage_core.webhooks.signatures import sign_body


@dataclass
class World:
    """Everything a delivery passes through, with one account in it."""

    services: Services
    worker: DeliveryWorker
    account_id: int

    def subscribe(self, receiver: Receiver, events: tuple[str, ...] = ()) -> tuple[int, str]:
        """A webhook to `receiver`: (webhook id, secret)."""
        revealed = self.services.webhooks.create(
            self.account_id, WebhookInput(name="Receiver", url=receiver.url("/hook"), events=events)
        )
        return revealed.subscription.id, revealed.secret

    def add_contact(self, name: str = "Zoë Ødegård") -> None:
        self.services.contacts.create(self.account_id, ContactInput(name=name, type="instagram"))


MakeWorld = Callable[..., World]


@pytest.fixture
def make_world(make_sender: Callable[..., HttpWebhookSender]) -> MakeWorld:
    """`make_world(clock=None) -> World`, configured from the environment as `engage serve` is
    (SSL_CERT_FILE trusts the test CA, ENGAGE_WEBHOOK_ALLOWED_HOSTS=127.0.0.1). The clock is a
    FakeClock set to the real time, so receivers' five-minute checks pass."""

    def make(clock: Clock | None = None) -> World:
        sender = make_sender()
        policy = AddressPolicy.from_setting(Settings.from_env().webhook_allowed_hosts)
        clock = clock or FakeClock(datetime.now(UTC))
        cipher = FernetCipher("a-long-enough-test-secret-key")
        uow = InMemoryUnitOfWorkFactory()
        services = Services.build(uow, clock, cipher=cipher, guard=DnsTargetGuard(policy))
        worker = DeliveryWorker(InMemoryDeliveryQueue(uow.store), sender, cipher, clock)
        return World(services, worker, services.accounts.create("Acme").account.id)

    return make


def test_a_delivery_verifies_with_standard_webhooks(make_world: MakeWorld, make_receiver: MakeReceiver) -> None:
    """A real delivery passes `standardwebhooks.Webhook(secret).verify(body, headers)`."""
    world, receiver = make_world(), make_receiver()
    _, secret = world.subscribe(receiver)
    world.add_contact()
    assert world.worker.run_once() == 1
    [request] = receiver.wait_for(1)
    envelope = standardwebhooks.Webhook(secret).verify(request.body, request.headers)
    assert envelope == json.loads(request.body)
    assert envelope["event"] == "contact.created"


def test_a_delivery_verifies_with_verify_signature(make_world: MakeWorld, make_receiver: MakeReceiver) -> None:
    """X-Service-Signature-256 is sha256= + hex HMAC of the exact body bytes, and verify_signature accepts it."""
    world, receiver = make_world(), make_receiver()
    _, secret = world.subscribe(receiver)
    world.add_contact()
    world.worker.run_once()
    [request] = receiver.wait_for(1)
    assert request.header("X-Service-Signature-256") == sign_body(secret, request.body)
    verify_signature(
        secret, request.body, request.header("X-Service-Signature-256"), request.header("X-Service-Timestamp")
    )


def test_a_delivery_carries_the_spec_headers_and_envelope(make_world: MakeWorld, make_receiver: MakeReceiver) -> None:
    """The receiver gets the SPEC 6 headers and an envelope whose ids and time agree with them."""
    world, receiver = make_world(), make_receiver()
    world.subscribe(receiver)
    world.add_contact()
    world.worker.run_once()
    [request] = receiver.wait_for(1)
    envelope = json.loads(request.body)
    assert request.header("Content-Type") == "application/json"
    assert request.header("X-Service-Event") == envelope["event"] == "contact.created"
    assert request.header("X-Service-Delivery") == request.header("webhook-id") == envelope["delivery_id"]
    assert request.header("X-Service-Timestamp") == request.header("webhook-timestamp") == str(envelope["timestamp"])
    assert envelope["data"]["name"] == "Zoë Ødegård"


def test_a_delivery_signed_with_another_secret_is_rejected(make_world: MakeWorld, make_receiver: MakeReceiver) -> None:
    """Another webhook's secret verifies neither signature of the delivery."""
    world, receiver = make_world(), make_receiver()
    world.subscribe(receiver)
    world.add_contact()
    world.worker.run_once()
    [request] = receiver.wait_for(1)
    other = world.services.webhooks.create(world.account_id, WebhookInput(name="Other", url=receiver.url())).secret
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(other).verify(request.body, request.headers)
    with pytest.raises(InvalidSignature):
        verify_signature(
            other, request.body, request.header("X-Service-Signature-256"), request.header("X-Service-Timestamp")
        )


def test_a_delivered_attempt_is_logged_with_the_answer(make_world: MakeWorld, make_receiver: MakeReceiver) -> None:
    """After a 2xx the delivery log shows the attempt delivered with the receiver's status and body."""
    world, receiver = make_world(), make_receiver()
    receiver.answer_with(Answer(202, b"queued"))
    webhook_id, _ = world.subscribe(receiver)
    world.add_contact()
    world.worker.run_once()
    [attempt] = world.services.webhooks.deliveries(world.account_id, webhook_id, None, PageRequest()).items
    assert (attempt.status, attempt.response_status_code, attempt.response_body) == ("delivered", 202, "queued")


def test_a_failed_delivery_is_retried_with_the_same_id_and_a_fresh_signature(
    make_world: MakeWorld, make_receiver: MakeReceiver
) -> None:
    """A 500 is retried two minutes later with the same delivery_id, a new timestamp and a valid signature."""
    clock = FakeClock(datetime.now(UTC))
    world, receiver = make_world(clock), make_receiver()
    receiver.answer_with(Answer(500, b"down"), Answer(200))
    _, secret = world.subscribe(receiver)
    world.add_contact()
    world.worker.run_once()
    assert world.worker.run_once() == 0  # the retry is not due yet
    clock.advance(minutes=2)
    assert world.worker.run_once() == 1
    first, second = receiver.wait_for(2)
    assert json.loads(first.body)["delivery_id"] == json.loads(second.body)["delivery_id"]
    assert int(second.header("X-Service-Timestamp") or 0) - int(first.header("X-Service-Timestamp") or 0) == 120
    assert second.header("X-Service-Attempt") == "2"
    verify_signature(
        secret,
        second.body,
        second.header("X-Service-Signature-256"),
        second.header("X-Service-Timestamp"),
        now=clock.now().timestamp(),
    )


def test_a_regenerated_secret_signs_the_next_delivery(make_world: MakeWorld, make_receiver: MakeReceiver) -> None:
    """After regenerate-secret, deliveries verify with the new secret and no longer with the old one."""
    world, receiver = make_world(), make_receiver()
    webhook_id, old = world.subscribe(receiver)
    new = world.services.webhooks.regenerate_secret(world.account_id, webhook_id).secret
    world.add_contact()
    world.worker.run_once()
    [request] = receiver.wait_for(1)
    standardwebhooks.Webhook(new).verify(request.body, request.headers)
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(old).verify(request.body, request.headers)


def test_a_test_delivery_reaches_the_receiver(make_world: MakeWorld, make_receiver: MakeReceiver) -> None:
    """POST /webhooks/{id}/test's service call sends a signed webhook.test delivery."""
    world, receiver = make_world(), make_receiver()
    webhook_id, secret = world.subscribe(receiver, events=("order.created",))
    world.services.webhooks.send_test(world.account_id, webhook_id)
    world.worker.run_once()
    [request] = receiver.wait_for(1)
    envelope = standardwebhooks.Webhook(secret).verify(request.body, request.headers)
    assert envelope["event"] == "webhook.test"
    assert envelope["data"]["webhook_id"] == webhook_id
