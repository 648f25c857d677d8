"""The in-process workers: a background thread that sends due webhook attempts, and one that runs
due jobs (crawls, and later other background work).

`engage serve` starts it in the app's lifespan (unless `ENGAGE_RUN_WORKER=0`); `engage worker` can run
the same thing on its own. Up to `ENGAGE_WORKER_CONCURRENCY` attempts are sent at once. Stopping sets
an event the worker checks between batches, waits a bounded time for the batch in flight, then
releases the send threads and the HTTP client; an attempt cut short keeps its lease, which expires,
so another worker (or the next start) sends it again (at least once).

The job runner (`start_job_runner`) runs one job at a time from the job queue with the handlers the
services declare (`Services.job_handlers`). Stopping sets the event a handler sees through
`JobContext.stopping()`: a long handler stores its progress and defers itself, to be resumed at once
by the next worker; the runner's thread is joined for a bounded time, and a job cut short keeps its
lease, which expires, so another worker takes it over.

Like `bootstrap`, this module is part of the composition root: it is the one other module of
`engage_http` that imports an outbound adapter (`engage_connectors`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping

from engage_connectors.ssrf import AddressPolicy
from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import DEFAULT_LEASE_SECONDS, Handler, JobRunner
from engage_core.kernel.clock import Clock, SystemClock
from engage_core.settings import Settings
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.ports import DeliveryGate, DeliveryQueue, SecretCipher, WebhookSender

logger = logging.getLogger("engage.worker")

STOP_TIMEOUT_SECONDS = 10.0
"""How long `stop()` waits for the batch in flight before giving up on it (its leases expire)."""


class BackgroundHandle:
    """A background thread that loops until its stop event is set. `stop()` ends it; it is idempotent."""

    WHAT = "background thread"
    LEFT_BEHIND = ""
    """What happens to the work in flight when the thread does not stop in time (for the warning)."""

    def __init__(self, thread: threading.Thread, stop_event: threading.Event) -> None:
        self._thread = thread
        self._stop = stop_event
        self._lock = threading.Lock()
        self._stopped = False

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> bool:
        """Ask the thread to finish, wait up to `timeout` seconds for the work in flight, then release
        its resources (`_release`). True when it ended within the timeout; otherwise it is left to
        finish on its own (a daemon thread) and its resources to the process exit."""
        with self._lock:
            if self._stopped:
                return not self._thread.is_alive()
            self._stopped = True
        self._stop.set()
        self._thread.join(timeout)
        if self._thread.is_alive():
            logger.warning("The %s did not stop within %.0f s; %s", self.WHAT, timeout, self.LEFT_BEHIND)
            return False
        self._release()
        return True

    def _release(self) -> None:
        """Close what the thread used, once it has ended."""


class DeliveryWorkerHandle(BackgroundHandle):
    """A running delivery worker: `stop()` then releases the send threads, the HTTP client and the queue."""

    WHAT = "delivery worker"
    LEFT_BEHIND = "attempts in flight will be sent again when their lease expires."

    def __init__(
        self,
        thread: threading.Thread,
        stop_event: threading.Event,
        worker: DeliveryWorker,
        sender: WebhookSender,
        queue: DeliveryQueue,
        *,
        owns_sender: bool,
    ) -> None:
        super().__init__(thread, stop_event)
        self._worker = worker
        self._sender = sender
        self._queue = queue
        self._owns_sender = owns_sender

    def _release(self) -> None:
        self._worker.close()
        if self._owns_sender:
            close = getattr(self._sender, "close", None)
            if close is not None:
                close()
        self._queue.close()


def start_delivery_worker(
    queue: DeliveryQueue,
    cipher: SecretCipher,
    settings: Settings,
    *,
    gate: DeliveryGate,
    sender: WebhookSender | None = None,
    clock: Clock | None = None,
    idle_seconds: float = 0.5,
    outbound: Callable[[WebhookSender, str], WebhookSender] | None = None,
    on_attempt: Callable[[str], None] | None = None,
) -> DeliveryWorkerHandle:
    """Start a daemon thread delivering from `queue` until the handle is stopped, sending up to
    `settings.worker_concurrency` attempts at once.

    Without `sender`, attempts go out through `HttpWebhookSender` with the SSRF policy of
    `settings.webhook_allowed_hosts` and `settings.webhook_timeout_seconds`; its client is closed on stop.
    A failing queue (the database restarting, say) does not end the thread: the worker logs it and
    retries with a growing pause (`DeliveryWorker.run_until`). `outbound` wraps the sender the
    worker calls (the storage's guard of outbound calls, `Database.outbound_guard`). `gate` says which
    workspaces may receive deliveries (their plan has webhooks: `Entitlements`); the others' attempts
    are recorded failed, unsent. `on_attempt` is told each attempt's outcome (metrics count them).
    """
    owns_sender = sender is None
    if sender is None:
        policy = AddressPolicy.from_setting(settings.webhook_allowed_hosts)
        sender = HttpWebhookSender(policy, timeout=settings.webhook_timeout_seconds)
    worker = DeliveryWorker(
        queue,
        sender if outbound is None else outbound(sender, "webhook sender"),
        cipher,
        clock or SystemClock(),
        lease_seconds=settings.webhook_lease_seconds,
        concurrency=settings.worker_concurrency,
        timeout_seconds=settings.webhook_timeout_seconds,
        gate=gate,
        on_attempt=on_attempt,
    )
    stop_event = threading.Event()
    thread = threading.Thread(
        target=worker.run_until,
        args=(stop_event,),
        kwargs={"idle_seconds": idle_seconds},
        name="engage-delivery-worker",
        daemon=True,
    )
    handle = DeliveryWorkerHandle(thread, stop_event, worker, sender, queue, owns_sender=owns_sender)
    thread.start()
    logger.info("Delivery worker started (%d concurrent sends).", settings.worker_concurrency)
    return handle


class JobRunnerHandle(BackgroundHandle):
    """A running job runner: `stop()` tells the running handler to stop (`JobContext.stopping()`),
    waits for it, then releases the queue."""

    WHAT = "job runner"
    LEFT_BEHIND = "its job will be resumed when its lease expires."

    def __init__(self, thread: threading.Thread, stop_event: threading.Event, queue: JobQueue) -> None:
        super().__init__(thread, stop_event)
        self._queue = queue

    def _release(self) -> None:
        self._queue.close()


def start_job_runner(
    queue: JobQueue,
    handlers: Mapping[str, Handler],
    clock: Clock | None = None,
    *,
    lease_seconds: float = DEFAULT_LEASE_SECONDS,
    idle_seconds: float = 0.5,
    on_outcome: Callable[[str, str], None] | None = None,
) -> JobRunnerHandle:
    """Start a daemon thread running the jobs of `handlers`' kinds from `queue` until the handle is
    stopped. A failing queue does not end the thread (`JobRunner.run_until` retries with a growing
    pause). `on_outcome(kind, outcome)` is told how each job ran (metrics count them)."""
    runner = JobRunner(queue, handlers, clock or SystemClock(), lease_seconds=lease_seconds, on_outcome=on_outcome)
    stop_event = threading.Event()
    thread = threading.Thread(
        target=runner.run_until,
        args=(stop_event,),
        kwargs={"idle_seconds": idle_seconds},
        name="engage-job-runner",
        daemon=True,
    )
    handle = JobRunnerHandle(thread, stop_event, queue)
    thread.start()
    logger.info("Job runner started (%s).", ", ".join(sorted(handlers)))
    return handle


__all__ = ["DeliveryWorkerHandle", "JobRunnerHandle", "start_delivery_worker", "start_job_runner"]
