"""`start_job_runner`: the worker's job runner thread runs due jobs, tells a running handler to stop
when stopped, and counts outcomes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime

from engage_core.jobs.model import JobRequest, RetryLater
from engage_core.jobs.runner import JobContext
from engage_core.testing import FakeClock, InMemoryJobQueue, InMemoryUnitOfWorkFactory
from engage_http.worker import start_job_runner

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.01)


def queued(uow: InMemoryUnitOfWorkFactory, kind: str = "test.job") -> int:
    with uow.workspace(1) as w:
        job = w.jobs.enqueue(JobRequest(kind), START)
        w.commit()
    return job.id


def status(uow: InMemoryUnitOfWorkFactory, job_id: int) -> str:
    with uow.workspace(1) as w:
        job = w.jobs.get(job_id)
    assert job is not None
    return job.status


def test_the_runner_runs_a_due_job_and_reports_its_outcome() -> None:
    """A queued job of a handled kind runs and succeeds; `on_outcome` hears of it."""
    uow = InMemoryUnitOfWorkFactory()
    ran: list[int] = []
    outcomes: list[tuple[str, str]] = []
    job = queued(uow)
    handle = start_job_runner(
        InMemoryJobQueue(uow.store),
        {"test.job": lambda context: ran.append(context.claim.job_id)},
        FakeClock(START),
        idle_seconds=0.01,
        on_outcome=lambda kind, outcome: outcomes.append((kind, outcome)),
    )
    try:
        wait_until(lambda: status(uow, job) == "succeeded")
    finally:
        assert handle.stop()
    assert ran == [job]
    assert outcomes == [("test.job", "succeeded")]


def test_stopping_tells_the_running_handler_which_defers_its_job() -> None:
    """A handler waiting on `stopping()` sees it once the runner is stopped; its deferral queues the job again."""
    uow = InMemoryUnitOfWorkFactory()
    started = threading.Event()

    def patient(context: JobContext) -> None:
        started.set()
        while not context.stopping():
            time.sleep(0.01)
        raise RetryLater(0, "stopping")

    job = queued(uow)
    handle = start_job_runner(InMemoryJobQueue(uow.store), {"test.job": patient}, FakeClock(START), idle_seconds=0.01)
    assert started.wait(10)

    assert handle.stop(timeout=10)
    assert not handle.running
    assert status(uow, job) == "queued"
