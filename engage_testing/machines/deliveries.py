"""The webhook retry schedule as a state machine (SPEC 3 Webhook delivery), driven by Hypothesis.

Rules queue events and test deliveries, move a fake clock, run the real `DeliveryWorker` over the
backend's delivery queue (`InMemoryDeliveryQueue` by default) with a `FakeSender` whose answer the
rule chooses (2xx, redirect, 404, 405, 5xx, timeout, connection error), and redeliver permanently
failed deliveries. After
every step the invariants hold: at most four automatic attempts per delivery, each retry due 2,
10 and 30 minutes after the previous failure, nothing sent before it is due, one pending attempt
at most, and a delivered or permanently failed delivery never changes again (until a manual
redelivery, which adds exactly one attempt that is not retried).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta
from itertools import pairwise

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import initialize, invariant, precondition, rule

from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeSender,
    SentRequest,
)
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.model import Attempt, Outcome
from engage_core.webhooks.service import WebhookInput

from .base import START, EngageMachine

EVERY = PageRequest(per_page=10_000)
MAX_ATTEMPTS = 4
RETRY_DELAYS = (timedelta(minutes=2), timedelta(minutes=10), timedelta(minutes=30))
"""SPEC 6 and 8, written out here rather than imported, so the test checks the code against the spec."""

OUTCOMES = {
    "200": Outcome(200, "ok", None),
    "204": Outcome(204, "", None),
    "301": Outcome(301, "", None),
    "404": Outcome(404, "not found", None),
    "405": Outcome(405, "", None),
    "500": Outcome(500, "boom", None),
    "timeout": Outcome(None, None, "The receiver did not answer in time."),
    "refused": Outcome(None, None, "ConnectError: [Errno 111] Connection refused"),
}


class DeliveryMachine(EngageMachine):
    @initialize()
    def start(self) -> None:
        self.clock = FakeClock(START)
        self.backend = self.make_backend()
        self.uow = self.backend.uow
        self.services = Services.build(self.uow, self.clock, cipher=FakeCipher(), guard=AllowAllTargets())
        self.account = self.services.accounts.create("Acme").account.id
        self.webhook = self.services.webhooks.create(
            self.account, WebhookInput(name="Hook", url="https://hooks.example.com/in")
        ).subscription.id
        self.answer = OUTCOMES["200"]
        self.sender = FakeSender(self._respond)
        self.worker = DeliveryWorker(self.backend.delivery_queue(), self.sender, FakeCipher(), self.clock)
        self.redelivered: Counter[str] = Counter()
        self.final: dict[str, list[Attempt]] = {}
        self.sent_per_delivery: Counter[str] = Counter()
        self.queued = 0
        self.runs = 0
        self._log: tuple[tuple[int, ...], dict[str, list[Attempt]]] | None = None

    def _respond(self, request: SentRequest) -> Outcome:
        self.sent_per_delivery[request.headers["X-Service-Delivery"]] += 1
        return self.answer

    def _attempts(self) -> list[Attempt]:
        """Every attempt of the subscription, oldest first, as the delivery log reads them."""
        log = self.services.webhooks.deliveries(self.account, self.webhook, None, EVERY).items
        return sorted(log, key=lambda attempt: attempt.id)

    def _deliveries(self) -> dict[str, list[Attempt]]:
        """The log by delivery id, read again only when it can have changed: something was queued,
        the worker ran or a delivery was redelivered (time passing alone changes no row)."""
        version = (self.queued, self.runs, sum(self.redelivered.values()))
        if self._log is None or self._log[0] != version:
            grouped: dict[str, list[Attempt]] = defaultdict(list)
            for attempt in self._attempts():
                grouped[attempt.delivery_id].append(attempt)
            self._log = (version, grouped)
        return self._log[1]

    # -- rules -------------------------------------------------------------------------------------

    @rule(count=st.integers(1, 3))
    def an_event_happens(self, count: int) -> None:
        with self.uow.workspace(self.account) as uow:
            for i in range(count):
                uow.emit(DomainEvent("contact.created", {"id": i}, self.clock.now()))
            uow.commit()
        self.queued += count

    @rule()
    def a_test_is_requested(self) -> None:
        self.services.webhooks.send_test(self.account, self.webhook)
        self.queued += 1

    @rule(minutes=st.sampled_from([0.5, 1, 1.99, 2, 5, 9, 10, 29, 30, 45, 120]))
    def time_passes(self, minutes: float) -> None:
        self.clock.advance(minutes=minutes)

    @rule()
    def time_passes_until_the_next_attempt_is_due(self) -> None:
        due = [attempt.due_at for attempt in self._attempts() if attempt.status == "pending"]
        if due and min(due) > self.clock.now():
            self.clock.set(min(due))

    @rule(kind=st.sampled_from(sorted(OUTCOMES)))
    def the_worker_runs(self, kind: str) -> None:
        """The worker sends everything due; each attempt gets the answer `kind`."""
        self.answer = OUTCOMES[kind]
        while self.worker.run_once():
            pass
        self.runs += 1
        for delivery_id, attempts in self._deliveries().items():
            last = attempts[-1]
            if last.status == "delivered" or (last.status == "failed" and not self._retry_expected(attempts)):
                self.final.setdefault(delivery_id, list(attempts))
                if last.attempt_number == MAX_ATTEMPTS and last.status == "failed":
                    event("permanently failed")

    @rule(kind=st.sampled_from(sorted(k for k, o in OUTCOMES.items() if not o.succeeded)))
    def the_receiver_stays_down_for_an_hour(self, kind: str) -> None:
        """Four rounds of: wait until the next attempt is due, and fail it."""
        for _ in range(MAX_ATTEMPTS):
            self.time_passes_until_the_next_attempt_is_due()
            self.the_worker_runs(kind)

    @precondition(lambda self: any(self._redeliverable()))
    @rule(data=st.data())
    def a_failed_delivery_is_redelivered(self, data: st.DataObject) -> None:
        delivery_id = data.draw(st.sampled_from(sorted(self._redeliverable())))
        attempt = self.services.webhooks.redeliver(self.account, self.webhook, delivery_id)
        assert attempt.attempt_number == self.final[delivery_id][-1].attempt_number + 1
        self.redelivered[delivery_id] += 1
        del self.final[delivery_id]
        event("redelivered")

    def _redeliverable(self) -> list[str]:
        return [d for d, attempts in self.final.items() if attempts[-1].status == "failed"]

    def _retry_expected(self, attempts: list[Attempt]) -> bool:
        return attempts[-1].attempt_number < MAX_ATTEMPTS

    # -- invariants --------------------------------------------------------------------------------

    @invariant()
    def never_more_than_four_automatic_attempts(self) -> None:
        for delivery_id, attempts in self._deliveries().items():
            assert len(attempts) <= MAX_ATTEMPTS + self.redelivered[delivery_id]

    @invariant()
    def attempts_are_numbered_one_by_one(self) -> None:
        for attempts in self._deliveries().values():
            assert [a.attempt_number for a in attempts] == list(range(1, len(attempts) + 1))

    @invariant()
    def at_most_one_attempt_is_pending_and_it_is_the_last(self) -> None:
        for attempts in self._deliveries().values():
            assert all(a.status != "pending" for a in attempts[:-1])

    @invariant()
    def only_the_last_attempt_can_be_delivered(self) -> None:
        for attempts in self._deliveries().values():
            assert all(a.status == "failed" for a in attempts[:-1])

    @invariant()
    def retries_are_due_2_10_and_30_minutes_after_each_failure(self) -> None:
        for delivery_id, attempts in self._deliveries().items():
            for previous, following in pairwise(attempts):
                if following.attempt_number <= MAX_ATTEMPTS:
                    assert previous.completed_at is not None
                    delay = RETRY_DELAYS[previous.attempt_number - 1]
                    assert following.due_at == previous.completed_at + delay, delivery_id

    @invariant()
    def nothing_is_sent_before_it_is_due(self) -> None:
        for attempts in self._deliveries().values():
            for attempt in attempts:
                if attempt.completed_at is not None:
                    assert attempt.completed_at >= attempt.due_at

    @invariant()
    def every_completed_attempt_was_sent_once(self) -> None:
        for delivery_id, attempts in self._deliveries().items():
            completed = sum(1 for a in attempts if a.status != "pending")
            assert self.sent_per_delivery[delivery_id] == completed

    @invariant()
    def the_outcome_decides_the_status(self) -> None:
        for attempts in self._deliveries().values():
            for attempt in attempts:
                if attempt.status == "delivered":
                    assert attempt.error is None and 200 <= (attempt.response_status_code or 0) < 300
                elif attempt.status == "failed":
                    code = attempt.response_status_code
                    assert attempt.error is not None or not (code is not None and 200 <= code < 300)

    @invariant()
    def a_failure_before_the_fourth_attempt_is_always_followed(self) -> None:
        for attempts in self._deliveries().values():
            last = attempts[-1]
            if last.status == "failed" and last.attempt_number < MAX_ATTEMPTS:
                raise AssertionError(f"attempt {last.attempt_number} failed without a retry queued")

    @invariant()
    def terminal_deliveries_never_change(self) -> None:
        deliveries = self._deliveries()
        for delivery_id, snapshot in self.final.items():
            assert deliveries[delivery_id] == snapshot
