"""`JobRunner`: the worker's loop over the job queue, one job at a time, each under a kept lease.

A handler is a function of a `JobContext`, registered by kind. What it returns or raises decides
the job's fate:

- it returns: `succeeded`;
- `RetryLater(seconds)`: queued again after `seconds`, the attempt not counted (a quota, a pause);
- `JobFailed`: `failed` now, whatever attempts are left;
- any other exception: queued again after the next delay of `RETRY_DELAYS_SECONDS`, or `failed`
  when it was the last allowed attempt; logged with its traceback;
- `JobLost` (from `JobContext.check`): nothing is recorded, the job is someone else's now (its lease
  ended and another worker took it) or was cancelled.

While a handler runs, a helper thread extends its lease every third of `lease_seconds`, so a long
job (a crawl of a hundred pages) keeps it without the handler's help; when the lease is lost
(cancelled, or this process stalled past it and another worker took over), `check()` raises
`JobLost` at the handler's next call, so the two never go on together for long. A handler stores
its progress as it goes, and on a new attempt resumes from it (a crash mid-job is a new attempt).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta

import attrs

from engage_core.jobs.model import RETRY_DELAYS_SECONDS, JobClaim, JobFailed, RetryLater, error_text, retry_at
from engage_core.jobs.ports import JobQueue
from engage_core.kernel.clock import Clock

logger = logging.getLogger("engage.jobs")

DEFAULT_LEASE_SECONDS = 60.0
MAX_IDLE_BACKOFF_SECONDS = 30.0


class JobLost(Exception):
    """The job's lease is gone (cancelled, or taken over): the handler must stop."""


class JobContext:
    """What a handler gets: its claim, and ways to learn whether it should stop."""

    def __init__(self, claim: JobClaim, stopping: threading.Event) -> None:
        self.claim = claim
        self._stopping = stopping
        self._lost = threading.Event()

    @property
    def payload(self) -> Mapping[str, object]:
        return self.claim.payload

    @property
    def account_id(self) -> int:
        return self.claim.account_id

    def stopping(self) -> bool:
        """The worker is shutting down: a long handler stores its progress and raises
        `RetryLater(0)`, to be resumed by the next worker at once."""
        return self._stopping.is_set()

    def lost(self) -> bool:
        return self._lost.is_set()

    def check(self) -> None:
        """Raise `JobLost` when the lease is gone; call it between steps of a long job."""
        if self._lost.is_set():
            raise JobLost(f"Job {self.claim.job_id} is no longer held by this worker.")

    def mark_lost(self) -> None:
        self._lost.set()


Handler = Callable[[JobContext], None]


class JobRunner:
    """Runs the jobs of the kinds in `handlers` from `queue`."""

    def __init__(
        self,
        queue: JobQueue,
        handlers: Mapping[str, Handler],
        clock: Clock,
        *,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        retry_delays: tuple[int, ...] = RETRY_DELAYS_SECONDS,
        on_outcome: Callable[[str, str], None] | None = None,
    ) -> None:
        """`on_outcome(kind, outcome)` is told how each job ran: `succeeded`, `failed`, `retry`,
        `deferred` or `lost` (metrics count them)."""
        self._queue = queue
        self._on_outcome = on_outcome
        self._handlers = dict(handlers)
        self._clock = clock
        self._lease = lease_seconds
        self._delays = retry_delays
        self._stopping = threading.Event()

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(self._handlers)

    def run_once(self) -> int:
        """Claim one due job and run it: how many ran (0 or 1)."""
        if not self._handlers:
            return 0
        claims = self._queue.claim(self.kinds, self._clock.now(), self._lease, 1)
        for claim in claims:
            self._run(claim)
        return len(claims)

    def run_until(self, stop: threading.Event, *, idle_seconds: float = 0.5) -> None:
        """Run jobs until `stop` is set, waiting `idle_seconds` when none is due. A failing queue
        (the database restarting) is logged and retried with a growing pause; the loop goes on."""
        self._stopping = stop
        pause = idle_seconds
        while not stop.is_set():
            try:
                ran = self.run_once()
                pause = idle_seconds
            except Exception:
                logger.exception("The job queue failed; retrying in %.1f s.", pause)
                ran = 0
                stop.wait(pause)
                pause = min(pause * 2, MAX_IDLE_BACKOFF_SECONDS)
                continue
            if not ran:
                stop.wait(idle_seconds)

    def _run(self, claim: JobClaim) -> None:
        context = JobContext(claim, self._stopping)
        beating = threading.Event()
        heart = threading.Thread(
            target=self._keep_lease, args=(claim, context, beating), name="engage-job-lease", daemon=True
        )
        heart.start()
        started = time.monotonic()
        try:
            outcome = self._outcome(claim, context)
        finally:
            beating.set()
            heart.join()
        self._tell(claim.kind, "lost" if outcome is None else outcome.status)
        if outcome is None:
            return
        now = self._clock.now()
        if outcome.status == "succeeded":
            recorded = self._queue.succeed(claim, now)
        elif outcome.status == "failed":
            recorded = self._queue.fail(claim, outcome.error, now)
        else:
            run_at = now + timedelta(seconds=max(0.0, outcome.delay_seconds))
            recorded = self._queue.retry(claim, outcome.error, run_at, now, counts=outcome.status == "retry")
        if not recorded:
            logger.warning(
                "Job %d (%s) ended (%s) after its lease was lost: not recorded.",
                claim.job_id,
                claim.kind,
                outcome.status,
            )
        elif outcome.status == "succeeded":
            logger.info(
                "Job %d (%s) of account %d succeeded in %.2f s.",
                claim.job_id,
                claim.kind,
                claim.account_id,
                time.monotonic() - started,
            )

    def _tell(self, kind: str, outcome: str) -> None:
        if self._on_outcome is None:
            return
        try:
            self._on_outcome(kind, outcome)
        except Exception:  # a metrics hook never decides a job's fate
            logger.warning("The job outcome hook failed.", exc_info=True)

    def _outcome(self, claim: JobClaim, context: JobContext) -> _Outcome | None:
        """Run the handler: what to record (None: nothing, the job was lost)."""
        try:
            self._handlers[claim.kind](context)
        except JobLost:
            logger.warning("Job %d (%s) was lost mid-run: not recorded.", claim.job_id, claim.kind)
            return None
        except RetryLater as later:
            return _Outcome("deferred", later.reason or str(later), later.seconds)
        except JobFailed as failed:
            return _Outcome("failed", error_text(failed))
        except Exception as exc:
            last = claim.attempt >= claim.max_attempts
            logger.warning(
                "Job %d (%s) attempt %d of %d failed%s.",
                claim.job_id,
                claim.kind,
                claim.attempt,
                claim.max_attempts,
                "" if last else "; it will be retried",
                exc_info=True,
            )
            if last:
                return _Outcome("failed", error_text(exc))
            delay = (retry_at(claim.attempt, _EPOCH, self._delays) - _EPOCH).total_seconds()
            return _Outcome("retry", error_text(exc), delay)
        return _Outcome("succeeded")

    def _keep_lease(self, claim: JobClaim, context: JobContext, done: threading.Event) -> None:
        """Extend the lease every third of its length until `done`; on a lost lease, tell the handler."""
        while not done.wait(self._lease / 3):
            try:
                held = self._queue.heartbeat(claim, self._clock.now(), self._lease)
            except Exception:
                logger.warning("Job %d: its lease could not be extended; trying again.", claim.job_id, exc_info=True)
                continue
            if not held:
                context.mark_lost()
                return


@attrs.frozen
class _Outcome:
    """How a run ended: `succeeded`, `failed`, `retry` (counted) or `deferred` (not), with the
    error kept and the wait before the next attempt."""

    status: str
    error: str = ""
    delay_seconds: float = 0.0


_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
