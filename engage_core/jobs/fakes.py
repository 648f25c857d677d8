"""In-memory fakes of the jobs' ports, over the fakes' shared store (`engage_core.kernel.memory`)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

import attrs

from engage_core.jobs.model import Job, JobClaim, JobRequest
from engage_core.kernel.memory import FakeArea, MemoryStore, Repo, Tables


@attrs.frozen
class _Leased:
    job: Job
    leased_until: datetime | None = None
    lease_token: str | None = None

    @property
    def account_id(self) -> int:  # what `State.purge_account` looks for
        return self.job.account_id


@attrs.define
class JobsTables(Tables):
    """The jobs area's rows: each job with its lease, by id."""

    jobs: dict[int, _Leased] = attrs.Factory(dict)


class InMemoryJobRepository(Repo):
    """In memory, as :class:`~engage_core.jobs.ports.JobRepository`."""

    @property
    def _t(self) -> JobsTables:
        return self._state.of(JobsTables)

    def enqueue(self, request: JobRequest, now: datetime) -> Job:
        """In memory, as :meth:`.JobRepository.enqueue`."""
        if request.key is not None:
            for row in self._t.jobs.values():
                job = row.job
                if (job.account_id, job.kind, job.key) == (
                    self._account,
                    request.kind,
                    request.key,
                ) and not job.finished:
                    return job
        job = Job(
            id=self._store.next_id(),
            account_id=self._account,
            kind=request.kind,
            key=request.key,
            payload=dict(request.payload),
            status="queued",
            attempts=0,
            max_attempts=request.max_attempts,
            run_at=request.run_at or now,
            last_error=None,
            created_at=now,
            updated_at=now,
            finished_at=None,
        )
        self._t.jobs[job.id] = _Leased(job)
        return job

    def get(self, job_id: int) -> Job | None:
        """In memory, as :meth:`.JobRepository.get`."""
        row = self._t.jobs.get(job_id)
        return None if row is None or row.job.account_id != self._account else row.job

    def find(self, kind: str, key: str) -> Job | None:
        """In memory, as :meth:`.JobRepository.find`."""
        mine = [
            row.job
            for row in self._t.jobs.values()
            if (row.job.account_id, row.job.kind, row.job.key) == (self._account, kind, key)
        ]
        return max(mine, key=lambda job: job.id, default=None)

    def cancel(self, kind: str, key: str, now: datetime) -> bool:
        """In memory, as :meth:`.JobRepository.cancel`."""
        for job_id, row in self._t.jobs.items():
            job = row.job
            if (job.account_id, job.kind, job.key) == (self._account, kind, key) and not job.finished:
                cancelled = attrs.evolve(job, status="cancelled", updated_at=now, finished_at=now)
                self._t.jobs[job_id] = _Leased(cancelled)
                return True
        return False


class InMemoryJobQueue:
    """The jobs of every account as a queue, over the same store (each call atomic under its lock)."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    def _jobs(self) -> dict[int, _Leased]:
        return self._store.state.of(JobsTables).jobs

    def claim(self, kinds: Collection[str], now: datetime, lease_seconds: float, limit: int) -> Sequence[JobClaim]:
        """In memory, as :meth:`.JobQueue.claim`."""
        with self._store.lock:
            jobs = self._jobs()
            due = sorted(
                (
                    row
                    for row in jobs.values()
                    if row.job.kind in kinds
                    and (
                        (row.job.status == "queued" and row.job.run_at <= now)
                        or (row.job.status == "running" and row.leased_until is not None and row.leased_until <= now)
                    )
                ),
                key=lambda row: (row.job.run_at, row.job.id),
            )[: max(limit, 0)]
            claims = []
            for row in due:
                token = uuid.uuid4().hex
                job = attrs.evolve(row.job, status="running", attempts=row.job.attempts + 1, updated_at=now)
                jobs[job.id] = _Leased(job, now + timedelta(seconds=lease_seconds), token)
                claims.append(
                    JobClaim(job.id, token, job.account_id, job.kind, job.payload, job.attempts, job.max_attempts)
                )
            return claims

    def _held(self, claim: JobClaim) -> _Leased | None:
        row = self._jobs().get(claim.job_id)
        return row if row is not None and row.job.status == "running" and row.lease_token == claim.lease_token else None

    def heartbeat(self, claim: JobClaim, now: datetime, lease_seconds: float) -> bool:
        """In memory, as :meth:`.JobQueue.heartbeat`."""
        with self._store.lock:
            row = self._held(claim)
            if row is None:
                return False
            self._jobs()[claim.job_id] = attrs.evolve(row, leased_until=now + timedelta(seconds=lease_seconds))
            return True

    def succeed(self, claim: JobClaim, now: datetime) -> bool:
        """In memory, as :meth:`.JobQueue.succeed`."""
        return self._finish(claim, now, status="succeeded", error=None)

    def fail(self, claim: JobClaim, error: str, now: datetime) -> bool:
        """In memory, as :meth:`.JobQueue.fail`."""
        return self._finish(claim, now, status="failed", error=error)

    def _finish(self, claim: JobClaim, now: datetime, *, status: str, error: str | None) -> bool:
        with self._store.lock:
            row = self._held(claim)
            if row is None:
                return False
            last_error = row.job.last_error if error is None else error
            job = attrs.evolve(row.job, status=status, last_error=last_error, updated_at=now, finished_at=now)
            self._jobs()[claim.job_id] = _Leased(job)
            return True

    def retry(self, claim: JobClaim, error: str, run_at: datetime, now: datetime, *, counts: bool = True) -> bool:
        """In memory, as :meth:`.JobQueue.retry`."""
        with self._store.lock:
            row = self._held(claim)
            if row is None:
                return False
            attempts = row.job.attempts if counts else row.job.attempts - 1
            job = attrs.evolve(
                row.job, status="queued", attempts=attempts, run_at=run_at, last_error=error, updated_at=now
            )
            self._jobs()[claim.job_id] = _Leased(job)
            return True

    def backlog(self, now: datetime) -> Sequence[tuple[str, int, datetime | None]]:
        """In memory, as :meth:`.JobQueue.backlog`."""
        with self._store.lock:
            by_kind: dict[str, tuple[int, datetime | None]] = {}
            for row in self._jobs().values():
                job = row.job
                if job.finished:
                    continue
                count, earliest = by_kind.get(job.kind, (0, None))
                if job.status == "queued" and (earliest is None or job.run_at < earliest):
                    earliest = job.run_at
                by_kind[job.kind] = (count + 1, earliest)
            return [(kind, count, earliest) for kind, (count, earliest) in sorted(by_kind.items())]

    def close(self) -> None:
        """Nothing to release."""


AREA = FakeArea(JobsTables, workspace={"jobs": InMemoryJobRepository})
