"""The delivery worker (`engage_core.webhooks.delivery`) over the SQL queue: retries, leases, signatures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import timedelta

import pytest

from engage_core.contacts.contact_service import ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, FakeSender, SentRequest
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.model import MAX_ATTEMPTS, Attempt, Outcome
from engage_core.webhooks.service import RevealedSecret, WebhookInput
from engage_core.webhooks.signatures import verify_signature
from engage_sql import Database

from .conftest import START

URL = "https://hooks.example.com/engage"
LEASE = 60.0


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    """The services with webhooks configured (a fake cipher, and a guard that allows every target)."""
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets())


@pytest.fixture
def hook(services: Services, account: int) -> RevealedSecret:
    return services.webhooks.create(account, WebhookInput("Hook", URL, ["contact.created"]))


def _scripted(*statuses: int) -> FakeSender:
    """A sender answering with these status codes in turn, then 200."""
    answers: Iterator[int] = iter(statuses)

    def respond(_request: SentRequest) -> Outcome:
        code = next(answers, 200)
        return Outcome(code, f"answer {code}", None)

    return FakeSender(respond)


def _worker(database: Database, sender: FakeSender, clock: FakeClock) -> DeliveryWorker:
    return DeliveryWorker(database.delivery_queue(), sender, FakeCipher(), clock, lease_seconds=LEASE)


def _log(services: Services, account: int, hook: RevealedSecret) -> list[Attempt]:
    """The delivery log, oldest first."""
    page = services.webhooks.deliveries(account, hook.subscription.id, None, PageRequest(per_page=100))
    return list(reversed(page.items))


def _create_contact(services: Services, account: int) -> None:
    services.contacts.create(account, ContactInput(name="Ada", type="whatsapp", phone="+966501234567"))


def test_failures_are_retried_until_delivered(
    database: Database, services: Services, account: int, hook: RevealedSecret, clock: FakeClock
) -> None:
    """Two failures then a success: attempts 1..3, failed, failed, delivered, due at 0, +2 and +12 minutes."""
    _create_contact(services, account)
    worker = _worker(database, _scripted(500, 503), clock)

    runs = [worker.run_once()]
    runs.append(worker.run_once())  # attempt 2 is not due yet
    clock.advance(minutes=2)
    runs.append(worker.run_once())
    clock.advance(minutes=10)
    runs.append(worker.run_once())
    runs.append(worker.run_once())  # nothing left

    log = _log(services, account, hook)
    assert runs == [1, 0, 1, 1, 0]
    assert [(a.attempt_number, a.status, a.response_status_code, a.response_body) for a in log] == [
        (1, "failed", 500, "answer 500"),
        (2, "failed", 503, "answer 503"),
        (3, "delivered", 200, "answer 200"),
    ]
    assert [a.due_at for a in log] == [START, START + timedelta(minutes=2), START + timedelta(minutes=12)]
    assert len({a.delivery_id for a in log}) == 1


def test_fourth_failure_is_final(
    database: Database, services: Services, account: int, hook: RevealedSecret, clock: FakeClock
) -> None:
    """A delivery that always fails is tried four times, 2, 10 and 30 minutes apart, then never again."""
    _create_contact(services, account)
    worker = _worker(database, _scripted(*[500] * 10), clock)

    for wait in (0, 2, 10, 30, 24 * 60):
        clock.advance(minutes=wait)
        worker.run_once()

    log = _log(services, account, hook)
    assert [(a.attempt_number, a.status) for a in log] == [(n, "failed") for n in range(1, MAX_ATTEMPTS + 1)]
    assert [a.due_at - START for a in log] == [timedelta(minutes=m) for m in (0, 2, 12, 42)]


def test_every_attempt_is_sent_with_the_same_delivery_id(
    database: Database, services: Services, account: int, hook: RevealedSecret, clock: FakeClock
) -> None:
    """The receiver sees one delivery id across the retries, and the attempt number of each."""
    _create_contact(services, account)
    sender = _scripted(500)
    worker = _worker(database, sender, clock)

    worker.run_once()
    clock.advance(minutes=2)
    worker.run_once()

    (delivery_id,) = {a.delivery_id for a in _log(services, account, hook)}
    assert [(r.headers["X-Service-Delivery"], r.headers["X-Service-Attempt"]) for r in sender.sent] == [
        (delivery_id, "1"),
        (delivery_id, "2"),
    ]
    assert {json.loads(r.body)["delivery_id"] for r in sender.sent} == {delivery_id}


def test_delivery_is_signed_with_the_subscriptions_secret(
    database: Database, services: Services, account: int, hook: RevealedSecret, clock: FakeClock
) -> None:
    """The body a receiver gets verifies against the secret revealed at creation."""
    _create_contact(services, account)
    sender = FakeSender()

    _worker(database, sender, clock).run_once()

    (request,) = sender.sent
    verify_signature(
        hook.secret,
        request.body,
        request.headers["X-Service-Signature-256"],
        request.headers["X-Service-Timestamp"],
        now=clock.now().timestamp(),
    )
    assert (request.url, json.loads(request.body)["event"]) == (URL, "contact.created")


def test_killed_workers_attempt_is_sent_again_after_the_lease(
    database: Database, services: Services, account: int, hook: RevealedSecret, clock: FakeClock
) -> None:
    """An attempt claimed by a worker that died is delivered by another once the lease ends."""
    _create_contact(services, account)
    (lost,) = database.delivery_queue().claim(clock.now(), LEASE, 10)  # the worker dies here
    sender = FakeSender()
    survivor = _worker(database, sender, clock)

    before = survivor.run_once()
    clock.advance(seconds=LEASE)
    after = survivor.run_once()

    log = _log(services, account, hook)
    assert (before, after, [(a.attempt_number, a.status) for a in log]) == (0, 1, [(1, "delivered")])
    assert sender.sent[0].headers["X-Service-Delivery"] == lost.delivery_id


def test_late_completion_of_a_lost_lease_is_ignored(
    database: Database, services: Services, account: int, hook: RevealedSecret, clock: FakeClock
) -> None:
    """A slow worker that finishes after its attempt was re-claimed and delivered records nothing."""
    _create_contact(services, account)
    slow = _worker(database, _scripted(500), clock)
    (claim,) = database.delivery_queue().claim(clock.now(), LEASE, 10)
    clock.advance(seconds=LEASE)
    _worker(database, FakeSender(), clock).run_once()

    recorded = slow.deliver(claim)

    log = _log(services, account, hook)
    assert (recorded, [(a.attempt_number, a.status) for a in log]) == (False, [(1, "delivered")])
