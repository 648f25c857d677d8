"""The delivery log as the worker's queue: leases, completions and retries (`SqlDeliveryQueue`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, event, select

from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_core.webhooks.model import RESPONSE_EXCERPT_LIMIT, Claim, Completion, NextStep, Outcome, Subscription
from engage_core.webhooks.service import WebhookInput
from engage_sql import Database
from engage_sql.webhooks import delivery_queue
from engage_sql.webhooks.delivery_queue import SqlDeliveryQueue
from engage_sql.webhooks.tables import webhook_attempts

from .conftest import START

URL = "https://hooks.example.com/engage"
LEASE = 60.0
OK = Outcome(200, "ok", None)
FAILED = Outcome(500, "boom", None)


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    """The services with webhooks configured (a fake cipher, and a guard that allows every target)."""
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets())


@pytest.fixture
def queue(database: Database) -> SqlDeliveryQueue:
    return database.delivery_queue()


@pytest.fixture
def hook(services: Services, account: int) -> Subscription:
    return services.webhooks.create(account, WebhookInput("Hook", URL)).subscription


@pytest.fixture
def emit(database: Database, account: int) -> Callable[..., None]:
    """`emit(*names, at=START, account_id=account)`: commit events (one attempt each per subscription)."""

    def commit(*names: str, at: datetime = START, account_id: int | None = None) -> None:
        with database.uow.workspace(account if account_id is None else account_id) as uow:
            for n, name in enumerate(names):
                uow.emit(DomainEvent(name, {"n": n}, at))
            uow.commit()

    return commit


def _rows(database: Database) -> list[dict[str, Any]]:
    with database.engine.connect() as connection:
        rows = connection.execute(select(webhook_attempts).order_by(webhook_attempts.c.id))
        return [dict(row._mapping) for row in rows]


def test_claim_returns_everything_needed_to_send(
    queue: SqlDeliveryQueue, hook: Subscription, account: int, emit: Callable[..., None], database: Database
) -> None:
    """A claim carries the attempt, its lease, and the subscription's url and secret ciphertext."""
    emit("contact.created")
    (row,) = _rows(database)

    (claim,) = queue.claim(START, LEASE, 10)

    with database.uow.workspace(account, readonly=True) as uow:
        secret = uow.webhooks.secret_ciphertext(hook.id)
    assert claim == Claim(
        attempt_id=row["id"],
        lease_token=claim.lease_token,
        kind="workspace",
        owner_id=account,
        webhook_id=hook.id,
        url=URL,
        secret_ciphertext=secret,
        event_type="contact.created",
        payload={"n": 0},
        delivery_id=row["delivery_id"],
        attempt_number=1,
    )


def test_claim_writes_the_lease(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A claimed attempt stays pending, leased until now + lease, under the claim's token."""
    emit("contact.created")

    (claim,) = queue.claim(START, LEASE, 10)

    (row,) = _rows(database)
    assert (row["status"], row["leased_until"], row["lease_token"]) == (
        "pending",
        START + timedelta(seconds=LEASE),
        claim.lease_token,
    )


def test_claim_takes_only_due_attempts(queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]) -> None:
    """An attempt due later is not claimed before its time, and is claimed once it is due."""
    emit("contact.created", at=START + timedelta(minutes=5))

    assert (len(queue.claim(START, LEASE, 10)), len(queue.claim(START + timedelta(minutes=5), LEASE, 10))) == (0, 1)


def test_claim_takes_the_earliest_due_first_up_to_the_limit(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Claims come oldest due first (then by id), and no more than `limit`."""
    emit("contact.updated", at=START + timedelta(seconds=2))
    emit("contact.created", "contact.deleted", at=START)
    later = START + timedelta(minutes=1)

    claims = queue.claim(later, LEASE, 2)

    assert [c.event_type for c in claims] == ["contact.created", "contact.deleted"]


def test_claim_with_a_zero_limit_claims_nothing(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """A limit of 0 leases nothing."""
    emit("contact.created")

    assert (queue.claim(START, LEASE, 0), len(queue.claim(START, LEASE, 10))) == ([], 1)


def test_leased_attempt_is_not_claimed_again(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """While its lease runs, an attempt is not handed to another claim."""
    emit("contact.created")
    queue.claim(START, LEASE, 10)

    assert queue.claim(START + timedelta(seconds=LEASE - 1), LEASE, 10) == []


def test_expired_lease_is_claimed_again_with_a_new_token(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """When a lease ends without a completion (a killed worker), the attempt is claimed again."""
    emit("contact.created")
    (first,) = queue.claim(START, LEASE, 10)

    (second,) = queue.claim(START + timedelta(seconds=LEASE), LEASE, 10)

    assert (second.attempt_id, second.delivery_id) == (first.attempt_id, first.delivery_id)
    assert second.lease_token != first.lease_token


def test_two_claims_never_return_the_same_attempt(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Successive claims split the due attempts between them, each attempt once."""
    emit(*["contact.updated"] * 5)

    first, second = queue.claim(START, LEASE, 3), queue.claim(START, LEASE, 3)

    ids = [c.attempt_id for c in (*first, *second)]
    assert (len(first), len(second), len(set(ids))) == (3, 2, 5)


def test_every_claimed_attempt_has_its_own_token(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Each attempt of one claim gets a distinct random lease token."""
    emit(*["contact.updated"] * 5)

    tokens = [c.lease_token for c in queue.claim(START, LEASE, 10)]

    assert len(set(tokens)) == 5
    assert all(len(t) == 32 and int(t, 16) >= 0 for t in tokens)


def test_claim_spans_accounts(
    queue: SqlDeliveryQueue, services: Services, make_account: Callable[..., int], emit: Callable[..., None]
) -> None:
    """The queue serves every account, each claim naming the owner."""
    owners = [make_account("First"), make_account("Second")]
    for owner in owners:
        services.webhooks.create(owner, WebhookInput("Hook", URL))
        emit("contact.created", account_id=owner)

    assert sorted(c.owner_id for c in queue.claim(START, LEASE, 10)) == sorted(owners)


def test_regenerated_secret_signs_the_next_attempt(
    queue: SqlDeliveryQueue, services: Services, account: int, hook: Subscription, emit: Callable[..., None]
) -> None:
    """The secret is read at claim time: an attempt claimed after a rotation carries the new one."""
    emit("contact.created")
    rotated = services.webhooks.regenerate_secret(account, hook.id)

    (claim,) = queue.claim(START, LEASE, 10)

    assert FakeCipher().decrypt(claim.secret_ciphertext) == rotated.secret


def test_complete_records_a_delivery(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A success is recorded as delivered, with its response, and frees the lease; nothing more is queued."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)
    done = START + timedelta(seconds=3)

    assert queue.complete(claim, OK, NextStep("delivered", None), done)

    (row,) = _rows(database)
    assert {k: row[k] for k in ("status", "response_status_code", "response_body", "error", "completed_at")} == {
        "status": "delivered",
        "response_status_code": 200,
        "response_body": "ok",
        "error": None,
        "completed_at": done,
    }
    assert (row["leased_until"], row["lease_token"]) == (None, None)


def test_complete_queues_the_retry_of_the_same_delivery(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A failure with a retry time queues attempt n+1: same delivery_id, event and payload, due then."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)
    retry_at = START + timedelta(minutes=2)

    queue.complete(claim, FAILED, NextStep("failed", retry_at), START)

    failed, retry = _rows(database)
    same = ("kind", "owner_id", "account_id", "webhook_id", "delivery_id", "event_type", "payload")
    assert (failed["status"], failed["response_status_code"], failed["response_body"]) == ("failed", 500, "boom")
    assert {k: retry[k] for k in same} == {k: failed[k] for k in same}
    assert (retry["attempt_number"], retry["status"], retry["due_at"], retry["created_at"]) == (
        2,
        "pending",
        retry_at,
        START,
    )


def test_final_failure_queues_nothing(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A failure without a retry time ends the delivery."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)

    queue.complete(claim, Outcome(None, None, "timed out"), NextStep("failed", None), START)

    assert [(r["status"], r["error"]) for r in _rows(database)] == [("failed", "timed out")]


def test_complete_with_a_lost_lease_changes_nothing(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A worker whose lease ended and was re-claimed cannot complete: False, and the row is as the new claim left it."""
    emit("contact.created")
    (stale,) = queue.claim(START, LEASE, 10)
    queue.claim(START + timedelta(seconds=LEASE), LEASE, 10)
    before = _rows(database)

    completed = queue.complete(stale, FAILED, NextStep("failed", START + timedelta(minutes=2)), START)

    assert (completed, _rows(database)) == (False, before)


def test_an_attempt_is_completed_once(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A second completion of the same claim is refused and queues no second retry."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)
    step = NextStep("failed", START + timedelta(minutes=2))

    results = (queue.complete(claim, FAILED, step, START), queue.complete(claim, FAILED, step, START))

    assert (results, len(_rows(database))) == ((True, False), 2)


def test_complete_after_the_subscription_was_deleted(
    queue: SqlDeliveryQueue,
    services: Services,
    account: int,
    hook: Subscription,
    emit: Callable[..., None],
    database: Database,
) -> None:
    """Deleting a subscription takes its queued attempts with it; completing one returns False."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)
    services.webhooks.delete(account, hook.id)

    completed = queue.complete(claim, FAILED, NextStep("failed", START + timedelta(minutes=2)), START)

    assert (completed, _rows(database)) == (False, [])


def test_stored_response_is_bounded(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """Only the first RESPONSE_EXCERPT_LIMIT characters of a response body are kept."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)

    queue.complete(claim, Outcome(200, "é" * (RESPONSE_EXCERPT_LIMIT + 10), None), NextStep("delivered", None), START)

    assert _rows(database)[0]["response_body"] == "é" * RESPONSE_EXCERPT_LIMIT


def test_completed_attempt_is_not_claimed_again(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Delivered and failed attempts leave the queue for good, lease or no lease."""
    emit("contact.created", "contact.updated")
    delivered, failed = queue.claim(START, LEASE, 10)
    queue.complete(delivered, OK, NextStep("delivered", None), START)
    queue.complete(failed, FAILED, NextStep("failed", None), START)

    assert queue.claim(START + timedelta(days=1), LEASE, 10) == []


def test_log_shows_the_attempts_of_a_delivery(
    queue: SqlDeliveryQueue, services: Services, account: int, hook: Subscription, emit: Callable[..., None]
) -> None:
    """Through the service, the log shows each attempt with its number, status and response, newest first."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)
    queue.complete(claim, FAILED, NextStep("failed", START), START)
    (retry,) = queue.claim(START, LEASE, 10)
    queue.complete(retry, OK, NextStep("delivered", None), START)

    log = services.webhooks.deliveries(account, hook.id, None, PageRequest()).items
    failed_only = services.webhooks.deliveries(account, hook.id, "failed", PageRequest()).items

    assert [(a.attempt_number, a.status, a.response_status_code, a.delivery_id) for a in log] == [
        (2, "delivered", 200, claim.delivery_id),
        (1, "failed", 500, claim.delivery_id),
    ]
    assert [a.attempt_number for a in failed_only] == [1]


def test_deleting_a_subscription_while_its_attempt_completes(
    queue: SqlDeliveryQueue,
    services: Services,
    account: int,
    hook: Subscription,
    emit: Callable[..., None],
    database: Database,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A delete that starts while a completion is queueing the retry waits for it: no deadlock, nothing left."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)
    errors: list[BaseException] = []

    def delete_subscription() -> None:
        try:
            services.webhooks.delete(account, hook.id)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    deleting = threading.Thread(target=delete_subscription)
    queue_retries = delivery_queue._NEXT_ATTEMPT.execute_many

    def start_deleting_before_the_retry(connection: Connection, params: Sequence[Mapping[str, Any]]) -> None:
        deleting.start()
        deleting.join(timeout=0.5)  # long enough for the delete to reach the rows this completion holds
        queue_retries(connection, params)

    with monkeypatch.context() as patch:
        patch.setattr(delivery_queue._NEXT_ATTEMPT, "execute_many", start_deleting_before_the_retry)
        completed = queue.complete(claim, FAILED, NextStep("failed", START + timedelta(minutes=2)), START)
    deleting.join(timeout=30)

    assert (completed, errors, _rows(database)) == (True, [], [])


def test_complete_and_claim_records_each_outcome(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """One call records a delivery, a failure with its retry and a final failure, in the order given."""
    emit("contact.created", "contact.updated", "contact.deleted")
    first, second, third = queue.claim(START, LEASE, 10)
    retry_at = START + timedelta(minutes=2)

    recorded, _ = queue.complete_and_claim(
        [
            Completion(first, OK, NextStep("delivered", None)),
            Completion(second, FAILED, NextStep("failed", retry_at)),
            Completion(third, Outcome(None, None, "timed out"), NextStep("failed", None)),
        ],
        START,
        LEASE,
        0,
    )

    assert list(recorded) == [True, True, True]
    assert [(r["event_type"], r["attempt_number"], r["status"], r["due_at"]) for r in _rows(database)] == [
        ("contact.created", 1, "delivered", START),
        ("contact.updated", 1, "failed", START),
        ("contact.deleted", 1, "failed", START),
        ("contact.updated", 2, "pending", retry_at),
    ]


def test_complete_and_claim_claims_after_recording(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """The claims of the same call include a retry the recording just queued, once it is due."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)

    _, claims = queue.complete_and_claim([Completion(claim, FAILED, NextStep("failed", START))], START, LEASE, 10)

    assert [(c.delivery_id, c.attempt_number) for c in claims] == [(claim.delivery_id, 2)]


def test_complete_and_claim_refuses_only_the_lost_lease(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A claim whose lease was re-claimed is refused; the others of the same call are recorded."""
    later = START + timedelta(seconds=LEASE)
    emit("contact.created")
    (stale,) = queue.claim(START, LEASE, 10)
    (fresh,) = queue.claim(later, LEASE, 10)
    emit("contact.updated", at=later)
    (other,) = queue.claim(later, LEASE, 10)
    delivered = NextStep("delivered", None)

    recorded, _ = queue.complete_and_claim(
        [Completion(stale, OK, delivered), Completion(other, OK, delivered)], later, LEASE, 0
    )

    assert list(recorded) == [False, True]
    assert [(r["status"], r["lease_token"]) for r in _rows(database)] == [
        ("pending", fresh.lease_token),
        ("delivered", None),
    ]


def test_complete_and_claim_records_a_repeated_claim_once(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """The same claim twice in one call: recorded once, one retry queued."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)
    failure = Completion(claim, FAILED, NextStep("failed", START + timedelta(minutes=2)))

    recorded, _ = queue.complete_and_claim([failure, failure], START, LEASE, 0)

    assert (list(recorded), len(_rows(database))) == ([True, False], 2)


def test_complete_and_claim_of_nothing_touches_nothing(queue: SqlDeliveryQueue, database: Database) -> None:
    """Nothing to record and a zero limit: not even a connection is taken from the pool."""
    checkouts: list[object] = []

    def checkout(dbapi_connection: object, *_args: object) -> None:
        checkouts.append(dbapi_connection)

    event.listen(database.engine, "checkout", checkout)
    try:
        assert queue.complete_and_claim([], START, LEASE, 0) == ([], [])
    finally:
        event.remove(database.engine, "checkout", checkout)
    assert checkouts == []


def test_a_released_claim_is_due_again_at_once(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """Releasing a claim never sent ends its lease: the claims of the same call take it again, with a new token."""
    emit("contact.created")
    (claim,) = queue.claim(START, LEASE, 10)

    _, claims = queue.complete_and_claim([], START, LEASE, 10, release=[claim])

    assert [(c.attempt_id, c.lease_token != claim.lease_token) for c in claims] == [(claim.attempt_id, True)]


def test_releasing_a_lost_lease_changes_nothing(
    queue: SqlDeliveryQueue, hook: Subscription, emit: Callable[..., None], database: Database
) -> None:
    """A release that comes after the lease was re-claimed leaves the new holder's lease alone."""
    emit("contact.created")
    (stale,) = queue.claim(START, LEASE, 10)
    queue.claim(START + timedelta(seconds=LEASE), LEASE, 10)
    before = _rows(database)

    queue.complete_and_claim([], START + timedelta(seconds=LEASE), LEASE, 0, release=[stale])

    assert _rows(database) == before
