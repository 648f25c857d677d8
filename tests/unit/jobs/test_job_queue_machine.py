"""The job lifecycle as a state machine, driven by Hypothesis over `InMemoryJobQueue` (the same
contract the SQL queue passes, `tests/contract/test_contract_jobs.py`).

Rules queue jobs (keyed or not), claim them as two workers, let a worker succeed, fail, retry or
defer what it holds (whether or not its lease still holds), heartbeat, cancel, and move the clock.
A model kept beside it says what each job's status and attempts must be. After every step: the
queue agrees with the model; a job is held by at most one live claim; a finished job never changes;
attempts never exceed the claims made.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from engage_core.jobs.model import FINISHED_STATUSES, JobClaim, JobRequest
from engage_core.testing import FakeClock, InMemoryJobQueue, InMemoryUnitOfWorkFactory

from ..factories import START

LEASE = 60.0
KIND = "work"


class JobMachine(RuleBasedStateMachine):
    claims = Bundle("claims")

    @initialize()
    def start(self) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.queue = InMemoryJobQueue(self.uow.store)
        self.account = 1
        self.status: dict[int, str] = {}
        self.attempts: dict[int, int] = {}
        self.claimed: dict[int, int] = {}
        self.holder: dict[int, tuple[str, float]] = {}  # job -> (token, lease end as clock seconds)
        self.keys: dict[int, str | None] = {}
        self.finished: dict[int, tuple[str, int]] = {}

    def _seconds(self) -> float:
        return (self.clock.now() - START).total_seconds()

    @rule(key=st.sampled_from([None, "a", "b"]))
    def enqueue(self, key: str | None) -> None:
        with self.uow.workspace(self.account) as unit:
            job = unit.jobs.enqueue(JobRequest(KIND, key=key), self.clock.now())
            unit.commit()
        unfinished = [
            j for j, k in self.keys.items() if k == key and key is not None and self.status[j] in ("queued", "running")
        ]
        if unfinished:
            assert job.id == unfinished[0], "a keyed job is queued once while unfinished"
            return
        assert job.id not in self.status
        self.status[job.id], self.attempts[job.id], self.claimed[job.id], self.keys[job.id] = "queued", 0, 0, key

    @rule(target=claims, limit=st.integers(1, 3))
    def claim(self, limit: int) -> list[JobClaim]:
        now = self._seconds()
        claimable = {
            j for j, s in self.status.items() if s == "queued" or (s == "running" and self.holder[j][1] <= now)
        }
        got = list(self.queue.claim((KIND,), self.clock.now(), LEASE, limit))
        assert {c.job_id for c in got} <= claimable
        assert len(got) == min(limit, len(claimable))
        for c in got:
            self.status[c.job_id] = "running"
            self.attempts[c.job_id] += 1
            self.claimed[c.job_id] += 1
            self.holder[c.job_id] = (c.lease_token, now + LEASE)
            assert c.attempt == self.attempts[c.job_id]
        return got

    def _holds(self, claim: JobClaim) -> bool:
        held = self.holder.get(claim.job_id)
        return self.status[claim.job_id] == "running" and held is not None and held[0] == claim.lease_token

    @rule(claims=claims, how=st.sampled_from(["succeed", "fail", "retry", "defer", "heartbeat"]))
    def finish(self, claims: list[JobClaim], how: str) -> None:
        for claim in claims:
            holds = self._holds(claim)  # a lease past its end still holds until another claim takes it
            now = self.clock.now()
            if how == "succeed":
                assert self.queue.succeed(claim, now) is holds
                new = "succeeded"
            elif how == "fail":
                assert self.queue.fail(claim, "boom", now) is holds
                new = "failed"
            elif how == "heartbeat":
                assert self.queue.heartbeat(claim, now, LEASE) is holds
                if holds:
                    self.holder[claim.job_id] = (claim.lease_token, self._seconds() + LEASE)
                continue
            else:
                counts = how == "retry"
                assert self.queue.retry(claim, "again", now, now, counts=counts) is holds
                new = "queued"
                if holds and not counts:
                    self.attempts[claim.job_id] -= 1
            if holds:
                self.status[claim.job_id] = new
                self.holder.pop(claim.job_id, None)

    @rule(key=st.sampled_from(["a", "b"]))
    def cancel(self, key: str) -> None:
        with self.uow.workspace(self.account) as unit:
            cancelled = unit.jobs.cancel(KIND, key, self.clock.now())
            unit.commit()
        unfinished = [j for j, k in self.keys.items() if k == key and self.status[j] in ("queued", "running")]
        assert cancelled is bool(unfinished)
        for job_id in unfinished:
            self.status[job_id] = "cancelled"
            self.holder.pop(job_id, None)

    @rule(seconds=st.sampled_from([1, 30, 61, 120]))
    def wait(self, seconds: int) -> None:
        self.clock.advance(seconds=seconds)

    @invariant()
    def the_queue_agrees_with_the_model(self) -> None:
        if not hasattr(self, "uow"):
            return
        with self.uow.workspace(self.account, readonly=True) as unit:
            for job_id, expected in self.status.items():
                job = unit.jobs.get(job_id)
                assert job is not None and (job.status, job.attempts) == (expected, self.attempts[job_id])

    @invariant()
    def a_finished_job_never_changes(self) -> None:
        if not hasattr(self, "uow"):
            return
        for job_id, status in self.status.items():
            if job_id in self.finished:
                assert (status, self.attempts[job_id]) == self.finished[job_id]
            elif status in FINISHED_STATUSES:
                self.finished[job_id] = (status, self.attempts[job_id])

    @invariant()
    def attempts_never_exceed_claims(self) -> None:
        if not hasattr(self, "uow"):
            return
        for job_id, attempts in self.attempts.items():
            assert 0 <= attempts <= self.claimed[job_id]


JobMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
test_job_machine = JobMachine.TestCase
test_job_machine.__doc__ = (
    "Claims, leases, retries, deferrals and cancellations keep every job's status and attempts true."
)
