"""No event is lost when `engage worker` dies: SIGKILL it at random moments, restart it, and every
delivery still arrives, duplicates sharing their `delivery_id`. And several workers sharing one
queue never send the same attempt twice at once.

The receiver answers 200 after a short pause, so sends are in flight whenever a worker is killed
(and arrive again after the lease ends), and so two workers sending one attempt at once would show.
The timeout and lease are short (3 s and 5 s) so a killed worker's attempts are taken over quickly.
"""

from __future__ import annotations

import json
import random
import signal
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import pytest
from receiver import Receiver
from worker_processes import MakeOutbox, Outbox, StartWorker, WorkerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

EVENTS = 1000
KILLS = 20
CONCURRENCY = "8"
WORKER_ENV = {"ENGAGE_WEBHOOK_TIMEOUT": "3", "ENGAGE_WEBHOOK_LEASE": "5", "ENGAGE_WORKER_CONCURRENCY": CONCURRENCY}
STALL_LIMIT = 120.0
"""Seconds a wait may go without progress before the test gives up. Waits are bounded by progress,
not by a total time: on a loaded two-core machine the whole run may take several times as long as on
an idle one, and that is no failure; a queue that stops moving is."""


def _deliveries(receiver: Receiver) -> dict[str, list[dict[str, Any]]]:
    """The bodies the receiver got, by delivery_id, with the attempt header alongside."""
    received: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for request in list(receiver.requests):
        body = json.loads(request.body)
        received[body["delivery_id"]].append({**body, "attempt": request.header("X-Service-Attempt")})
    return received


def _sending(receiver: Receiver, patience: float = 8.0) -> Callable[[], bool]:
    """True once the receiver gets a new request, or after `patience` seconds (when all that is left
    is still leased by the worker killed last, a new one sends nothing until the leases end)."""
    before, until = len(receiver.requests), time.monotonic() + patience
    return lambda: len(receiver.requests) > before or time.monotonic() > until


def _delivered(outbox: Outbox) -> int:
    return sum(attempt.status == "delivered" for attempt in outbox.log())


def _wait_until(condition: Callable[[], bool], progress: Callable[[], int], what: str, interval: float = 0.05) -> None:
    """Wait for `condition`, as long as `progress` keeps moving: give up after `STALL_LIMIT`
    seconds in which it did not change."""
    last, moved_at = progress(), time.monotonic()
    while not condition():
        now = progress()
        if now != last:
            last, moved_at = now, time.monotonic()
        elif time.monotonic() - moved_at > STALL_LIMIT:
            raise AssertionError(f"{what}: no progress in {STALL_LIMIT:.0f} s (at {now})")
        time.sleep(interval)


def _stop(worker: WorkerProcess) -> None:
    worker.signal(signal.SIGTERM)
    assert worker.wait() == 0, worker.output()


def test_sigkilled_workers_lose_no_event(make_outbox: MakeOutbox, start_worker: StartWorker) -> None:
    """1,000 events, the worker SIGKILLed 20 times mid-send and restarted: every one arrives, duplicates agree."""
    outbox = make_outbox(EVENTS, delay=0.1)
    receiver, url = outbox.receiver, outbox.database_url
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    requests = lambda: len(receiver.requests)  # noqa: E731

    for _ in range(KILLS):
        worker = start_worker(url, env=WORKER_ENV)
        _wait_until(_sending(receiver), requests, f"the worker sending (seed {seed})")
        time.sleep(rng.uniform(0.05, 1.0))
        worker.kill()
    survivor = start_worker(url, env=WORKER_ENV)
    _wait_until(lambda: _delivered(outbox) == EVENTS, requests, f"every delivery recorded (seed {seed})", interval=0.5)
    _stop(survivor)

    log = outbox.log()
    received = _deliveries(receiver)
    assert {(attempt.status, attempt.attempt_number) for attempt in log} == {("delivered", 1)}
    assert set(received) == {attempt.delivery_id for attempt in log}
    for copies in received.values():
        assert len({json.dumps((c["event"], c["data"], c["attempt"]), sort_keys=True) for c in copies}) == 1
    assert sorted(copies[0]["data"]["name"] for copies in received.values()) == sorted(outbox.contact_names)
    assert sum(len(copies) > 1 for copies in received.values()) > 0, "no kill landed while a send was in flight"


def test_two_workers_never_send_one_attempt_twice(make_outbox: MakeOutbox, start_worker: StartWorker) -> None:
    """Two workers draining one queue: each attempt is in flight once, and sent once, and both send.

    On PostgreSQL their claims run at once (SKIP LOCKED); on SQLite, where `engage serve --workers N`
    runs N in-process workers, the write lock takes them in turn."""
    outbox = make_outbox(EVENTS, delay=0.02)
    receiver, url = outbox.receiver, outbox.database_url

    workers = [start_worker(url, env=WORKER_ENV), start_worker(url, env=WORKER_ENV)]
    _wait_until(
        lambda: _delivered(outbox) == EVENTS, lambda: len(receiver.requests), "every delivery recorded", interval=0.5
    )
    for worker in workers:
        _stop(worker)

    in_flight: dict[tuple[str | None, str | None], list[tuple[float, float]]] = defaultdict(list)
    for exchange in receiver.exchanges:
        key = (exchange.request.header("X-Service-Delivery"), exchange.request.header("X-Service-Attempt"))
        in_flight[key].append((exchange.arrived_at, exchange.answered_at))
    overlapping = [
        key
        for key, spans in in_flight.items()
        if any(later[0] < earlier[1] for earlier, later in zip(sorted(spans), sorted(spans)[1:], strict=False))
    ]
    assert overlapping == []
    assert len(receiver.requests) == len(in_flight) == EVENTS
    assert all(worker.output().count("outcome=delivered") > 0 for worker in workers)
