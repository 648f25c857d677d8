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
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import queue
import threading
from collections import defaultdict
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import attrs

from engage_sql.group_commit import MAX_GROUP, WriteGroups

logger = logging.getLogger("engage.write_lane")

R = TypeVar("R")
P = TypeVar("P")

STOP_TIMEOUT_SECONDS: Final = 30.0
"""How long `close` waits for the jobs already queued to finish."""


@attrs.define(eq=False)
class _Job:
    context: contextvars.Context
    fn: Callable[[], Any]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Any]
    result: Any = None
    error: BaseException | None = None


class WriteLane:
    """One thread running write jobs in batches over `groups` (the units of work's `WriteGroups`)."""

    def __init__(self, groups: WriteGroups, *, max_batch: int = MAX_GROUP) -> None:
        self._groups = groups
        self._max_batch = max_batch
        self._lock = threading.Lock()  # guards the two below, and orders jobs before a close's stop
        self._jobs: queue.SimpleQueue[_Job | None] | None = None
        self._thread: threading.Thread | None = None

    async def run(self, fn: Callable[[], R]) -> R:
        """`fn()` on the lane, in the caller's context; its result (or exception) once its batch is
        durable. Call it from an event loop. The lane's thread starts with its first job."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[R] = loop.create_future()
        job = _Job(contextvars.copy_context(), fn, loop, future)
        with self._lock:
            if self._jobs is None:
                self._jobs = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=self._serve, args=(self._jobs,), name="engage-write-lane", daemon=True
                )
                self._thread.start()
            self._jobs.put(job)
        return await future

    def close(self) -> None:
        """Run the jobs already queued, then stop the thread (waiting at most `STOP_TIMEOUT_SECONDS`).
        A job queued afterwards starts a new one."""
        with self._lock:
            jobs, thread = self._jobs, self._thread
            self._jobs = self._thread = None
            if jobs is not None:
                jobs.put(None)
        if thread is not None:
            thread.join(STOP_TIMEOUT_SECONDS)

    def _serve(self, jobs: queue.SimpleQueue[_Job | None]) -> None:
        stopping = False
        while not stopping:
            job = jobs.get()
            if job is None:
                return
            batch = [job]
            try:
                with self._groups.batch():
                    _run(job)
                    while len(batch) < self._max_batch and not self._groups.broken:
                        try:
                            job = jobs.get_nowait()
                        except queue.Empty:
                            break
                        if job is None:
                            stopping = True
                            break
                        batch.append(job)
                        _run(job)
            except Exception as exc:  # no turn, or the COMMIT failed: nothing of the batch was kept
                logger.error("A batch of %d writes failed: %s", len(batch), exc)
                for failed in batch:
                    failed.error, failed.result = exc, None
            _answer(batch)


def _run(job: _Job) -> None:
    try:
        job.result = job.context.run(job.fn)
    except BaseException as exc:  # whatever it is, it is the job's answer: the lane goes on
        job.error = exc


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


class _OutboundPort:
    """`port`, with every method refused on a thread in the middle of a batch of `groups`."""

    __slots__ = ("_groups", "_name", "_port")

    def __init__(self, port: object, groups: WriteGroups, name: str) -> None:
        self._port = port
        self._groups = groups
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        found = getattr(self._port, attribute)
        if not callable(found):
            return found
        groups, name = self._groups, self._name

        def call(*args: Any, **kwargs: Any) -> Any:
            if groups.batching:
                raise OutboundCallInBatch(
                    f"{name}.{attribute}() was called in a write-lane batch, before its changes are durable"
                )
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
        return cast(P, _OutboundPort(port, groups, name))

    return guard
