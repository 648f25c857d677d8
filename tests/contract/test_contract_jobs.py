"""Jobs: queued with the change that asks for them, leased by the worker, retried, on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from engage_core.jobs.model import JobClaim, JobFailed, JobRequest, RetryLater
from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import JobContext, JobRunner
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory

LEASE = 60.0
CRAWL = "crawl"


@pytest.fixture
def enqueue(uow: UnitOfWorkFactory, clock: FakeClock, account: int) -> Callable[..., int]:
    """`enqueue(kind="crawl", key=None, account_id=account, **request) -> job id`, committed."""

    def add(kind: str = CRAWL, key: str | None = None, account_id: int | None = None, **fields: object) -> int:
        with uow.workspace(account if account_id is None else account_id) as unit:
            job = unit.jobs.enqueue(JobRequest(kind, key=key, **fields), clock.now())  # type: ignore[arg-type]
            unit.commit()
        return job.id

    return add


def claim_one(job_queue: JobQueue, clock: FakeClock, kinds: tuple[str, ...] = (CRAWL,)) -> JobClaim:
    (claim,) = job_queue.claim(kinds, clock.now(), LEASE, 1)
    return claim


def status(uow: UnitOfWorkFactory, account: int, job_id: int) -> str:
    with uow.workspace(account, readonly=True) as unit:
        job = unit.jobs.get(job_id)
        assert job is not None
        return job.status


def test_a_committed_job_is_claimed_with_its_payload(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock, account: int
) -> None:
    """The worker's claim carries the job's account, kind, payload and first attempt."""
    job_id = enqueue(payload={"entry_id": 7})
    claim = claim_one(job_queue, clock)
    assert (claim.job_id, claim.account_id, claim.kind, dict(claim.payload), claim.attempt) == (
        job_id,
        account,
        CRAWL,
        {"entry_id": 7},
        1,
    )


def test_a_job_queued_in_a_rolled_back_unit_of_work_never_runs(
    uow: UnitOfWorkFactory, job_queue: JobQueue, clock: FakeClock, account: int
) -> None:
    """No commit, no job: it goes with the change that asked for it."""
    with uow.workspace(account) as unit:
        unit.jobs.enqueue(JobRequest(CRAWL), clock.now())
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 10) == []


def test_a_job_is_not_claimed_before_it_is_due(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """`run_at` in the future: claimed only once it is reached."""
    enqueue(run_at=clock.now() + timedelta(minutes=5))
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 10) == []
    clock.advance(minutes=5)
    assert len(job_queue.claim((CRAWL,), clock.now(), LEASE, 10)) == 1


def test_only_the_kinds_asked_for_are_claimed(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """A worker that handles `crawl` never takes an `embed` job."""
    enqueue(kind="embed")
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 10) == []


def test_jobs_are_claimed_earliest_due_first_up_to_the_limit(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """The earliest due two of three, in that order."""
    late = enqueue(run_at=clock.now() - timedelta(seconds=1))
    early = enqueue(run_at=clock.now() - timedelta(seconds=3))
    enqueue()
    assert [c.job_id for c in job_queue.claim((CRAWL,), clock.now(), LEASE, 2)] == [early, late]


def test_a_leased_job_is_not_claimed_twice(enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock) -> None:
    """While its lease holds, no other worker gets the job."""
    enqueue()
    claim_one(job_queue, clock)
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 10) == []


def test_a_job_whose_lease_ended_is_claimed_again_and_the_first_claim_is_void(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """A worker that died: its job is taken again (attempt 2), and its late success counts for nothing."""
    enqueue()
    first = claim_one(job_queue, clock)
    clock.advance(seconds=LEASE + 1)
    second = claim_one(job_queue, clock)
    assert second.attempt == 2
    assert job_queue.succeed(first, clock.now()) is False
    assert job_queue.succeed(second, clock.now()) is True


def test_a_heartbeat_keeps_the_lease(enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock) -> None:
    """Extended before it ends, the lease outlives its first length."""
    enqueue()
    claim = claim_one(job_queue, clock)
    clock.advance(seconds=LEASE - 1)
    assert job_queue.heartbeat(claim, clock.now(), LEASE) is True
    clock.advance(seconds=LEASE - 1)
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 10) == []


def test_a_succeeded_job_is_finished(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock, uow: UnitOfWorkFactory, account: int
) -> None:
    """`succeed` ends the job: `succeeded`, never claimed again."""
    job_id = enqueue()
    job_queue.succeed(claim_one(job_queue, clock), clock.now())
    clock.advance(hours=1)
    assert status(uow, account, job_id) == "succeeded"
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 10) == []


def test_a_retried_job_runs_again_at_its_time_with_the_error_kept(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock, uow: UnitOfWorkFactory, account: int
) -> None:
    """`retry` queues the job for `run_at`, keeping the error, and the next claim is attempt 2."""
    job_id = enqueue()
    job_queue.retry(claim_one(job_queue, clock), "boom", clock.now() + timedelta(seconds=10), clock.now())
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 10) == []
    clock.advance(seconds=10)
    assert claim_one(job_queue, clock).attempt == 2
    with uow.workspace(account, readonly=True) as unit:
        job = unit.jobs.get(job_id)
    assert job is not None and job.last_error == "boom"


def test_a_deferral_does_not_count_as_an_attempt(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """`retry(counts=False)`: the next claim is attempt 1 again."""
    enqueue()
    job_queue.retry(claim_one(job_queue, clock), "quota", clock.now(), clock.now(), counts=False)
    assert claim_one(job_queue, clock).attempt == 1


def test_a_keyed_job_is_queued_once_while_unfinished(
    uow: UnitOfWorkFactory, job_queue: JobQueue, clock: FakeClock, account: int, enqueue: Callable[..., int]
) -> None:
    """The same kind and key twice is one job; once it has finished, the key queues a new one."""
    first = enqueue(key="entry:7")
    assert enqueue(key="entry:7") == first
    job_queue.succeed(claim_one(job_queue, clock), clock.now())
    assert enqueue(key="entry:7") != first


def test_the_same_key_in_two_accounts_is_two_jobs(
    enqueue: Callable[..., int], make_account: Callable[..., int]
) -> None:
    """Keys are per account."""
    assert enqueue(key="entry:7") != enqueue(key="entry:7", account_id=make_account("Other"))


def test_another_accounts_job_is_not_found(
    enqueue: Callable[..., int], uow: UnitOfWorkFactory, make_account: Callable[..., int]
) -> None:
    """A job id of another account reads as absent."""
    job_id = enqueue()
    with uow.workspace(make_account("Other"), readonly=True) as unit:
        assert unit.jobs.get(job_id) is None


def test_a_cancelled_running_job_loses_its_lease(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock, uow: UnitOfWorkFactory, account: int
) -> None:
    """Cancelled while it runs: its heartbeat and its success are refused, and it stays cancelled."""
    job_id = enqueue(key="entry:7")
    claim = claim_one(job_queue, clock)
    with uow.workspace(account) as unit:
        assert unit.jobs.cancel(CRAWL, "entry:7", clock.now()) is True
        unit.commit()
    assert job_queue.heartbeat(claim, clock.now(), LEASE) is False
    assert job_queue.succeed(claim, clock.now()) is False
    assert status(uow, account, job_id) == "cancelled"


def test_the_backlog_counts_unfinished_jobs_by_kind(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """Queued and running jobs count; the earliest due queued one is reported."""
    enqueue(run_at=clock.now() - timedelta(seconds=30))
    enqueue()
    enqueue(kind="embed")
    claim_one(job_queue, clock)
    backlog = {kind: (count, earliest) for kind, count, earliest in job_queue.backlog(clock.now())}
    assert backlog == {CRAWL: (2, clock.now()), "embed": (1, clock.now())}


# -- the runner over each adapter ------------------------------------------------------------------


def run(job_queue: JobQueue, clock: FakeClock, handler: Callable[[JobContext], None]) -> int:
    return JobRunner(job_queue, {CRAWL: handler}, clock, lease_seconds=LEASE, retry_delays=(10, 60)).run_once()


def test_the_runner_records_a_handler_that_returns_as_succeeded(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock, uow: UnitOfWorkFactory, account: int
) -> None:
    """The handler ran with the payload, and the job is `succeeded`."""
    seen: list[object] = []
    job_id = enqueue(payload={"entry_id": 3})
    run(job_queue, clock, lambda context: seen.append(context.payload["entry_id"]))
    assert seen == [3] and status(uow, account, job_id) == "succeeded"


def fail(context: JobContext) -> None:
    raise RuntimeError("the site did not answer")


def test_the_runner_retries_a_failing_handler_after_the_first_delay(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """An exception: queued again 10 s later, as attempt 2."""
    enqueue()
    run(job_queue, clock, fail)
    assert job_queue.claim((CRAWL,), clock.now(), LEASE, 1) == []
    clock.advance(seconds=10)
    assert claim_one(job_queue, clock).attempt == 2


def test_the_runner_fails_the_job_after_its_last_attempt(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock, uow: UnitOfWorkFactory, account: int
) -> None:
    """With `max_attempts=2`, the second failure is final, its error kept."""
    job_id = enqueue(max_attempts=2)
    run(job_queue, clock, fail)
    clock.advance(seconds=10)
    run(job_queue, clock, fail)
    with uow.workspace(account, readonly=True) as unit:
        job = unit.jobs.get(job_id)
    assert job is not None and (job.status, job.last_error) == ("failed", "RuntimeError: the site did not answer")


def test_the_runner_fails_a_job_that_never_can_succeed_at_once(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock, uow: UnitOfWorkFactory, account: int
) -> None:
    """`JobFailed`: `failed` on the first attempt, with its message."""

    def gone(context: JobContext) -> None:
        raise JobFailed("The entry was deleted.")

    job_id = enqueue()
    run(job_queue, clock, gone)
    assert status(uow, account, job_id) == "failed"


def test_the_runner_defers_a_job_without_spending_an_attempt(
    enqueue: Callable[..., int], job_queue: JobQueue, clock: FakeClock
) -> None:
    """`RetryLater(30)`: due again in 30 s, still attempt 1."""

    def later(context: JobContext) -> None:
        raise RetryLater(30, "Weekly quota reached.")

    enqueue()
    run(job_queue, clock, later)
    clock.advance(seconds=30)
    assert claim_one(job_queue, clock).attempt == 1
