"""PostgreSQL's short reads on the event loop, without blocking it.

The services and repositories are synchronous, so a PostgreSQL read used to take a worker thread:
on a busy process the hand-off to the thread and back, and the GIL hand-offs between dozens of
runnable threads, cost more CPU than the read itself. `LoopReads.run` instead runs a synchronous
call in a greenlet on the event loop's thread. The call's PostgreSQL connection is a
`CooperativeConnection`: where psycopg would block waiting for its socket, it switches back to the
event loop, which awaits the socket's readiness (`loop.add_reader`) and switches to the greenlet
again when the server has answered. Other requests run meanwhile; the call's code does not change.

Each call holds one connection of the runner's own for all its read-only units of work (as a
thread's pinned reader does, `SqlUnitOfWorkFactory.pin_reader`), taken from a few kept open between
calls: at most `size` calls run at once, the others wait their turn on the loop. A connection is
opened in a worker thread (psycopg's connect waits on its own), and pinged first when it has been
idle long enough for a restart or failover to have dropped it. A unit of work that writes, or a
second read opened while the first is in use, checks out of the usual pool and blocks the loop for
its statements: a short read does neither.

A cancelled caller does not abandon a statement half-way: the call runs to its end, then the
cancellation is raised.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

import greenlet
import psycopg
from psycopg.waiting import Ready, Wait
from sqlalchemy import Connection, Engine

R = TypeVar("R")

PING_AFTER_IDLE_SECONDS = 5.0
"""A kept connection idle for longer is pinged before a call uses it (as the pools do)."""


class _LoopGreenlet(greenlet.greenlet):
    """A call run by `LoopReads.run`: its parent is the event loop's task, which waits for sockets."""

    owner: object
    reader: Connection | None


class CooperativeConnection(psycopg.Connection[Any]):
    """A psycopg connection whose waits for its socket, inside a `LoopReads` call, let the event
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
                state = gen.send(loop.switch((fileno, state)))
        except StopIteration as done:
            return done.value


def current_reader(owner: object) -> Connection | None:
    """The connection of the `LoopReads` call running now, if `owner` started it; else None."""
    current = greenlet.getcurrent()
    if isinstance(current, _LoopGreenlet) and current.owner is owner:
        return current.reader
    return None


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


class LoopReads:
    """Runs synchronous calls on the event loop, their PostgreSQL reads included (module docstring).
    `owner` is the unit-of-work factory whose read-only units of work use the call's connection
    (`current_reader`); `engine` opens those connections (`CooperativeConnection`s, autocommit)."""

    def __init__(self, engine: Engine, owner: object, *, size: int) -> None:
        self._engine = engine
        self._owner = owner
        self._size = size
        self._turns: asyncio.Semaphore | None = None
        self._idle: list[tuple[Connection, float]] = []

    async def run(self, fn: Callable[..., R], *args: Any) -> R:
        """`fn(*args)` on the event loop's thread, its read-only units of work on one connection."""
        if self._turns is None:
            self._turns = asyncio.Semaphore(self._size)
        async with self._turns:
            connection = await self._connection()
            try:
                return await self._drive(connection, fn, args)
            finally:
                if connection.invalidated or connection.closed:
                    connection.close()
                else:
                    self._idle.append((connection, time.monotonic()))

    async def _connection(self) -> Connection:
        """A kept connection known to answer, else a new one (opened in a worker thread)."""
        while self._idle:
            connection, idle_since = self._idle.pop()
            if time.monotonic() - idle_since < PING_AFTER_IDLE_SECONDS:
                return connection
            if await self._drive(connection, _answers, (connection,)):
                return connection
            connection.invalidate()
            connection.close()
        return await asyncio.to_thread(self._engine.connect)

    async def _drive(self, reader: Connection, fn: Callable[..., R], args: tuple[Any, ...]) -> R:
        call = _LoopGreenlet(fn)
        call.gr_context = greenlet.getcurrent().gr_context  # the request's context variables
        call.owner = self._owner
        call.reader = reader
        cancelled: BaseException | None = None
        request = call.switch(*args)
        while not call.dead:
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
        if cancelled is not None:
            raise cancelled
        result: R = request
        return result

    def close(self) -> None:
        """Close the kept connections and the pool they came from (at shutdown, no call running)."""
        idle, self._idle = self._idle, []
        for connection, _ in idle:
            connection.close()
        self._engine.pool.dispose()


def _answers(connection: Connection) -> bool:
    """Whether the connection's server answers an empty statement."""
    try:
        driver: Any = connection.connection.driver_connection
        driver.execute(";")
    except psycopg.Error:
        return False
    return True
