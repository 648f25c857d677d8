"""Several workers sharing one delivery queue: every attempt is claimed, and sent, exactly once.

On PostgreSQL the workers really run at once (`FOR UPDATE SKIP LOCKED` keeps their batches
apart); on SQLite the write lock takes their claims in turn. Each worker is a thread with its
own connection, as in `engage worker` processes.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from engage_core.kernel.events import DomainEvent
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, FakeSender
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.service import WebhookInput
from engage_sql import Database

from .conftest import START

WORKERS = 4
SUBSCRIPTIONS = 3
EVENTS = 100  # 300 attempts
DEADLINE_SECONDS = 60.0


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    """The services with webhooks configured (a fake cipher, and a guard that allows every target)."""
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets())


@pytest.fixture
def queued(database: Database, services: Services, account: int) -> int:
    """EVENTS events for SUBSCRIPTIONS subscriptions, all due at START; the number of attempts."""
    for n in range(SUBSCRIPTIONS):
        services.webhooks.create(account, WebhookInput(f"Hook {n}", f"https://hooks.example.com/{n}"))
    with database.uow.workspace(account) as uow:
        for n in range(EVENTS):
            uow.emit(DomainEvent("contact.updated", {"id": n}, START))
        uow.commit()
    return SUBSCRIPTIONS * EVENTS


def _in_parallel(work: Callable[[], None]) -> None:
    """Run `work` in WORKERS threads released together; re-raise the first failure."""
    start = threading.Barrier(WORKERS)

    def run() -> None:
        start.wait(timeout=10)
        work()

    with ThreadPoolExecutor(WORKERS) as pool:
        for future in [pool.submit(run) for _ in range(WORKERS)]:
            future.result(timeout=DEADLINE_SECONDS)


def test_concurrent_claims_take_each_attempt_exactly_once(database: Database, queued: int) -> None:
    """Workers claiming small batches at once from a few hundred attempts never share one."""
    claimed: list[int] = []
    lock = threading.Lock()
    deadline = time.monotonic() + DEADLINE_SECONDS

    def work() -> None:
        queue = database.delivery_queue()
        while time.monotonic() < deadline:
            batch = queue.claim(START, 3600, 7)
            with lock:
                claimed.extend(c.attempt_id for c in batch)
                if not batch and len(claimed) >= queued:
                    return

    _in_parallel(work)

    assert (len(claimed), set(Counter(claimed).values())) == (queued, {1})


def test_concurrent_workers_send_each_attempt_exactly_once(database: Database, queued: int) -> None:
    """DeliveryWorkers sharing the queue send every delivery once and record every attempt delivered."""
    sender = FakeSender()
    clock = FakeClock(START + timedelta(seconds=1))
    deadline = time.monotonic() + DEADLINE_SECONDS

    def work() -> None:
        worker = DeliveryWorker(database.delivery_queue(), sender, FakeCipher(), clock, concurrency=5)
        while time.monotonic() < deadline and (worker.run_once() or len(sender.sent) < queued):
            pass

    _in_parallel(work)

    sent = Counter(json.loads(request.body)["delivery_id"] for request in sender.sent)
    with database.engine.connect() as connection:
        statuses = Counter(status for (status,) in connection.exec_driver_sql("SELECT status FROM webhook_attempts"))
    assert (len(sent), set(sent.values()), statuses) == (queued, {1}, Counter({"delivered": queued}))
