"""Webhooks: subscriptions and their delivery log, the outbox that fills it, the delivery log as the
worker's queue, and the delivery worker over that queue, on every adapter."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta

import attrs
import pytest
from support import NOW

from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import NotFound
from engage_core.kernel.events import TEST_EVENT, DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.partners.client_service import AdminInput, ClientInput, ClientPatch
from engage_core.services import Services
from engage_core.testing import FakeCipher, FakeClock, FakeSender, SentRequest
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.webhooks.delivery import NOT_IN_PLAN, DeliveryWorker
from engage_core.webhooks.model import (
    MAX_ATTEMPTS,
    RESPONSE_EXCERPT_LIMIT,
    Attempt,
    Claim,
    Completion,
    NextStep,
    Outcome,
    Subscription,
)
from engage_core.webhooks.ports import DeliveryQueue
from engage_core.webhooks.service import RevealedSecret, WebhookInput, WebhookPatch
from engage_core.webhooks.signatures import verify_signature

URL = "https://hooks.example.com/engage"
LEASE = 60.0
OK = Outcome(200, "ok", None)
FAILED = Outcome(500, "boom", None)


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


@pytest.fixture
def revealed(services: Services, account: int) -> RevealedSecret:
    """A subscription to `contact.created`, with its secret as revealed at creation."""
    return services.webhooks.create(account, WebhookInput("Hook", URL, ["contact.created"]))


@pytest.fixture
def hook(services: Services, account: int) -> Subscription:
    return services.webhooks.create(account, WebhookInput("Hook", URL)).subscription


@pytest.fixture
def emit(uow: UnitOfWorkFactory, account: int) -> Callable[..., None]:
    """`emit(*names, at=NOW, account_id=account)`: commit events (one attempt each per subscription)."""

    def commit(*names: str, at: datetime = NOW, account_id: int | None = None) -> None:
        with uow.workspace(account if account_id is None else account_id) as unit:
            for n, name in enumerate(names):
                unit.emit(DomainEvent(name, {"n": n}, at))
            unit.commit()

    return commit


def _worker(delivery_queue: DeliveryQueue, sender: FakeSender, clock: FakeClock) -> DeliveryWorker:
    return DeliveryWorker(delivery_queue, sender, FakeCipher(), clock, lease_seconds=LEASE)


def _attempts_of(uow: UnitOfWorkFactory, account: int, webhook_id: int) -> list[Attempt]:
    """The subscription's delivery log, oldest first."""
    with uow.workspace(account, readonly=True) as unit:
        return list(reversed(unit.webhooks.attempts(webhook_id, None, PageRequest(per_page=100)).items))


def _add(
    uow: UnitOfWorkFactory, account: int, name: str = "Hook", events: tuple[str, ...] = (), *, is_active: bool = True
) -> Subscription:
    with uow.workspace(account) as unit:
        created = unit.webhooks.add(name, URL, events, is_active, "cipher-1", NOW)
        unit.commit()
    return created


def _enqueue(
    uow: UnitOfWorkFactory, account: int, webhook_id: int, delivery_id: str = "d-1", attempt_number: int = 1
) -> Attempt:
    with uow.workspace(account) as unit:
        attempt = unit.webhooks.enqueue(
            webhook_id, "contact.created", {"id": 7, "name": "Ada"}, delivery_id, attempt_number, NOW, NOW
        )
        unit.commit()
    return attempt


def test_added_subscription_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """add() returns the subscription, and get() reads the same back, event filter included."""
    created = _add(uow, account, events=("contact.created", "order.created"))

    with uow.workspace(account, readonly=True) as unit:
        assert unit.webhooks.get(created.id) == created
    assert (created.name, created.url, created.events, created.is_active) == (
        "Hook",
        URL,
        ("contact.created", "order.created"),
        True,
    )


def test_list_is_oldest_first_and_active_leaves_out_disabled(uow: UnitOfWorkFactory, account: int) -> None:
    """list() shows every subscription by id; active() only the enabled ones."""
    first = _add(uow, account, "First")
    second = _add(uow, account, "Second", is_active=False)
    third = _add(uow, account, "Third")

    with uow.workspace(account, readonly=True) as unit:
        assert (list(unit.webhooks.list()), list(unit.webhooks.active())) == ([first, second, third], [first, third])


def test_update_stores_every_field(uow: UnitOfWorkFactory, account: int) -> None:
    """update() stores name, url, events, is_active and updated_at."""
    created = _add(uow, account)
    changed = attrs.evolve(
        created,
        name="Renamed",
        url="https://other.example.com/hook",
        events=("order.created",),
        is_active=False,
        updated_at=NOW + timedelta(hours=1),
    )

    with uow.workspace(account) as unit:
        unit.webhooks.update(changed)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.webhooks.get(created.id) == changed


def test_set_secret_replaces_the_ciphertext(uow: UnitOfWorkFactory, account: int) -> None:
    """set_secret() replaces the stored ciphertext that secret_ciphertext() reads."""
    created = _add(uow, account)

    with uow.workspace(account) as unit:
        before = unit.webhooks.secret_ciphertext(created.id)
        unit.webhooks.set_secret(created.id, "cipher-2", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert (before, unit.webhooks.secret_ciphertext(created.id)) == ("cipher-1", "cipher-2")


def test_other_accounts_subscription_is_absent(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's subscription cannot be read, listed, changed, deleted or used."""
    theirs = _add(uow, other, "Theirs")

    with uow.workspace(account) as unit:
        unit.webhooks.update(attrs.evolve(theirs, name="Mine now"))
        unit.webhooks.set_secret(theirs.id, "stolen", NOW)
        unit.webhooks.delete(theirs.id)
        assert (unit.webhooks.get(theirs.id), unit.webhooks.list(), unit.webhooks.active()) == (None, [], [])
        with pytest.raises(NotFound):
            unit.webhooks.secret_ciphertext(theirs.id)
        with pytest.raises(NotFound):
            unit.webhooks.enqueue(theirs.id, "contact.created", {}, "d-1", 1, NOW, NOW)
        unit.commit()

    with uow.workspace(other, readonly=True) as unit:
        assert (unit.webhooks.get(theirs.id), unit.webhooks.secret_ciphertext(theirs.id)) == (theirs, "cipher-1")


def test_other_accounts_log_is_absent(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's attempts are not in the log, in a delivery, nor readable as a payload."""
    theirs = _add(uow, other, "Theirs")
    attempt = _enqueue(uow, other, theirs.id)

    with uow.workspace(account, readonly=True) as unit:
        assert (
            unit.webhooks.attempts(theirs.id, None, PageRequest()).total,
            unit.webhooks.delivery(theirs.id, "d-1"),
        ) == (
            0,
            [],
        )
        with pytest.raises(NotFound):
            unit.webhooks.payload(attempt.id)


def test_enqueue_queues_a_pending_attempt(uow: UnitOfWorkFactory, account: int) -> None:
    """enqueue() returns a pending attempt with no outcome yet, and keeps its payload."""
    created = _add(uow, account)

    attempt = _enqueue(uow, account, created.id, "d-1", 2)

    with uow.workspace(account, readonly=True) as unit:
        payload = unit.webhooks.payload(attempt.id)
    assert attempt == Attempt(
        attempt.id, created.id, "d-1", "contact.created", 2, "pending", None, None, None, NOW, NOW, None
    )
    assert payload == {"id": 7, "name": "Ada"}


def test_log_is_newest_first_and_paginated(uow: UnitOfWorkFactory, account: int) -> None:
    """attempts() pages through the log newest first, with the total of every page."""
    created = _add(uow, account)
    ids = [_enqueue(uow, account, created.id, f"d-{n}").id for n in range(5)]

    with uow.workspace(account, readonly=True) as unit:
        first = unit.webhooks.attempts(created.id, None, PageRequest(page=1, per_page=2))
        last = unit.webhooks.attempts(created.id, None, PageRequest(page=3, per_page=2))
        beyond = unit.webhooks.attempts(created.id, None, PageRequest(page=4, per_page=2))

    assert [a.id for a in first.items] == ids[::-1][:2]
    assert ([a.id for a in last.items], last.total, beyond.items, beyond.total) == ([ids[0]], 5, [], 5)


def test_delivery_lists_its_attempts_oldest_first(uow: UnitOfWorkFactory, account: int) -> None:
    """delivery() returns the attempts of one delivery_id only, oldest first."""
    created = _add(uow, account)
    first = _enqueue(uow, account, created.id, "d-1", 1)
    _enqueue(uow, account, created.id, "d-2", 1)
    second = _enqueue(uow, account, created.id, "d-1", 2)

    with uow.workspace(account, readonly=True) as unit:
        assert [a.id for a in unit.webhooks.delivery(created.id, "d-1")] == [first.id, second.id]


def test_send_test_queues_a_test_delivery(services: Services, account: int) -> None:
    """The `webhook.test` delivery is queued whatever the subscription's event filter."""
    created = services.webhooks.create(account, WebhookInput("Hook", URL, ["order.created"])).subscription

    queued = services.webhooks.send_test(account, created.id)

    page = services.webhooks.deliveries(account, created.id, None, PageRequest())
    assert ([a.id for a in page.items], queued.event_type, queued.status) == ([queued.id], TEST_EVENT, "pending")


def test_claim_returns_everything_needed_to_send(
    delivery_queue: DeliveryQueue, hook: Subscription, account: int, emit: Callable[..., None], uow: UnitOfWorkFactory
) -> None:
    """A claim carries the attempt, its lease, and the subscription's url and secret ciphertext."""
    emit("contact.created")
    (row,) = _attempts_of(uow, account, hook.id)

    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    with uow.workspace(account, readonly=True) as unit:
        secret = unit.webhooks.secret_ciphertext(hook.id)
    assert claim == Claim(
        attempt_id=row.id,
        lease_token=claim.lease_token,
        kind="workspace",
        owner_id=account,
        webhook_id=hook.id,
        url=URL,
        secret_ciphertext=secret,
        event_type="contact.created",
        payload={"n": 0},
        delivery_id=row.delivery_id,
        attempt_number=1,
    )


def test_claim_takes_only_due_attempts(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """An attempt due later is not claimed before its time, and is claimed once it is due."""
    emit("contact.created", at=NOW + timedelta(minutes=5))

    assert (
        len(delivery_queue.claim(NOW, LEASE, 10)),
        len(delivery_queue.claim(NOW + timedelta(minutes=5), LEASE, 10)),
    ) == (0, 1)


def test_claim_takes_the_earliest_due_first_up_to_the_limit(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Claims come oldest due first (then by id), and no more than `limit`."""
    emit("contact.updated", at=NOW + timedelta(seconds=2))
    emit("contact.created", "contact.deleted", at=NOW)
    later = NOW + timedelta(minutes=1)

    claims = delivery_queue.claim(later, LEASE, 2)

    assert [c.event_type for c in claims] == ["contact.created", "contact.deleted"]


def test_claim_with_a_zero_limit_claims_nothing(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """A limit of 0 leases nothing."""
    emit("contact.created")

    assert (delivery_queue.claim(NOW, LEASE, 0), len(delivery_queue.claim(NOW, LEASE, 10))) == ([], 1)


def test_leased_attempt_is_not_claimed_again(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """While its lease runs, an attempt is not handed to another claim."""
    emit("contact.created")
    delivery_queue.claim(NOW, LEASE, 10)

    assert delivery_queue.claim(NOW + timedelta(seconds=LEASE - 1), LEASE, 10) == []


def test_expired_lease_is_claimed_again_with_a_new_token(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """When a lease ends without a completion (a killed worker), the attempt is claimed again."""
    emit("contact.created")
    (first,) = delivery_queue.claim(NOW, LEASE, 10)

    (second,) = delivery_queue.claim(NOW + timedelta(seconds=LEASE), LEASE, 10)

    assert (second.attempt_id, second.delivery_id) == (first.attempt_id, first.delivery_id)
    assert second.lease_token != first.lease_token


def test_two_claims_never_return_the_same_attempt(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Successive claims split the due attempts between them, each attempt once."""
    emit(*["contact.updated"] * 5)

    first, second = delivery_queue.claim(NOW, LEASE, 3), delivery_queue.claim(NOW, LEASE, 3)

    ids = [c.attempt_id for c in (*first, *second)]
    assert (len(first), len(second), len(set(ids))) == (3, 2, 5)


def test_every_claimed_attempt_has_its_own_token(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Each attempt of one claim gets a distinct random lease token."""
    emit(*["contact.updated"] * 5)

    tokens = [c.lease_token for c in delivery_queue.claim(NOW, LEASE, 10)]

    assert len(set(tokens)) == 5
    assert all(len(t) == 32 and int(t, 16) >= 0 for t in tokens)


def test_claim_spans_accounts(
    delivery_queue: DeliveryQueue, services: Services, make_account: Callable[..., int], emit: Callable[..., None]
) -> None:
    """The queue serves every account, each claim naming the owner."""
    owners = [make_account("First"), make_account("Second")]
    for owner in owners:
        services.webhooks.create(owner, WebhookInput("Hook", URL))
        emit("contact.created", account_id=owner)

    assert sorted(c.owner_id for c in delivery_queue.claim(NOW, LEASE, 10)) == sorted(owners)


def test_regenerated_secret_signs_the_next_attempt(
    delivery_queue: DeliveryQueue, services: Services, account: int, hook: Subscription, emit: Callable[..., None]
) -> None:
    """The secret is read at claim time: an attempt claimed after a rotation carries the new one."""
    emit("contact.created")
    rotated = services.webhooks.regenerate_secret(account, hook.id)

    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    assert FakeCipher().decrypt(claim.secret_ciphertext) == rotated.secret


def test_completed_attempt_is_not_claimed_again(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Delivered and failed attempts leave the queue for good, lease or no lease."""
    emit("contact.created", "contact.updated")
    delivered, failed = delivery_queue.claim(NOW, LEASE, 10)
    delivery_queue.complete(delivered, OK, NextStep("delivered", None), NOW)
    delivery_queue.complete(failed, FAILED, NextStep("failed", None), NOW)

    assert delivery_queue.claim(NOW + timedelta(days=1), LEASE, 10) == []


def test_log_shows_the_attempts_of_a_delivery(
    delivery_queue: DeliveryQueue, services: Services, account: int, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Through the service, the log shows each attempt with its number, status and response, newest first."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)
    delivery_queue.complete(claim, FAILED, NextStep("failed", NOW), NOW)
    (retry,) = delivery_queue.claim(NOW, LEASE, 10)
    delivery_queue.complete(retry, OK, NextStep("delivered", None), NOW)

    log = services.webhooks.deliveries(account, hook.id, None, PageRequest()).items
    failed_only = services.webhooks.deliveries(account, hook.id, "failed", PageRequest()).items

    assert [(a.attempt_number, a.status, a.response_status_code, a.delivery_id) for a in log] == [
        (2, "delivered", 200, claim.delivery_id),
        (1, "failed", 500, claim.delivery_id),
    ]
    assert [a.attempt_number for a in failed_only] == [1]


def test_complete_and_claim_claims_after_recording(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """The claims of the same call include a retry the recording just queued, once it is due."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    _, claims = delivery_queue.complete_and_claim([Completion(claim, FAILED, NextStep("failed", NOW))], NOW, LEASE, 10)

    assert [(c.delivery_id, c.attempt_number) for c in claims] == [(claim.delivery_id, 2)]


def test_a_released_claim_is_due_again_at_once(
    delivery_queue: DeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Releasing a claim never sent ends its lease: the claims of the same call take it again, with a new token."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    _, claims = delivery_queue.complete_and_claim([], NOW, LEASE, 10, release=[claim])

    assert [(c.attempt_id, c.lease_token != claim.lease_token) for c in claims] == [(claim.attempt_id, True)]


def _scripted(*statuses: int) -> FakeSender:
    """A sender answering with these status codes in turn, then 200."""
    answers: Iterator[int] = iter(statuses)

    def respond(_request: SentRequest) -> Outcome:
        code = next(answers, 200)
        return Outcome(code, f"answer {code}", None)

    return FakeSender(respond)


def _log(services: Services, account: int, revealed: RevealedSecret) -> list[Attempt]:
    """The delivery log, oldest first."""
    page = services.webhooks.deliveries(account, revealed.subscription.id, None, PageRequest(per_page=100))
    return list(reversed(page.items))


def _create_contact(services: Services, account: int) -> None:
    services.contacts.create(account, ContactInput(name="Ada", type="whatsapp", phone="+966501234567"))


def test_failures_are_retried_until_delivered(
    services: Services, account: int, revealed: RevealedSecret, clock: FakeClock, delivery_queue: DeliveryQueue
) -> None:
    """Two failures then a success: attempts 1..3, failed, failed, delivered, due at 0, +2 and +12 minutes."""
    _create_contact(services, account)
    worker = _worker(delivery_queue, _scripted(500, 503), clock)

    runs = [worker.run_once()]
    runs.append(worker.run_once())  # attempt 2 is not due yet
    clock.advance(minutes=2)
    runs.append(worker.run_once())
    clock.advance(minutes=10)
    runs.append(worker.run_once())
    runs.append(worker.run_once())  # nothing left

    log = _log(services, account, revealed)
    assert runs == [1, 0, 1, 1, 0]
    assert [(a.attempt_number, a.status, a.response_status_code, a.response_body) for a in log] == [
        (1, "failed", 500, "answer 500"),
        (2, "failed", 503, "answer 503"),
        (3, "delivered", 200, "answer 200"),
    ]
    assert [a.due_at for a in log] == [NOW, NOW + timedelta(minutes=2), NOW + timedelta(minutes=12)]
    assert len({a.delivery_id for a in log}) == 1


def test_fourth_failure_is_final(
    services: Services, account: int, revealed: RevealedSecret, clock: FakeClock, delivery_queue: DeliveryQueue
) -> None:
    """A delivery that always fails is tried four times, 2, 10 and 30 minutes apart, then never again."""
    _create_contact(services, account)
    worker = _worker(delivery_queue, _scripted(*[500] * 10), clock)

    for wait in (0, 2, 10, 30, 24 * 60):
        clock.advance(minutes=wait)
        worker.run_once()

    log = _log(services, account, revealed)
    assert [(a.attempt_number, a.status) for a in log] == [(n, "failed") for n in range(1, MAX_ATTEMPTS + 1)]
    assert [a.due_at - NOW for a in log] == [timedelta(minutes=m) for m in (0, 2, 12, 42)]


def test_every_attempt_is_sent_with_the_same_delivery_id(
    services: Services, account: int, revealed: RevealedSecret, clock: FakeClock, delivery_queue: DeliveryQueue
) -> None:
    """The receiver sees one delivery id across the retries, and the attempt number of each."""
    _create_contact(services, account)
    sender = _scripted(500)
    worker = _worker(delivery_queue, sender, clock)

    worker.run_once()
    clock.advance(minutes=2)
    worker.run_once()

    (delivery_id,) = {a.delivery_id for a in _log(services, account, revealed)}
    assert [(r.headers["X-Service-Delivery"], r.headers["X-Service-Attempt"]) for r in sender.sent] == [
        (delivery_id, "1"),
        (delivery_id, "2"),
    ]
    assert {json.loads(r.body)["delivery_id"] for r in sender.sent} == {delivery_id}


def test_delivery_is_signed_with_the_subscriptions_secret(
    services: Services, account: int, revealed: RevealedSecret, clock: FakeClock, delivery_queue: DeliveryQueue
) -> None:
    """The body a receiver gets verifies against the secret revealed at creation."""
    _create_contact(services, account)
    sender = FakeSender()

    _worker(delivery_queue, sender, clock).run_once()

    (request,) = sender.sent
    verify_signature(
        revealed.secret,
        request.body,
        request.headers["X-Service-Signature-256"],
        request.headers["X-Service-Timestamp"],
        now=clock.now().timestamp(),
    )
    assert (request.url, json.loads(request.body)["event"]) == (URL, "contact.created")


def test_killed_workers_attempt_is_sent_again_after_the_lease(
    services: Services, account: int, revealed: RevealedSecret, clock: FakeClock, delivery_queue: DeliveryQueue
) -> None:
    """An attempt claimed by a worker that died is delivered by another once the lease ends."""
    _create_contact(services, account)
    (lost,) = delivery_queue.claim(clock.now(), LEASE, 10)  # the worker dies here
    sender = FakeSender()
    survivor = _worker(delivery_queue, sender, clock)

    before = survivor.run_once()
    clock.advance(seconds=LEASE)
    after = survivor.run_once()

    log = _log(services, account, revealed)
    assert (before, after, [(a.attempt_number, a.status) for a in log]) == (0, 1, [(1, "delivered")])
    assert sender.sent[0].headers["X-Service-Delivery"] == lost.delivery_id


def test_late_completion_of_a_lost_lease_is_ignored(
    services: Services, account: int, revealed: RevealedSecret, clock: FakeClock, delivery_queue: DeliveryQueue
) -> None:
    """A slow worker that finishes after its attempt was re-claimed and delivered records nothing."""
    _create_contact(services, account)
    slow = _worker(delivery_queue, _scripted(500), clock)
    (claim,) = delivery_queue.claim(clock.now(), LEASE, 10)
    clock.advance(seconds=LEASE)
    _worker(delivery_queue, FakeSender(), clock).run_once()

    recorded = slow.deliver(claim)

    log = _log(services, account, revealed)
    assert (recorded, [(a.attempt_number, a.status) for a in log]) == (False, [(1, "delivered")])


def _complete(delivery_queue: DeliveryQueue, claim: Claim, outcome: Outcome, retry_at: datetime | None = None) -> bool:
    """Record `outcome` for `claim`: delivered when it is a 2xx, failed (retried at `retry_at`) otherwise."""
    delivered = outcome.status_code is not None and 200 <= outcome.status_code < 300
    return delivery_queue.complete(claim, outcome, NextStep("delivered" if delivered else "failed", retry_at), NOW)


def test_the_outbox_queues_one_attempt_per_active_subscription_that_wants_the_event(
    services: Services, uow: UnitOfWorkFactory, account: int
) -> None:
    """A contact.created reaches subscriptions to every event and to contact.created, and no other."""
    hooks = [
        services.webhooks.create(account, WebhookInput(name, URL, events, active)).subscription
        for name, events, active in (
            ("All", [], True),
            ("Contacts", ["contact.created", "contact.deleted"], True),
            ("Orders", ["order.created"], True),
            ("Off", ["contact.created"], False),
        )
    ]

    _create_contact(services, account)

    assert [[a.event_type for a in _attempts_of(uow, account, h.id)] for h in hooks] == [
        ["contact.created"],
        ["contact.created"],
        [],
        [],
    ]


def test_the_first_attempt_is_pending_and_due_when_the_event_occurred(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Attempt 1 of an event is pending, due at the event's time, and carries the event's payload."""
    emit("contact.created", at=NOW - timedelta(minutes=1))

    (attempt,) = _attempts_of(uow, account, hook.id)
    with uow.workspace(account, readonly=True) as unit:
        payload = unit.webhooks.payload(attempt.id)

    assert (attempt.attempt_number, attempt.status, attempt.due_at, attempt.completed_at, payload) == (
        1,
        "pending",
        NOW - timedelta(minutes=1),
        None,
        {"n": 0},
    )


def test_every_delivery_of_the_outbox_has_its_own_uuid(
    services: Services, uow: UnitOfWorkFactory, account: int, emit: Callable[..., None]
) -> None:
    """Each event and subscription pair is a delivery of its own, named by a fresh UUID."""
    hooks = [services.webhooks.create(account, WebhookInput(name, URL)).subscription for name in ("A", "B")]

    emit("contact.created", "contact.updated")

    delivery_ids = [a.delivery_id for h in hooks for a in _attempts_of(uow, account, h.id)]
    assert len(set(delivery_ids)) == 4
    assert all(str(uuid.UUID(d)) == d for d in delivery_ids)


def test_the_outbox_queues_in_the_order_the_events_were_emitted(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Attempt ids grow with the order the events of one commit were emitted."""
    names = ["contact.created", "contact.updated", "contact.deleted"]

    emit(*names)

    assert [a.event_type for a in _attempts_of(uow, account, hook.id)] == names


def test_a_disabled_subscription_gets_no_event_until_enabled(
    services: Services, uow: UnitOfWorkFactory, account: int
) -> None:
    """Events of the time a subscription was disabled are never queued for it; later ones are."""
    hook = services.webhooks.create(account, WebhookInput("Hook", URL, is_active=False)).subscription
    services.contacts.create(account, ContactInput(name="While off", type="instagram"))

    services.webhooks.update(account, hook.id, WebhookPatch(is_active=True))
    services.contacts.create(account, ContactInput(name="While on", type="instagram"))

    with uow.workspace(account, readonly=True) as unit:
        names = [unit.webhooks.payload(a.id)["name"] for a in _attempts_of(uow, account, hook.id)]
    assert names == ["While on"]


def test_another_accounts_events_do_not_reach_a_subscription(
    uow: UnitOfWorkFactory, account: int, other: int, hook: Subscription, emit: Callable[..., None]
) -> None:
    """A subscription receives the events of its own account only."""
    emit("contact.created", account_id=other)

    assert _attempts_of(uow, account, hook.id) == []


def test_a_rolled_back_unit_of_work_queues_nothing(uow: UnitOfWorkFactory, account: int, hook: Subscription) -> None:
    """Events of a unit of work left without commit() queue no delivery."""
    with uow.workspace(account) as unit:
        unit.emit(DomainEvent("contact.created", {"id": 1}, NOW))

    assert _attempts_of(uow, account, hook.id) == []


def test_delete_removes_the_subscriptions_log(uow: UnitOfWorkFactory, account: int) -> None:
    """After delete() the subscription is gone and its log holds no attempt."""
    created = _add(uow, account)
    _enqueue(uow, account, created.id)

    with uow.workspace(account) as unit:
        unit.webhooks.delete(created.id)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert (unit.webhooks.get(created.id), unit.webhooks.attempts(created.id, None, PageRequest()).total) == (
            None,
            0,
        )


def test_the_log_filters_by_status(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """attempts(status=...) shows only the attempts in that status, and counts only those."""
    emit("contact.created", "contact.updated", "contact.deleted")
    failed, pending, delivered = delivery_queue.claim(NOW, LEASE, 10)
    _complete(delivery_queue, failed, FAILED)
    _complete(delivery_queue, delivered, OK)

    with uow.workspace(account, readonly=True) as unit:
        pages = {
            status: unit.webhooks.attempts(hook.id, status, PageRequest())
            for status in ("pending", "delivered", "failed")
        }
    found = {status: ([a.id for a in page.items], page.total) for status, page in pages.items()}

    assert found == {
        "pending": ([pending.attempt_id], 1),
        "delivered": ([delivered.attempt_id], 1),
        "failed": ([failed.attempt_id], 1),
    }


def test_a_claim_of_a_disabled_subscription_waits_until_it_is_enabled(
    services: Services, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A due attempt of a disabled subscription is not claimed; once enabled again, it is."""
    emit("contact.created")
    services.webhooks.update(account, hook.id, WebhookPatch(is_active=False))
    while_off = delivery_queue.claim(NOW, LEASE, 10)

    services.webhooks.update(account, hook.id, WebhookPatch(is_active=True))

    assert (while_off, len(delivery_queue.claim(NOW, LEASE, 10))) == ([], 1)


def test_complete_records_the_delivery_in_the_log(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A success is in the log as delivered, with its response and completion time; nothing more is queued."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)
    done = NOW + timedelta(seconds=3)

    assert delivery_queue.complete(claim, OK, NextStep("delivered", None), done)

    (attempt,) = _attempts_of(uow, account, hook.id)
    assert (
        attempt.status,
        attempt.response_status_code,
        attempt.response_body,
        attempt.error,
        attempt.completed_at,
    ) == (
        "delivered",
        200,
        "ok",
        None,
        done,
    )


def test_complete_queues_the_next_attempt_of_the_same_delivery(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A failure with a retry time queues attempt 2 of the same delivery, event and payload, due then."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)
    retry_at = NOW + timedelta(minutes=2)

    _complete(delivery_queue, claim, FAILED, retry_at)

    failed, retry = _attempts_of(uow, account, hook.id)
    with uow.workspace(account, readonly=True) as unit:
        payloads = [unit.webhooks.payload(a.id) for a in (failed, retry)]
    assert (failed.status, failed.response_status_code, failed.response_body) == ("failed", 500, "boom")
    assert (retry.delivery_id, retry.event_type, retry.attempt_number, retry.status, retry.due_at) == (
        failed.delivery_id,
        failed.event_type,
        2,
        "pending",
        retry_at,
    )
    assert payloads == [{"n": 0}, {"n": 0}]


def test_a_final_failure_queues_nothing(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A failure without a retry time ends the delivery."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    _complete(delivery_queue, claim, Outcome(None, None, "timed out"))

    assert [(a.status, a.error) for a in _attempts_of(uow, account, hook.id)] == [("failed", "timed out")]


def test_complete_with_a_lost_lease_changes_nothing(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A worker whose lease ended and was re-claimed cannot complete: False, and the log is as it was."""
    emit("contact.created")
    (stale,) = delivery_queue.claim(NOW, LEASE, 10)
    delivery_queue.claim(NOW + timedelta(seconds=LEASE), LEASE, 10)
    before = _attempts_of(uow, account, hook.id)

    completed = _complete(delivery_queue, stale, FAILED, NOW + timedelta(minutes=2))

    assert (completed, _attempts_of(uow, account, hook.id)) == (False, before)


def test_an_attempt_is_completed_only_once(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A second completion of the same claim is refused and queues no second retry."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)
    retry_at = NOW + timedelta(minutes=2)

    results = (_complete(delivery_queue, claim, FAILED, retry_at), _complete(delivery_queue, claim, FAILED, retry_at))

    assert (results, len(_attempts_of(uow, account, hook.id))) == ((True, False), 2)


def test_complete_after_the_subscription_was_deleted_is_false(
    services: Services, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """Deleting a subscription takes its queued attempts with it: completing one records nothing."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)
    services.webhooks.delete(account, hook.id)

    assert _complete(delivery_queue, claim, FAILED, NOW + timedelta(minutes=2)) is False


def test_the_stored_response_is_bounded(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """Only the first RESPONSE_EXCERPT_LIMIT characters of a response body are kept."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)

    _complete(delivery_queue, claim, Outcome(200, "é" * (RESPONSE_EXCERPT_LIMIT + 10), None))

    assert _attempts_of(uow, account, hook.id)[0].response_body == "é" * RESPONSE_EXCERPT_LIMIT


def test_complete_and_claim_records_each_outcome_in_order(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """One call records a delivery, a failure with its retry and a final failure, in the order given."""
    emit("contact.created", "contact.updated", "contact.deleted")
    first, second, third = delivery_queue.claim(NOW, LEASE, 10)
    retry_at = NOW + timedelta(minutes=2)

    recorded, _ = delivery_queue.complete_and_claim(
        [
            Completion(first, OK, NextStep("delivered", None)),
            Completion(second, FAILED, NextStep("failed", retry_at)),
            Completion(third, Outcome(None, None, "timed out"), NextStep("failed", None)),
        ],
        NOW,
        LEASE,
        0,
    )

    assert list(recorded) == [True, True, True]
    assert [(a.event_type, a.attempt_number, a.status, a.due_at) for a in _attempts_of(uow, account, hook.id)] == [
        ("contact.created", 1, "delivered", NOW),
        ("contact.updated", 1, "failed", NOW),
        ("contact.deleted", 1, "failed", NOW),
        ("contact.updated", 2, "pending", retry_at),
    ]


def test_complete_and_claim_refuses_only_the_lost_lease(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A claim whose lease was re-claimed is refused; the others of the same call are recorded."""
    later = NOW + timedelta(seconds=LEASE)
    emit("contact.created")
    (stale,) = delivery_queue.claim(NOW, LEASE, 10)
    delivery_queue.claim(later, LEASE, 10)
    emit("contact.updated", at=later)
    (fresh,) = delivery_queue.claim(later, LEASE, 10)
    delivered = NextStep("delivered", None)

    recorded, _ = delivery_queue.complete_and_claim(
        [Completion(stale, OK, delivered), Completion(fresh, OK, delivered)], later, LEASE, 0
    )

    assert list(recorded) == [False, True]
    assert [a.status for a in _attempts_of(uow, account, hook.id)] == ["pending", "delivered"]


def test_complete_and_claim_records_a_repeated_claim_once(
    uow: UnitOfWorkFactory, account: int, hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """The same claim twice in one call: recorded once, one retry queued."""
    emit("contact.created")
    (claim,) = delivery_queue.claim(NOW, LEASE, 10)
    failure = Completion(claim, FAILED, NextStep("failed", NOW + timedelta(minutes=2)))

    recorded, _ = delivery_queue.complete_and_claim([failure, failure], NOW, LEASE, 0)

    assert (list(recorded), len(_attempts_of(uow, account, hook.id))) == ([True, False], 2)


def test_releasing_a_lost_lease_leaves_the_new_holders_lease(
    hook: Subscription, emit: Callable[..., None], delivery_queue: DeliveryQueue
) -> None:
    """A release that comes after the lease was re-claimed does not make the attempt due again."""
    later = NOW + timedelta(seconds=LEASE)
    emit("contact.created")
    (stale,) = delivery_queue.claim(NOW, LEASE, 10)
    delivery_queue.claim(later, LEASE, 10)

    _, claims = delivery_queue.complete_and_claim([], later, LEASE, 10, release=[stale])

    assert claims == []


# -- a workspace whose plan lost webhooks -----------------------------------------------------------


@pytest.fixture
def pro_client(services: Services) -> tuple[int, int]:
    """(partner id, client workspace id) of a partner's client on `pro`, which has webhooks."""
    partner_id = services.partners.create("Reseller", "ops@reseller.example").partner.id
    admin = AdminInput("Ada", "Admin", "ada@client.example")
    client = services.partner_clients.create(partner_id, ClientInput("Client", "pro", admin, skip_invite=True)).client
    return partner_id, client.id


def _downgrade(services: Services, partner_id: int, client_id: int, plan: str = "starter") -> None:
    services.partner_clients.update(partner_id, client_id, ClientPatch(plan=plan, immediate=True))


def _gated_worker(
    delivery_queue: DeliveryQueue, sender: FakeSender, clock: FakeClock, services: Services
) -> DeliveryWorker:
    """A worker that asks the plans which workspaces it may deliver to, claiming up to 4 attempts a run."""
    return DeliveryWorker(
        delivery_queue, sender, FakeCipher(), clock, lease_seconds=LEASE, concurrency=4, gate=services.entitlements
    )


def test_after_a_downgrade_queued_attempts_are_not_sent(
    uow: UnitOfWorkFactory,
    services: Services,
    delivery_queue: DeliveryQueue,
    clock: FakeClock,
    pro_client: tuple[int, int],
    emit: Callable[..., None],
) -> None:
    """Attempts queued on pro and after the move to starter alike end failed, unsent, naming the plan."""
    partner_id, client_id = pro_client
    hook = services.webhooks.create(client_id, WebhookInput("Hook", URL)).subscription
    emit("contact.created", at=clock.now(), account_id=client_id)
    _downgrade(services, partner_id, client_id)
    emit("contact.created", at=clock.now(), account_id=client_id)
    sender = FakeSender()

    _gated_worker(delivery_queue, sender, clock, services).run_once()

    attempts = _attempts_of(uow, client_id, hook.id)
    assert (sender.sent, [(a.status, a.error) for a in attempts]) == ([], [("failed", NOT_IN_PLAN)] * 2)


def test_after_an_upgrade_new_events_are_delivered_again(
    uow: UnitOfWorkFactory,
    services: Services,
    delivery_queue: DeliveryQueue,
    clock: FakeClock,
    pro_client: tuple[int, int],
    emit: Callable[..., None],
) -> None:
    """Back on pro, the worker delivers the workspace's new events."""
    partner_id, client_id = pro_client
    services.webhooks.create(client_id, WebhookInput("Hook", URL))
    _downgrade(services, partner_id, client_id)
    _downgrade(services, partner_id, client_id, "pro")
    emit("contact.created", at=clock.now(), account_id=client_id)
    sender = FakeSender()

    _gated_worker(delivery_queue, sender, clock, services).run_once()

    assert len(sender.sent) == 1


def test_the_gate_spares_other_workspaces(
    services: Services,
    delivery_queue: DeliveryQueue,
    clock: FakeClock,
    pro_client: tuple[int, int],
    account: int,
    emit: Callable[..., None],
) -> None:
    """A workspace on a plan with webhooks is delivered to while another, downgraded, is not."""
    partner_id, client_id = pro_client
    for workspace in (client_id, account):
        services.webhooks.create(workspace, WebhookInput("Hook", URL))
    _downgrade(services, partner_id, client_id)
    for workspace in (client_id, account):
        emit("contact.created", at=clock.now(), account_id=workspace)
    sender = FakeSender()

    _gated_worker(delivery_queue, sender, clock, services).run_once()

    assert len(sender.sent) == 1
