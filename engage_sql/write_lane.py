"""The write lane (SQLite): a process's short write requests run one after another on one thread, in
batches that share one transaction and one COMMIT.

Group commit (`group_commit.py`) already shares one fsync among concurrent writers, but each writer
is a thread of its own: under load, dozens of threads take turns on the writers' lock, wake each
other after every COMMIT and hand the GIL back and forth at every SQLite call, and those hand-offs
cost more CPU than the writes. Here one thread runs the jobs that the event loop queues, back to
back, each in a savepoint of the batch's transaction (`WriteGroups.batch`), and commits once the
queue is empty (or `max_batch` jobs have run); while it waits for that COMMIT's fsync, the event
loop queues the next batch. Every job of a batch is answered after its COMMIT has returned, in one
hand-off to the event loop for the whole batch: no answer is sent for a change that is not durable,
and if the COMMIT fails, every job of the batch fails with `GroupCommitFailed` (none of it was kept,
and any answer could have depended on it).

So a job must have no effect but its units of work: within a batch `commit()` returns before the
change is durable, and nothing may act on it outside the database before the lane answers (no
message sent, no mail, no request to another service). Operations declare that they qualify
(`engage_http.operations.Operation.write_lane`), and the rule is checked, not trusted: every
outbound port the composition root hands out goes through `outbound_guard`, whose every call
raises `OutboundCallInBatch` on a thread in the middle of a batch.

Jobs run in the context (`contextvars`) of the caller that queued them. Other writers (threads
outside the lane, other processes) take their turns between batches, as they do between groups.

Fairness: no job and no workspace holds the lane for long. Jobs carry a key (the caller's: the
request's credential, so one per workspace), each key has a queue of its own, and the lane takes
one job of each key in turn, so a backlog of one key never runs ahead of another key's job. A batch
closes once `batch_budget` seconds have passed since it began (or `max_batch` jobs ran, or the queues
are empty), so a job queued behind a busy key is answered after at most about one budget, one job and
one COMMIT. A job cannot be interrupted, so the lane refuses those that would exceed the bound
(`admits`): a body above `max_job_bytes`, and, for `cooldown` seconds, every job of a key whose last
job on the lane used more than `job_budget` of the lane thread's CPU time (not wall time: a machine
that stalls the lane must not send a busy workspace's small writes off it). The caller runs those
outside the lane, each in its own transaction (on SQLite it still waits for the writers' turn
between batches: the largest legal request must be fast in itself, which is what its storage
makes sure of).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Hashable
from typing import Any, Final, TypeVar, cast

import attrs

from engage_sql.group_commit import MAX_GROUP, WriteGroups

logger = logging.getLogger("engage.write_lane")

R = TypeVar("R")
P = TypeVar("P")

STOP_TIMEOUT_SECONDS: Final = 30.0
"""How long `close` waits for the jobs already queued to finish."""

BATCH_BUDGET_SECONDS: Final = 0.025
"""A batch takes no further job once it has run this long: a job queued behind it waits about this
long, one job and one COMMIT. Small writes take well under a millisecond, so a batch under load
still shares its COMMIT among dozens of them."""

JOB_BUDGET_SECONDS: Final = 0.05
"""A job that runs longer sends its key's next jobs off the lane for `COOLDOWN_SECONDS`."""

COOLDOWN_SECONDS: Final = 60.0

MAX_JOB_BYTES: Final = 16 * 1024
"""Bodies above this run off the lane: short writes (a contact, a tag, a booking) take a few hundred
bytes, and the largest legal contact (100 tags of 100 characters) about 11 KB."""


@attrs.define(eq=False)
class _Job:
    context: contextvars.Context
    fn: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    key: Hashable = None
    result: Any = None
    error: BaseException | None = None


class _FairQueue:
    """Jobs queued per key, taken one key at a time in turn (round robin); closed by `stop`.

    The key whose job is running (`get`) waits for its next turn until `done`: a key that queues a
    job meanwhile goes first, not after the busy key's next job."""

    def __init__(self) -> None:
        self._ready = threading.Condition(threading.Lock())
        self._queues: dict[Hashable, deque[_Job]] = {}
        self._turns: deque[Hashable] = deque()  # the keys with jobs, in the order of their turns
        self._serving: list[Hashable] = []  # the key of the running job (a list: any key may be None)
        self._stopped = False

    def put(self, key: Hashable, job: _Job) -> None:
        with self._ready:
            jobs = self._queues.get(key)
            if jobs is None:
                jobs = self._queues[key] = deque()
                if key not in self._serving:
                    self._turns.append(key)
            jobs.append(job)
            self._ready.notify()

    def stop(self) -> None:
        """`get` returns None once the jobs already queued are taken."""
        with self._ready:
            self._stopped = True
            self._ready.notify()

    def get(self, *, wait: bool) -> _Job | None:
        """The next key's oldest job; None when there is none (and, with `wait`, only once stopped).
        Call `done` when it has run."""
        with self._ready:
            while not self._turns:
                if self._stopped or not wait:
                    return None
                self._ready.wait()
            key = self._turns.popleft()
            jobs = self._queues[key]
            job = jobs.popleft()
            if not jobs:
                del self._queues[key]
            self._serving = [key]
            return job

    def done(self) -> None:
        """The running job has run: its key takes its next turn after every key waiting now."""
        with self._ready:
            for key in self._serving:
                if key in self._queues:
                    self._turns.append(key)
            self._serving = []


class WriteLane:
    """One thread running write jobs in batches over `groups` (the units of work's `WriteGroups`),
    fairly between keys (see the module docstring). `clock` (seconds, monotonic) times batches;
    `job_clock` times jobs: the lane thread's CPU time, so that a job stalled by the machine (another
    process, the GIL held by request threads) is not taken for a heavy one. Both are for tests."""

    def __init__(
        self,
        groups: WriteGroups,
        *,
        max_batch: int = MAX_GROUP,
        batch_budget: float = BATCH_BUDGET_SECONDS,
        job_budget: float = JOB_BUDGET_SECONDS,
        cooldown: float = COOLDOWN_SECONDS,
        max_job_bytes: int = MAX_JOB_BYTES,
        clock: Callable[[], float] = time.monotonic,
        job_clock: Callable[[], float] = time.thread_time,
    ) -> None:
        self._groups = groups
        self._max_batch = max_batch
        self._batch_budget = batch_budget
        self._job_budget = job_budget
        self._cooldown = cooldown
        self._max_job_bytes = max_job_bytes
        self._clock = clock
        self._job_clock = job_clock
        self._slow: dict[Hashable, float] = {}  # key -> when its jobs may use the lane again
        self._last_took: dict[Hashable, float] = {}  # key -> how long its last long job ran (lane thread only)
        self._lock = threading.Lock()  # guards the two below, and orders jobs before a close's stop
        self._jobs: _FairQueue | None = None
        self._thread: threading.Thread | None = None

    def admits(self, key: Hashable, size: int) -> bool:
        """Whether a job of `key` with a body of `size` bytes may run on the lane; if not, the caller
        runs it outside, in a transaction of its own."""
        if size > self._max_job_bytes:
            return False
        until = self._slow.get(key)
        if until is None:
            return True
        if self._clock() < until:
            return False
        self._slow.pop(key, None)
        return True

    async def run(self, fn: Callable[[], R], *, key: Hashable = None) -> R:
        """`fn()` on the lane, in the caller's context, in `key`'s turn; its result (or exception)
        once its batch is durable. Call it from an event loop. The lane's thread starts with its
        first job."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        job = _Job(contextvars.copy_context(), fn, loop, future, key)
        with self._lock:
            if self._jobs is None:
                self._jobs = _FairQueue()
                self._thread = threading.Thread(
                    target=self._serve, args=(self._jobs,), name="engage-write-lane", daemon=True
                )
                self._thread.start()
            self._jobs.put(key, job)
        return await future

    def close(self) -> None:
        """Run the jobs already queued, then stop the thread (waiting at most `STOP_TIMEOUT_SECONDS`).
        A job queued afterwards starts a new one."""
        with self._lock:
            jobs, thread = self._jobs, self._thread
            self._jobs = self._thread = None
            if jobs is not None:
                jobs.stop()
        if thread is not None:
            thread.join(STOP_TIMEOUT_SECONDS)

    def _serve(self, jobs: _FairQueue) -> None:
        carried: _Job | None = None  # taken, but would not have fitted the last batch's budget
        while True:
            job = carried or jobs.get(wait=True)
            carried = None
            if job is None:
                return
            batch = [job]
            try:
                with self._groups.batch():
                    closes_at = self._clock() + self._batch_budget
                    self._run(job, jobs)
                    while len(batch) < self._max_batch and not self._groups.broken:
                        next_job = jobs.get(wait=False) if self._clock() < closes_at else None
                        if next_job is None:
                            break
                        if self._clock() + self._last_took.get(next_job.key, 0.0) > closes_at:
                            carried = next_job  # its key's last job says it would overrun: next batch
                            break
                        batch.append(next_job)
                        self._run(next_job, jobs)
            except Exception as exc:  # no turn, or the COMMIT failed: nothing of the batch was kept
                logger.error("A batch of %d writes failed: %s", len(batch), exc)
                for failed in batch:
                    failed.error, failed.result = exc, None
            _answer(batch)

    def _run(self, job: _Job, jobs: _FairQueue) -> None:
        started = self._job_clock()
        try:
            job.result = job.context.run(job.fn)
        except BaseException as exc:  # whatever it is, it is the job's answer: the lane goes on
            job.error = exc
        finally:
            jobs.done()
        took = self._job_clock() - started
        if took > self._batch_budget / 4:  # remembered only for the jobs that matter to a budget
            self._last_took[job.key] = took
        else:
            self._last_took.pop(job.key, None)
        if took > self._job_budget:
            self._slow[job.key] = self._clock() + self._cooldown
            logger.warning(
                "A write took %.0f ms on the write lane: its workspace's writes run off the lane for %.0f s",
                took * 1000,
                self._cooldown,
            )


def _answer(batch: list[_Job]) -> None:
    """Settle the batch's futures: one hand-off to each event loop."""
    by_loop: defaultdict[asyncio.AbstractEventLoop, list[_Job]] = defaultdict(list)
    for job in batch:
        by_loop[job.loop].append(job)
    for loop, jobs in by_loop.items():
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for these answers any more
            loop.call_soon_threadsafe(_settle, jobs)


def _settle(jobs: list[_Job]) -> None:
    for job in jobs:
        if job.future.cancelled():  # the request was abandoned; its write stands, as in any thread
            continue
        if job.error is not None:
            job.future.set_exception(job.error)
        else:
            job.future.set_result(job.result)


class OutboundCallInBatch(RuntimeError):
    """An outbound port (mail, a channel gateway, the store, a webhook, ...) was called by a job of a
    batch, whose changes are not durable yet: the job must do it after its request is answered."""


class OutboundCallOnLoop(RuntimeError):
    """An outbound port was called by a short request that PostgreSQL's storage runs on the event loop
    (`loop_calls`), where its wait would stall every request of the process."""


class _OutboundPort:
    """`port`, with every method refused while `refused()` says so (raising `error(message)`)."""

    __slots__ = ("_error", "_name", "_port", "_refused", "_where")

    def __init__(
        self, port: object, name: str, refused: Callable[[], bool], error: type[RuntimeError], where: str
    ) -> None:
        self._port = port
        self._name = name
        self._refused = refused
        self._error = error
        self._where = where

    def __getattr__(self, attribute: str) -> Any:
        found = getattr(self._port, attribute)
        if not callable(found):
            return found
        refused, name, error, where = self._refused, self._name, self._error, self._where

        def call(*args: Any, **kwargs: Any) -> Any:
            if refused():
                raise error(f"{name}.{attribute}() was called {where}")
            return found(*args, **kwargs)

        return call

    @property
    def guarded(self) -> object:
        """The port itself (to close it, for one)."""
        return self._port


def outbound_guard(groups: WriteGroups) -> Callable[[P, str], P]:
    """A function that wraps an outbound port so that calling it in a batch of `groups` raises
    `OutboundCallInBatch` at once (`port`, and a name for the message)."""

    def guard(port: P, name: str) -> P:
        where = "in a write-lane batch, before its changes are durable"
        return cast(P, _OutboundPort(port, name, lambda: groups.batching, OutboundCallInBatch, where))

    return guard


def loop_outbound_guard(in_loop_call: Callable[[], bool]) -> Callable[[P, str], P]:
    """A function that wraps an outbound port so that calling it while `in_loop_call()` (a short
    request PostgreSQL's storage runs on the event loop) raises `OutboundCallOnLoop` at once."""

    def guard(port: P, name: str) -> P:
        where = "on the event loop, where it would stall every request"
        return cast(P, _OutboundPort(port, name, in_loop_call, OutboundCallOnLoop, where))

    return guard
