"""Jobs: work a request asks for and the worker does after the commit (crawls, document processing,
embeddings, campaign sends).

A job is queued in the same transaction as the change that needs it (`JobRepository.enqueue` in a
workspace unit of work), so a crash loses both or neither. The worker claims due jobs with a lease,
as it claims webhook attempts: a worker that dies mid-job loses nothing, its job is claimed again
once the lease ends, so a handler must be safe to run again (it resumes from what it stored). A
long handler extends its lease (`JobContext.heartbeat`).

Statuses: `queued` (waiting for `run_at`), `running` (leased), then `succeeded`, `failed` (its last
allowed attempt failed, or the handler said it never can succeed) or `cancelled`. A retried job goes
back to `queued` with a later `run_at`; a job deferred (`RetryLater`, a quota say) goes back without
counting an attempt.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

import attrs

JOB_STATUSES: tuple[str, ...] = ("queued", "running", "succeeded", "failed", "cancelled")
FINISHED_STATUSES = frozenset({"succeeded", "failed", "cancelled"})
KIND_MAX = 64
KEY_MAX = 255
ERROR_MAX = 1000
DEFAULT_MAX_ATTEMPTS = 5

RETRY_DELAYS_SECONDS: tuple[int, ...] = (10, 60, 300, 900, 3600)
"""The wait before each retry of a failed attempt (the last repeats): quick for a blip, then backing off."""


@attrs.frozen
class JobRequest:
    """A job to queue. `key`, when given, makes it unique among the account's unfinished jobs of
    its `kind` (a second request while one is queued or running gets that one: "crawl entry 7"
    twice is one crawl)."""

    kind: str
    payload: Mapping[str, Any] = attrs.field(factory=dict)
    key: str | None = None
    run_at: datetime | None = None
    max_attempts: int = DEFAULT_MAX_ATTEMPTS


@attrs.frozen
class Job:
    id: int
    account_id: int
    kind: str
    key: str | None
    payload: Mapping[str, Any]
    status: str
    attempts: int
    max_attempts: int
    run_at: datetime
    last_error: str | None
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_STATUSES


@attrs.frozen
class JobClaim:
    """A leased job, as the worker runs it. `attempt` counts from 1 (deferrals do not count)."""

    job_id: int
    lease_token: str
    account_id: int
    kind: str
    payload: Mapping[str, Any]
    attempt: int
    max_attempts: int


class RetryLater(Exception):
    """Raised by a handler that cannot go on now but has not failed (a quota reached, a rate limit):
    the job is queued again after `seconds`, and the attempt does not count."""

    def __init__(self, seconds: float, reason: str = "") -> None:
        super().__init__(reason or f"Deferred for {seconds:g} s.")
        self.seconds = seconds
        self.reason = reason


class JobFailed(Exception):
    """Raised by a handler whose job can never succeed (its entry is gone, its input is invalid):
    the job fails now, whatever attempts are left. The message is kept as the job's `last_error`."""


def retry_at(attempt: int, now: datetime, delays: tuple[int, ...] = RETRY_DELAYS_SECONDS) -> datetime:
    """When a job whose attempt number `attempt` failed runs again."""
    delay = delays[min(attempt, len(delays)) - 1] if attempt >= 1 else delays[0]
    return now + timedelta(seconds=delay)


def error_text(exc: BaseException) -> str:
    """What is kept of a failure: its type and message, bounded."""
    text = str(exc) or type(exc).__name__
    if not isinstance(exc, JobFailed):
        text = f"{type(exc).__name__}: {text}"
    return text[:ERROR_MAX]
