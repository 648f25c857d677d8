"""What jobs need from storage."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Protocol

from engage_core.jobs.model import Job, JobClaim, JobRequest


class JobRepository(Protocol):
    """The jobs of one account, inside a workspace unit of work: a job queued here commits (or not)
    with the change that asked for it."""

    def enqueue(self, request: JobRequest, now: datetime) -> Job:
        """Queue a job due at `request.run_at` (now when None). With a `key`, the account's
        unfinished job of the same kind and key, when there is one, is returned instead."""

    def get(self, job_id: int) -> Job | None:
        """The account's job with this id, or None (another account's job is None too)."""

    def find(self, kind: str, key: str) -> Job | None:
        """The latest job of `kind` with `key` (finished or not), or None."""

    def cancel(self, kind: str, key: str, now: datetime) -> bool:
        """Cancel the unfinished job of `kind` with `key`: a queued one never runs, a running one's
        completion is not recorded (its handler learns it at its next heartbeat). False if none."""


class JobsRepositories(Protocol):
    """The jobs area's repositories, as a workspace unit of work hands them out."""

    @property
    def jobs(self) -> JobRepository:
        """The account's jobs, queued in this unit of work's transaction."""


class JobQueue(Protocol):
    """The jobs of every account seen as a queue: used by the worker only. Every method is atomic,
    and each that ends or extends a lease does nothing (False) once the lease is lost: it ended and
    another worker claimed the job, or the job was cancelled."""

    def claim(self, kinds: Collection[str], now: datetime, lease_seconds: float, limit: int) -> Sequence[JobClaim]:
        """Lease up to `limit` queued jobs of `kinds` due by `now` (or running ones whose lease
        ended), earliest due first. Two workers never hold the same job at once."""

    def heartbeat(self, claim: JobClaim, now: datetime, lease_seconds: float) -> bool:
        """Extend the lease to `now + lease_seconds`."""

    def succeed(self, claim: JobClaim, now: datetime) -> bool:
        """End the job as `succeeded`."""

    def retry(self, claim: JobClaim, error: str, run_at: datetime, now: datetime, *, counts: bool = True) -> bool:
        """Queue the job again, due at `run_at`, keeping `error`. Unless `counts`, the attempt is
        given back (a deferral is not a failure)."""

    def fail(self, claim: JobClaim, error: str, now: datetime) -> bool:
        """End the job as `failed`, keeping `error` as its `last_error`."""

    def backlog(self, now: datetime) -> Sequence[tuple[str, int, datetime | None]]:
        """Per kind: the unfinished jobs, and the earliest due moment among the queued ones."""

    def close(self) -> None:
        """Release what the queue holds (nothing, for the SQL queue: its engine is the database's)."""
