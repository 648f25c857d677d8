"""Delivery: `DeliveryWorker` over the fakes (`render`'s headers and body are in test_render.py)."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest

from engage_core.kernel.events import DomainEvent
from engage_core.testing import (
    FakeCipher,
    FakeClock,
    FakeSender,
    InMemoryDeliveryQueue,
    InMemoryStore,
    InMemoryUnitOfWorkFactory,
    SentRequest,
)
from engage_core.webhooks.delivery import (
    AHEAD_PER_SLOT,
    AHEAD_PER_SLOT_MOST,
    NOT_IN_PLAN,
    DeliveryWorker,
    ahead_per_slot,
)
from engage_core.webhooks.fakes import WebhooksTables
from engage_core.webhooks.model import Attempt, Claim, Completion, Outcome
from engage_core.webhooks.signatures import generate_secret, sign_body

from ..factories import START

# -- the worker ------------------------------------------------------------------------------------

Respond = Callable[[SentRequest], Outcome]


class World:
    """One account with one subscription, its queue, and a worker whose sender answers as told."""

    def __init__(self, respond: Respond | None = None, **worker_options: Any) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.store: InMemoryStore = self.uow.store
        self.cipher = FakeCipher()
        self.secret = generate_secret()
        with self.uow.workspace(1) as uow:
            self.webhook = uow.webhooks.add(
                "Hook", "https://hooks.example.com/in", (), True, self.cipher.encrypt(self.secret), START
            )
            uow.commit()
        self.sender = FakeSender(respond)
        self.queue = InMemoryDeliveryQueue(self.store)
        self.worker = DeliveryWorker(self.queue, self.sender, self.cipher, self.clock, **worker_options)

    def emit(self, count: int = 1) -> None:
        with self.uow.workspace(1) as uow:
            for i in range(count):
                uow.emit(DomainEvent("contact.created", {"id": i}, self.clock.now()))
            uow.commit()

    def attempts(self) -> list[Attempt]:
        return sorted(
            (row.attempt for row in self.store.state.of(WebhooksTables).attempts.values()), key=lambda a: a.id
        )


@pytest.fixture
def make_world() -> Callable[..., World]:
    """`make_world(respond=None, **worker_options) -> World`; the sender answers 200 unless told otherwise."""
    return World


def answer(status: int | None, error: str | None = None) -> Respond:
    return lambda _request: Outcome(status, "body", error)


def test_a_due_attempt_is_sent_and_marked_delivered(make_world: Callable[..., World]) -> None:
    """run_once sends the pending attempt and records it delivered with the answer."""
    world = make_world()
    world.emit()
    assert world.worker.run_once() == 1
    [attempt] = world.attempts()
    assert (attempt.status, attempt.response_status_code, attempt.completed_at) == ("delivered", 200, START)
    assert len(world.sender.sent) == 1


def test_an_empty_queue_sends_nothing(make_world: Callable[..., World]) -> None:
    """With nothing due, run_once claims nothing."""
    world = make_world()
    assert world.worker.run_once() == 0
    assert world.sender.sent == []


def test_the_request_goes_to_the_subscription_url_signed(make_world: Callable[..., World]) -> None:
    """The sender gets the subscription's URL and a body signed with its decrypted secret."""
    world = make_world()
    world.emit()
    world.worker.run_once()
    [request] = world.sender.sent
    assert request.url == "https://hooks.example.com/in"
    assert request.headers["X-Service-Signature-256"] == sign_body(world.secret, request.body)


def test_a_failure_queues_the_next_attempt_two_minutes_later(make_world: Callable[..., World]) -> None:
    """A 500 marks attempt 1 failed and queues attempt 2 due two minutes after."""
    world = make_world(answer(500))
    world.emit()
    world.worker.run_once()
    first, second = world.attempts()
    assert (first.status, first.response_status_code) == ("failed", 500)
    assert (second.status, second.attempt_number, second.due_at) == ("pending", 2, START + timedelta(minutes=2))
    assert second.delivery_id == first.delivery_id


def test_a_retry_is_not_sent_before_it_is_due(make_world: Callable[..., World]) -> None:
    """Until two minutes have passed, the retry stays in the queue."""
    world = make_world(answer(500))
    world.emit()
    world.worker.run_once()
    world.clock.advance(seconds=119)
    assert world.worker.run_once() == 0
    world.clock.advance(seconds=1)
    assert world.worker.run_once() == 1


def test_a_timeout_is_a_failure(make_world: Callable[..., World]) -> None:
    """An outcome with an error is recorded failed with that error, and retried."""
    world = make_world(answer(None, "The receiver did not answer in time."))
    world.emit()
    world.worker.run_once()
    first, second = world.attempts()
    assert (first.status, first.error) == ("failed", "The receiver did not answer in time.")
    assert second.status == "pending"


def test_each_attempt_is_signed_at_its_own_time(make_world: Callable[..., World]) -> None:
    """A retry carries the time it is sent, so it passes the receiver's five-minute check."""
    world = make_world(answer(500))
    world.emit()
    world.worker.run_once()
    world.clock.advance(minutes=2)
    world.worker.run_once()
    first, second = world.sender.sent
    assert int(second.headers["X-Service-Timestamp"]) - int(first.headers["X-Service-Timestamp"]) == 120
    assert json.loads(second.body)["timestamp"] == int(second.headers["X-Service-Timestamp"])


def test_a_secret_that_cannot_be_decrypted_fails_the_attempt(make_world: Callable[..., World]) -> None:
    """Without a usable secret nothing is sent; the attempt fails, saying why, and is retried."""
    world = make_world()
    world.store.state.of(WebhooksTables).webhook_secrets[world.webhook.id] = "not-a-ciphertext"
    world.emit()
    world.worker.run_once()
    first, second = world.attempts()
    assert (first.status, first.error) == ("failed", "The signing secret could not be decrypted.")
    assert second.status == "pending"
    assert world.sender.sent == []


def test_a_sender_that_raises_fails_only_its_attempt(make_world: Callable[..., World]) -> None:
    """An exception from the sender is a failed attempt; the rest of the batch is still delivered."""
    calls: list[int] = []

    def flaky(request: SentRequest) -> Outcome:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")
        return Outcome(200, "ok", None)

    world = make_world(flaky, concurrency=2)
    world.emit(2)
    assert world.worker.run_once() == 2
    world.worker.close()
    statuses = sorted(a.status for a in world.attempts())
    assert statuses == ["delivered", "failed", "pending"]
    assert any(a.error == "The attempt could not be sent: RuntimeError." for a in world.attempts())


def test_a_claimed_attempt_is_not_claimed_again_while_leased(make_world: Callable[..., World]) -> None:
    """A second claim within the lease finds nothing."""
    world = make_world()
    world.emit()
    assert len(world.queue.claim(START, 60, 10)) == 1
    assert world.queue.claim(START + timedelta(seconds=59), 60, 10) == []


def test_an_expired_lease_is_taken_again_and_the_old_claim_loses(make_world: Callable[..., World]) -> None:
    """After the lease expires another worker re-claims the attempt; the first worker's result is dropped."""
    world = make_world()
    world.emit()
    [stale] = world.queue.claim(START, 60, 10)
    world.clock.advance(seconds=61)
    [fresh] = world.queue.claim(world.clock.now(), 60, 10)
    assert fresh.delivery_id == stale.delivery_id
    assert world.worker.deliver(fresh) is True
    assert world.worker.deliver(stale) is False
    assert [a.status for a in world.attempts()] == ["delivered"]


def test_the_concurrency_limits_a_run(make_world: Callable[..., World]) -> None:
    """run_once claims at most `concurrency` attempts, so none waits for a thread while leased."""
    world = make_world(concurrency=2)
    world.emit(5)
    assert [world.worker.run_once() for _ in range(4)] == [2, 2, 1, 0]
    world.worker.close()


def test_the_batch_is_delivered_concurrently(make_world: Callable[..., World]) -> None:
    """With `concurrency` 4, a batch of four is sent on four threads at once."""
    threads: set[str] = set()
    barrier = threading.Barrier(4, timeout=5)

    def respond(_request: SentRequest) -> Outcome:
        threads.add(threading.current_thread().name)
        barrier.wait()
        return Outcome(200, "", None)

    world = make_world(respond, concurrency=4)
    world.emit(4)
    assert world.worker.run_once() == 4
    world.worker.close()
    assert len(threads) == 4
    assert {a.status for a in world.attempts()} == {"delivered"}


def test_run_until_stops_when_told(make_world: Callable[..., World]) -> None:
    """run_until delivers what is queued and returns once the stop event is set."""
    world = make_world()
    world.emit(3)
    stop = threading.Event()
    thread = threading.Thread(target=world.worker.run_until, args=(stop,), kwargs={"idle_seconds": 0.01})
    thread.start()
    for _ in range(500):
        if len(world.sender.sent) == 3:
            break
        threading.Event().wait(0.01)
    stop.set()
    thread.join(timeout=5)
    assert not thread.is_alive()
    assert len(world.sender.sent) == 3


def test_an_attempt_queued_for_the_future_waits(make_world: Callable[..., World]) -> None:
    """Attempts are claimed in due order, and only once due."""
    world = make_world()
    with world.uow.workspace(1) as uow:
        later = START + timedelta(minutes=5)
        uow.webhooks.enqueue(world.webhook.id, "webhook.test", {}, "d-later", 1, later, START)
        uow.webhooks.enqueue(world.webhook.id, "webhook.test", {}, "d-now", 1, START, START)
        uow.commit()
    world.worker.run_once()
    assert [r.headers["X-Service-Delivery"] for r in world.sender.sent] == ["d-now"]


# -- the log line of an attempt --------------------------------------------------------------------


def _attempt_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "engage.delivery" and "webhook attempt" in r.getMessage()]


def test_a_delivered_attempt_is_logged_on_one_info_line(
    make_world: Callable[..., World], caplog: pytest.LogCaptureFixture
) -> None:
    """Event type, delivery_id, attempt number, subscription and status, at info level."""
    caplog.set_level(logging.INFO, "engage.delivery")
    world = make_world()
    world.emit()
    world.worker.run_once()
    [request], [record] = world.sender.sent, _attempt_lines(caplog)
    delivery_id = request.headers["X-Service-Delivery"]
    assert record.levelno == logging.INFO
    assert record.getMessage().startswith(
        f"webhook attempt event=contact.created delivery_id={delivery_id} attempt=1 "
        f"webhook_id={world.webhook.id} outcome=delivered status=200 duration_ms="
    )


def test_the_log_line_carries_no_secret_signature_url_or_body(
    make_world: Callable[..., World], caplog: pytest.LogCaptureFixture
) -> None:
    """Nothing a reader of the logs could forge or replay a delivery with, nor the payload."""
    caplog.set_level(logging.INFO, "engage.delivery")
    world = make_world()
    world.emit()
    world.worker.run_once()
    [request], [record] = world.sender.sent, _attempt_lines(caplog)
    line = record.getMessage()
    for hidden in (world.secret, request.headers["X-Service-Signature-256"], request.url, request.body.decode()):
        assert hidden not in line


def test_a_failed_attempt_logs_its_error_and_when_the_next_is_due(
    make_world: Callable[..., World], caplog: pytest.LogCaptureFixture
) -> None:
    """A timeout is logged with outcome=retry, the error and next_attempt_at two minutes later."""
    caplog.set_level(logging.INFO, "engage.delivery")
    world = make_world(answer(None, "The receiver did not answer in time."))
    world.emit()
    world.worker.run_once()
    [record] = _attempt_lines(caplog)
    assert "outcome=retry status=none" in record.getMessage()
    assert "error='The receiver did not answer in time.'" in record.getMessage()
    assert record.getMessage().endswith("next_attempt_at=2026-01-01T12:02:00.000000Z")


def test_the_last_failed_attempt_is_logged_as_a_warning(
    make_world: Callable[..., World], caplog: pytest.LogCaptureFixture
) -> None:
    """The fourth failure ends the delivery: outcome=failed, at warning level, with no next attempt."""
    caplog.set_level(logging.INFO, "engage.delivery")
    world = make_world(answer(500))
    world.emit()
    for minutes in (0, 2, 10, 30):
        world.clock.advance(minutes=minutes)
        world.worker.run_once()
    record = _attempt_lines(caplog)[-1]
    assert (record.levelno, "attempt=4" in record.getMessage()) == (logging.WARNING, True)
    assert "outcome=failed status=500" in record.getMessage()
    assert "next_attempt_at" not in record.getMessage()


def test_an_attempt_whose_lease_was_lost_is_logged_as_a_warning(
    make_world: Callable[..., World], caplog: pytest.LogCaptureFixture
) -> None:
    """A completion that came too late says outcome=not-recorded: the attempt will be sent again."""
    caplog.set_level(logging.INFO, "engage.delivery")
    world = make_world()
    world.emit()
    [stale] = world.queue.claim(START, 60, 10)
    world.clock.advance(seconds=61)
    world.queue.claim(world.clock.now(), 60, 10)
    world.worker.deliver(stale)
    [record] = _attempt_lines(caplog)
    assert record.levelno == logging.WARNING
    assert "outcome=not-recorded" in record.getMessage()


# -- run_until: pipelined sends, batched records ---------------------------------------------------


class RecordingQueue(InMemoryDeliveryQueue):
    """The in-memory queue, remembering how many attempts each `complete_and_claim` recorded at once;
    the first `fail_records` calls that have attempts to record fail, as a database outage would."""

    def __init__(self, store: InMemoryStore, *, fail_records: int = 0) -> None:
        super().__init__(store)
        self.batches: list[int] = []
        self.released: list[str] = []  # delivery ids of the claims released, never sent
        self.limits: list[int] = []  # how many attempts each call asked to claim
        self._fail_records = fail_records

    def complete_and_claim(
        self,
        completions: Sequence[Completion],
        now: datetime,
        lease_seconds: float,
        limit: int,
        *,
        release: Sequence[Claim] = (),
    ) -> tuple[Sequence[bool], Sequence[Claim]]:
        self.limits.append(limit)
        if completions and self._fail_records:
            self._fail_records -= 1
            raise ConnectionError("database unavailable")
        if completions:
            self.batches.append(len(completions))
        self.released.extend(claim.delivery_id for claim in release)
        return super().complete_and_claim(completions, now, lease_seconds, limit, release=release)


def _run_in_thread(world: World, until: Callable[[], bool]) -> None:
    """Run the world's worker until `until()` holds (5 s at most), then stop it and wait for it."""
    stop = threading.Event()
    thread = threading.Thread(target=world.worker.run_until, args=(stop,), kwargs={"idle_seconds": 0.01})
    thread.start()
    try:
        for _ in range(500):
            if until():
                break
            time.sleep(0.01)
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive()


def _with_queue(world: World, queue: InMemoryDeliveryQueue, **worker_options: Any) -> World:
    world.queue = queue
    world.worker = DeliveryWorker(queue, world.sender, world.cipher, world.clock, **worker_options)
    return world


def test_a_slow_send_does_not_hold_up_the_others(make_world: Callable[..., World]) -> None:
    """While one receiver stalls, the other slot keeps delivering: sends are not waited for as a batch."""
    release = threading.Event()

    def respond(request: SentRequest) -> Outcome:
        if json.loads(request.body)["data"]["id"] == 0:
            release.wait(5)
        return Outcome(200, "ok", None)

    def the_others_delivered() -> bool:
        if sum(a.status == "delivered" for a in world.attempts()) < 5:
            return False
        release.set()
        return True

    world = make_world(respond, concurrency=2)
    world.emit(6)
    _run_in_thread(world, the_others_delivered)
    world.worker.close()
    assert release.is_set()
    assert sorted(a.status for a in world.attempts()) == ["delivered"] * 6


def test_run_until_records_finished_sends_together(make_world: Callable[..., World]) -> None:
    """The loop records what its send threads finished together, not in one transaction each."""
    world = make_world(concurrency=4)
    queue = RecordingQueue(world.store)
    _with_queue(world, queue, concurrency=4)
    world.emit(40)
    _run_in_thread(world, lambda: sum(queue.batches) == 40)
    world.worker.close()
    assert sum(queue.batches) == 40
    assert len(queue.batches) < 40


def test_run_until_records_the_sends_in_progress_before_it_returns(make_world: Callable[..., World]) -> None:
    """Stopping mid-send waits for the answer and records it: nothing sent is left unrecorded."""
    started, release = threading.Event(), threading.Event()

    def respond(_request: SentRequest) -> Outcome:
        started.set()
        release.wait(5)
        return Outcome(200, "ok", None)

    world = make_world(respond, concurrency=2)
    world.emit()
    stop = threading.Event()
    thread = threading.Thread(target=world.worker.run_until, args=(stop,), kwargs={"idle_seconds": 0.01})
    thread.start()
    assert started.wait(5)
    stop.set()
    threading.Timer(0.1, release.set).start()
    thread.join(timeout=5)
    world.worker.close()
    assert [a.status for a in world.attempts()] == ["delivered"]


def test_a_record_that_fails_leaves_the_attempt_to_its_lease(
    make_world: Callable[..., World], caplog: pytest.LogCaptureFixture
) -> None:
    """When the queue cannot record, the worker logs it and goes on; the attempt stays pending, leased."""
    caplog.set_level(logging.INFO, "engage.delivery")
    world = make_world(concurrency=2)
    _with_queue(world, RecordingQueue(world.store, fail_records=1), concurrency=2)
    world.emit()
    _run_in_thread(world, lambda: "outcome=not-recorded" in caplog.text)
    world.worker.close()
    assert "database unavailable" in caplog.text
    assert [a.status for a in world.attempts()] == ["pending"]
    assert world.queue.claim(START, 60, 10) == []  # still leased: sent again once the lease ends


# -- run_until: claiming ahead ---------------------------------------------------------------------


def _gate() -> tuple[threading.Event, Callable[[SentRequest], Outcome]]:
    """A gate, and a sender answer that waits (5 s at most) for it to open."""
    gate = threading.Event()

    def respond(_request: SentRequest) -> Outcome:
        gate.wait(5)
        return Outcome(200, "ok", None)

    return gate, respond


def _leased(world: World) -> int:
    return sum(row.lease_token is not None for row in world.store.state.of(WebhooksTables).attempts.values())


def test_run_until_claims_ahead_while_every_slot_is_busy(make_world: Callable[..., World]) -> None:
    """With the send timeout known, up to twice `concurrency` more attempts are claimed, ready for a free slot."""
    gate, respond = _gate()
    world = make_world(respond, concurrency=2, timeout_seconds=1.0)
    world.emit(9)
    leased: list[int] = []

    def two_sending_and_four_ahead() -> bool:
        leased.append(_leased(world))
        if len(world.sender.sent) < 2 or leased[-1] < 6:
            return False
        gate.set()
        return True

    _run_in_thread(world, two_sending_and_four_ahead)
    assert (max(leased), len(world.sender.sent)) == (6, 2)


@pytest.mark.parametrize(
    ("send_seconds", "per_slot"),
    [(None, AHEAD_PER_SLOT), (0.0, AHEAD_PER_SLOT_MOST), (0.001, AHEAD_PER_SLOT_MOST), (0.01, 5), (0.5, 2)],
)
def test_the_claims_ahead_follow_the_pace_of_the_sends(send_seconds: float | None, per_slot: int) -> None:
    """A slot gets what it sends in `AHEAD_SECONDS`: never fewer than with no known pace, never more than the most."""
    assert ahead_per_slot(send_seconds) == per_slot


def test_fast_sends_let_the_worker_claim_more_ahead(make_world: Callable[..., World]) -> None:
    """The first claim fills two slots and two ahead each; once the sends prove fast, more ahead, eight each at most."""
    world = make_world()
    queue = RecordingQueue(world.store)
    _with_queue(world, queue, concurrency=2, timeout_seconds=1.0)
    world.emit(80)
    _run_in_thread(world, lambda: [a.status for a in world.attempts()] == ["delivered"] * 80)
    world.worker.close()
    claims = [limit for limit in queue.limits if limit]
    assert claims[0] == 2 * (1 + AHEAD_PER_SLOT)
    assert 2 * (1 + AHEAD_PER_SLOT) < max(claims) <= 2 * (1 + AHEAD_PER_SLOT_MOST)


def test_without_a_known_timeout_nothing_is_claimed_ahead(make_world: Callable[..., World]) -> None:
    """A worker that cannot tell how long a send takes claims no more than it sends at once."""
    gate, respond = _gate()
    world = make_world(respond, concurrency=2)
    world.emit(6)
    leased: list[int] = []

    def after_a_while() -> bool:
        leased.append(_leased(world))
        if len(leased) < 30:
            return False
        gate.set()
        return True

    _run_in_thread(world, after_a_while)
    assert max(leased) == 2


def test_an_attempt_claimed_ahead_too_long_is_released_and_claimed_again(make_world: Callable[..., World]) -> None:
    """Once its lease could no longer outlast a send, a waiting attempt is released, not sent; it goes later."""
    gate, respond = _gate()
    world = make_world(respond, concurrency=2)
    queue = RecordingQueue(world.store)
    # 1.2 s leases and a 1 s timeout leave 0.1 s to wait for a slot.
    _with_queue(world, queue, concurrency=2, lease_seconds=1.2, timeout_seconds=1.0)
    world.emit(4)
    threading.Timer(0.4, gate.set).start()
    _run_in_thread(world, lambda: [a.status for a in world.attempts()] == ["delivered"] * 4)
    world.worker.close()
    assert len(queue.released) >= 2
    sent_ids = [request.headers["X-Service-Delivery"] for request in world.sender.sent]
    assert sorted(sent_ids) == sorted({a.delivery_id for a in world.attempts()})


def test_stopping_releases_what_was_claimed_ahead(make_world: Callable[..., World]) -> None:
    """On stop the sends in progress finish; the attempts claimed ahead are released, due again at once."""
    gate, respond = _gate()
    world = make_world(respond, concurrency=2, timeout_seconds=1.0)
    world.emit(4)
    stop = threading.Event()
    thread = threading.Thread(target=world.worker.run_until, args=(stop,), kwargs={"idle_seconds": 0.01})
    thread.start()
    for _ in range(500):
        if _leased(world) == 4:
            break
        time.sleep(0.01)
    stop.set()
    gate.set()
    thread.join(timeout=5)
    world.worker.close()
    assert sorted(
        (a.status, row.lease_token)
        for a, row in ((r.attempt, r) for r in world.store.state.of(WebhooksTables).attempts.values())
    ) == [
        ("delivered", None),
        ("delivered", None),
        ("pending", None),
        ("pending", None),
    ]


# -- a workspace whose plan lacks webhooks ------------------------------------------------------------


class Refuse:
    """A delivery gate that refuses the workspaces it names."""

    def __init__(self, *accounts: int) -> None:
        self.accounts = set(accounts)
        self.asked: list[int] = []

    def delivers(self, account_id: int) -> bool:
        self.asked.append(account_id)
        return account_id not in self.accounts


def test_an_attempt_of_a_workspace_without_webhooks_is_not_sent(make_world: Callable[..., World]) -> None:
    """run_once sends nothing for a refused workspace and records the attempt failed, without a retry."""
    world = make_world(gate=Refuse(1))
    world.emit()

    world.worker.run_once()

    [attempt] = world.attempts()
    assert (world.sender.sent, attempt.status, attempt.error) == ([], "failed", NOT_IN_PLAN)


def test_run_until_sends_nothing_for_a_workspace_without_webhooks(make_world: Callable[..., World]) -> None:
    """The worker's loop records every refused attempt failed, unsent."""
    world = make_world(gate=Refuse(1), concurrency=2, timeout_seconds=1.0)
    world.emit(3)
    stop = threading.Event()
    thread = threading.Thread(target=world.worker.run_until, args=(stop,), kwargs={"idle_seconds": 0.01})
    thread.start()
    for _ in range(500):
        if all(a.status == "failed" for a in world.attempts()):
            break
        threading.Event().wait(0.01)
    stop.set()
    thread.join(timeout=5)

    assert (world.sender.sent, {a.error for a in world.attempts()}) == ([], {NOT_IN_PLAN})


def test_the_gate_is_asked_once_per_workspace_and_batch(make_world: Callable[..., World]) -> None:
    """A batch of attempts of one workspace asks the plan once."""
    gate = Refuse()
    world = make_world(gate=gate, concurrency=4)
    world.emit(4)

    world.worker.run_once()

    assert (gate.asked, len(world.sender.sent)) == ([1], 4)


def test_each_attempt_outcome_is_reported_whatever_the_log_level(
    make_world: Callable[..., World], caplog: pytest.LogCaptureFixture
) -> None:
    """`on_attempt` hears `retry` then `delivered` even when the attempt lines are not logged."""
    caplog.set_level(logging.ERROR, "engage.delivery")
    outcomes: list[str] = []
    answers = iter((500, 200))
    world = make_world(lambda _request: Outcome(next(answers), "body", None), on_attempt=outcomes.append)
    world.emit()
    world.worker.run_once()
    world.clock.advance(minutes=2)
    world.worker.run_once()
    assert outcomes == ["retry", "delivered"]


def test_a_failing_attempt_hook_does_not_stop_the_delivery(make_world: Callable[..., World]) -> None:
    """An `on_attempt` that raises leaves the attempt recorded as delivered."""

    def broken(_outcome: str) -> None:
        raise RuntimeError("boom")

    world = make_world(on_attempt=broken)
    world.emit()
    world.worker.run_once()
    assert [attempt.status for attempt in world.attempts()] == ["delivered"]
