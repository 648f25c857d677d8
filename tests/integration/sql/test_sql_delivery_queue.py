"""The delivery log as the worker's queue on SQL only: leases, completions and retries as the rows of
`webhook_attempts` record them, a delete racing a completion, and the connections a call takes (what
every queue must do is in tests/contract/test_contract_webhooks.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, event, select

from engage_core.kernel.events import DomainEvent
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_core.webhooks.model import RESPONSE_EXCERPT_LIMIT, Completion, NextStep, Outcome, Subscription
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


def _rows(database: Database) -> list[dict[str, Any]]:
    with database.engine.connect() as connection:
        rows = connection.execute(select(webhook_attempts).order_by(webhook_attempts.c.id))
        return [dict(row._mapping) for row in rows]


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
