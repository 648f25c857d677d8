"""PostgreSQL's short requests on the event loop, without blocking it.

The services and repositories are synchronous, so a request on PostgreSQL used to take a worker
thread: on a busy process the hand-off to the thread and back, and the GIL hand-offs between
dozens of runnable threads, cost more CPU than the request's statements. `LoopCalls` instead runs a
synchronous call in a greenlet on the event loop's thread. The call's PostgreSQL connections are
`CooperativeConnection`s: where psycopg would block waiting for its socket, the greenlet switches
back to the event loop, which awaits the socket's readiness (`loop.add_reader`) and switches to the
greenlet again when the server has answered. Other requests run meanwhile; the call's code does not
change. A call's greenlet is kept for the next call (`IDLE_GREENLETS`): under load, starting and
ending a greenlet for every call cost a tenth of the CPU of a `GET /contacts`.

Two kinds of call, each at most `size` at once (the others wait their turn on the loop):

- **Short reads** (`LoopCalls.run`): a call holds one kept autocommit connection for all of its
  read-only units of work (as a thread's pinned reader does, `SqlUnitOfWorkFactory.pin_reader`).
- **Short writes** (`LoopCalls.run_writing`, through `LoopCalls.write_lane()`, the composition
  root's write lane on PostgreSQL): a call holds a reader and a writer, on which its writing units
  of work run their transactions one after another. The row locks a write takes are held for its
  round trips alone, not for its turns at the GIL among dozens of threads.

Kept connections are opened in a worker thread (psycopg's connect waits on its own), and pinged
first when idle long enough for a restart or failover to have dropped them. A unit of work opened
while the call's own is in use checks out of the usual pool and blocks the loop for its statements:
the short requests open one at a time. Anything else that would block (an outbound call) is
refused inside a call (`in_loop_call`, `Database.outbound_guard`), as SQLite's lane refuses it.

A cancelled caller does not abandon a statement half-way: the call runs to its end, then the
cancellation is raised.
"""

from __future__ import annotations

import asyncio
import select
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import greenlet
import psycopg
from psycopg.waiting import Ready, Wait
from sqlalchemy import Connection, Engine

R = TypeVar("R")

PING_AFTER_IDLE_SECONDS = 5.0
"""A kept connection idle for longer is pinged before a call uses it (as the pools do)."""

MAX_WRITE_BYTES = 16 * 1024
"""Bodies above this run their writes in a worker thread, as on SQLite's lane (`write_lane`)."""


IDLE_GREENLETS = 64
"""Call greenlets kept for the next calls, per thread: starting a new greenlet costs about 8 us,
twenty times a switch to one that waits."""


class _Finished:
    """What a call's greenlet switches back with once its function has returned or raised (until
    then, it switches back with the socket it waits for)."""

    __slots__ = ("error", "result")

    def __init__(self, result: Any, error: Exception | None) -> None:
        self.result = result
        self.error = error


class _LoopGreenlet(greenlet.greenlet):
    """Runs `LoopCalls` calls, one after another, each started by a switch with its function and
    arguments: its parent is the event loop's task, which waits for sockets. An exception other
    than an `Exception` ends it, and reaches the parent as greenlets do."""

    owner: object
    reader: Connection | None
    writer: Connection | None

    def __init__(self) -> None:
        super().__init__(self._serve)
        self.owner, self.reader, self.writer = None, None, None

    def _serve(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        while True:
            try:
                finished = _Finished(fn(*args), None)
            except Exception as exc:
                finished = _Finished(None, exc)
            del fn, args
            parent = self.parent
            assert parent is not None
            fn, args = parent.switch(finished)


_idle = threading.local()


def _call_greenlet() -> _LoopGreenlet:
    """A greenlet for a call from the current one: a kept one, or a new one."""
    kept: list[_LoopGreenlet] | None = getattr(_idle, "greenlets", None)
    if not kept:
        return _LoopGreenlet()
    call = kept.pop()
    call.parent = greenlet.getcurrent()
    return call


def _keep(call: _LoopGreenlet) -> None:
    """Keep a greenlet whose call has finished for the next call of this thread, holding nothing of
    the call (its connections, or its caller's context and what the context variables hold)."""
    call.owner, call.reader, call.writer = None, None, None
    call.gr_context = None
    kept: list[_LoopGreenlet] = _idle.__dict__.setdefault("greenlets", [])
    if len(kept) < IDLE_GREENLETS:
        kept.append(call)


class CooperativeConnection(psycopg.Connection[Any]):
    """A psycopg connection whose waits for its socket, inside a `LoopCalls` call, let the event
    loop run instead of blocking it; anywhere else it is a plain `psycopg.Connection`."""

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        current = greenlet.getcurrent()
        if not isinstance(current, _LoopGreenlet):
            return super().wait(gen, interval, timeout)
        fileno = self.pgconn.socket
        loop = current.parent
        assert loop is not None
        try:
            state = next(gen)
            while True:
                # A wait that includes writing is nearly always answered at once (the socket takes
                # the bytes): psycopg's pipeline asks for it after every queued statement, and a
                # trip through the loop for each would cost more than the statement.
                ready = _ready_at_once(fileno, state) if state & Wait.W else 0
                state = gen.send(ready or loop.switch((fileno, state)))
        except StopIteration as done:
            return done.value


def _ready_at_once(fileno: int, state: int) -> int:
    """What the socket is ready for right now among what psycopg waits for (`Ready`; 0: nothing)."""
    poller = select.poll()
    poller.register(fileno, (select.POLLIN if state & Wait.R else 0) | select.POLLOUT)
    ready = 0
    for _, events in poller.poll(0):
        if events & select.POLLIN:
            ready |= Ready.R
        if events & select.POLLOUT:
            ready |= Ready.W
        if not ready and events & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
            ready = Ready.RW  # psycopg's own poll wait does the same: its next call meets the error
    return ready


def call_connection(owner: object, readonly: bool) -> Connection | None:
    """The reader (`readonly`) or writer of the `LoopCalls` call running now, if `owner` started it."""
    current = greenlet.getcurrent()
    if isinstance(current, _LoopGreenlet) and current.owner is owner:
        return current.reader if readonly else current.writer
    return None


def in_loop_call() -> bool:
    """Whether this code runs in a `LoopCalls` call, where whatever blocks stalls the event loop."""
    return isinstance(greenlet.getcurrent(), _LoopGreenlet)


async def _readiness(fileno: int, state: int) -> int:
    """Wait until the socket is ready for what psycopg asks (`Wait`); what it is ready for (`Ready`)."""
    loop = asyncio.get_running_loop()
    ready = loop.create_future()

    def wake(what: int) -> None:
        if not ready.done():
            ready.set_result(what)

    reads, writes = state & Wait.R, state & Wait.W
    if reads:
        loop.add_reader(fileno, wake, Ready.R)
    if writes:
        loop.add_writer(fileno, wake, Ready.W)
    try:
        result: int = await ready
        return result
    finally:
        if reads:
            loop.remove_reader(fileno)
        if writes:
            loop.remove_writer(fileno)


async def _drive(
    owner: object, reader: Connection | None, writer: Connection | None, fn: Callable[..., R], *args: Any
) -> R:
    """`fn(*args)` in a call greenlet, awaiting the sockets its connections wait for."""
    call = _call_greenlet()
    call.gr_context = greenlet.getcurrent().gr_context  # the request's context variables
    call.owner, call.reader, call.writer = owner, reader, writer
    cancelled: BaseException | None = None
    request = call.switch(fn, args)
    while not isinstance(request, _Finished):
        fileno, state = request
        try:
            ready = await _readiness(fileno, state)
        except asyncio.CancelledError as exc:
            cancelled = exc  # finish the statement first: the connection stays usable
            continue
        except OSError as exc:
            request = call.throw(psycopg.OperationalError(f"connection socket closed: {exc}"))
            continue
        request = call.switch(ready)
    _keep(call)
    # Taken out of the greenlet's last message: the kept greenlet holds neither result nor traceback.
    result: R = request.result
    error, request.result, request.error = request.error, None, None
    if error is not None:
        raise error
    if cancelled is not None:
        raise cancelled
    return result


class _Kept:
    """Connections of one engine kept open between calls, the most recently used first."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._idle: list[tuple[Connection, float]] = []

    async def take(self, owner: object) -> Connection:
        """A kept connection known to answer, else a new one (opened in a worker thread)."""
        while self._idle:
            connection, idle_since = self._idle.pop()
            if time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
                return connection
            if await _drive(owner, None, None, _answers, connection):
                return connection
            connection.invalidate()
            connection.close()
        return await asyncio.to_thread(self._engine.connect)

    def give_back(self, connection: Connection) -> None:
        """Keep `connection` for the next call, unless it is broken or left inside a transaction. A
        lost one closes the others kept too: whatever dropped it (a restart, a failover) dropped
        them, and each would fail its next call (as SQLAlchemy's pool is emptied on a disconnect)."""
        if _reusable(connection):
            self._idle.append((connection, time.monotonic()))
            return
        lost = _lost(connection)
        connection.invalidate()
        connection.close()
        if lost:
            self._close_idle()

    def close(self) -> None:
        self._close_idle()
        self._engine.pool.dispose()

    def _close_idle(self) -> None:
        idle, self._idle = self._idle, []
        for connection, _ in idle:
            connection.invalidate()
            connection.close()


class LoopCalls:
    """Runs synchronous calls on the event loop, their PostgreSQL statements included (module
    docstring). `owner` is the unit-of-work factory whose units of work use the call's connections
    (`call_connection`); `reads` and `writes` open them (`CooperativeConnection`s; `reads` in
    autocommit). At most `size` reading calls, and `size` writing ones, run at once."""

    def __init__(self, reads: Engine, writes: Engine, owner: object, *, size: int) -> None:
        self._owner = owner
        self._size = size
        self._readers = _Kept(reads)
        self._writers = _Kept(writes)
        self._read_turns: asyncio.Semaphore | None = None
        self._write_turns: asyncio.Semaphore | None = None

    async def run(self, fn: Callable[..., R], *args: Any) -> R:
        """`fn(*args)` on the event loop's thread, its read-only units of work on one connection."""
        if self._read_turns is None:
            self._read_turns = asyncio.Semaphore(self._size)
        async with self._read_turns:
            reader = await self._readers.take(self._owner)
            try:
                return await _drive(self._owner, reader, None, fn, *args)
            finally:
                self._readers.give_back(reader)

    async def run_writing(self, fn: Callable[[], R]) -> R:
        """`fn()` on the event loop's thread, with a reader for its read-only units of work and a
        writer for the others."""
        if self._write_turns is None:
            self._write_turns = asyncio.Semaphore(self._size)
        async with self._write_turns:
            reader = await self._readers.take(self._owner)
            try:
                writer = await self._writers.take(self._owner)
                try:
                    return await _drive(self._owner, reader, writer, fn)
                finally:
                    self._writers.give_back(writer)
            finally:
                self._readers.give_back(reader)

    def write_lane(self) -> LoopWriteLane:
        """The write lane of the composition root on PostgreSQL: the short writes run here too."""
        return LoopWriteLane(self)

    def close(self) -> None:
        """Close the kept connections and their pools (at shutdown, no call running). Idempotent."""
        self._readers.close()
        self._writers.close()


class LoopWriteLane:
    """PostgreSQL's write lane (`engage_http.routing.WriteLane`): the short writes run on the event
    loop (`LoopCalls.run_writing`), each in its own transactions, concurrently with the others."""

    def __init__(self, calls: LoopCalls, *, max_bytes: int = MAX_WRITE_BYTES) -> None:
        self._calls = calls
        self._max_bytes = max_bytes

    def admits(self, key: Hashable, size: int) -> bool:
        """Bodies up to `max_bytes`; a larger one runs in a worker thread, its parsing off the loop."""
        return size <= self._max_bytes

    async def run(self, fn: Callable[[], R], *, key: Hashable = None) -> R:
        return await self._calls.run_writing(fn)

    def close(self) -> None:
        self._calls.close()


def _lost(connection: Connection) -> bool:
    """Whether the connection to the server is gone (SQLAlchemy saw a disconnect, or the driver did)."""
    if connection.invalidated or connection.closed:
        return True
    driver: Any = connection.connection.driver_connection
    return bool(driver.closed)


def _reusable(connection: Connection) -> bool:
    """Whether the connection is open, and idle outside any transaction (not mid-statement, say)."""
    if _lost(connection):
        return False
    driver: Any = connection.connection.driver_connection
    return bool(driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE)


def _answers(connection: Connection) -> bool:
    """Whether the connection's server answers an empty statement."""
    try:
        driver: Any = connection.connection.driver_connection
        driver.execute(";")
        if not driver.autocommit:
            driver.rollback()  # a writer's ping opened a transaction
    except psycopg.Error:
        return False
    return True
