"""`engage_sql.loop_calls`: PostgreSQL's short requests run on the event loop without blocking it."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import time
import weakref
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import greenlet
import pytest
from psycopg.waiting import Wait
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from engage_core.contacts.model import Contact, ContactFilter, ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_sql import Database, loop_calls
from engage_sql.loop_calls import CooperativeConnection, LoopCalls

REQUEST = contextvars.ContextVar[str]("REQUEST")
REQUEST_HELD = contextvars.ContextVar[object]("REQUEST_HELD")


@pytest.fixture
def calls(database: Database, backend: str) -> Iterator[LoopCalls]:
    if backend != "postgres":
        pytest.skip("SQLite's short reads run as they are")
    runner = database.loop_calls(size=2)
    assert runner is not None
    yield runner
    runner.close()


def _backend_pid(database: Database) -> int:
    with database.uow.admin(readonly=True) as uow:
        return int(uow.connection.execute(text("SELECT pg_backend_pid()")).scalar_one())


def _sleep(database: Database, seconds: float) -> int:
    """Wait `seconds` on the server in a read-only unit of work; its backend's pid."""
    with database.uow.admin(readonly=True) as uow:
        return int(
            uow.connection.execute(text("SELECT pg_backend_pid() FROM pg_sleep(:s)"), {"s": seconds}).scalar_one()
        )


def _terminate(database: Database, pids: set[int]) -> None:
    """Have the server end these backends, and wait until they are gone (terminating is asynchronous)."""
    with database.engine.connect() as admin:
        admin.execute(text("SELECT pg_terminate_backend(pid) FROM unnest(:pids) AS pid"), {"pids": list(pids)})
        admin.commit()
        alive = text("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(:pids)")
        while admin.execute(alive, {"pids": list(pids)}).scalar_one():
            admin.commit()
            time.sleep(0.01)


def _run(calls: LoopCalls, fn: Callable[..., Any], *args: Any) -> Any:
    async def call() -> Any:
        return await calls.run(fn, *args)

    return asyncio.run(call())


def test_sqlite_has_no_loop_calls(database: Database, backend: str) -> None:
    """On SQLite there is no runner: its short reads run on the loop as they are."""
    if backend != "sqlite":
        pytest.skip("the SQLite case")
    assert database.loop_calls() is None


def test_a_call_reads_what_a_worker_thread_reads(
    database: Database, services: Services, account: int, make_contact: Callable[..., Contact], calls: LoopCalls
) -> None:
    """A page read in a call is the page read anywhere else."""
    for _ in range(3):
        make_contact()

    def page() -> list[str]:
        return [contact.name for contact in services.contacts.find(account, ContactFilter(), PageRequest()).items]

    assert _run(calls, page) == page()


def test_a_call_keeps_one_connection_for_its_reads(database: Database, calls: LoopCalls) -> None:
    """Every read-only unit of work of a call, and of the next call, uses the same kept connection."""

    def pids() -> set[int]:
        return {_backend_pid(database) for _ in range(3)}

    first, second = _run(calls, pids), _run(calls, pids)

    assert len(first) == 1 and first == second and first != {_backend_pid(database)}


def test_the_event_loop_runs_while_a_call_waits_for_the_server(database: Database, calls: LoopCalls) -> None:
    """Another task runs to its end while the call waits on the server: the loop is not blocked."""

    async def both() -> tuple[bool, bool]:
        call = asyncio.ensure_future(calls.run(_sleep, database, 0.5))
        await asyncio.sleep(0)  # the call sends its statement and waits
        await asyncio.sleep(0.01)
        other_finished_first = not call.done()
        await call
        return other_finished_first, call.done()

    assert asyncio.run(both()) == (True, True)


def test_at_most_size_calls_run_at_once(database: Database, calls: LoopCalls) -> None:
    """With a size of two, four calls waiting on the server use two connections between them."""

    async def four() -> list[int]:
        return await asyncio.gather(*(calls.run(_sleep, database, 0.05) for _ in range(4)))

    assert len(set(asyncio.run(four()))) == 2


def test_a_cancelled_caller_lets_the_statement_finish(database: Database, calls: LoopCalls) -> None:
    """Cancelling the caller mid-statement raises once the statement is done; its connection is kept."""

    async def cancel_then_read() -> tuple[int, bool, int]:
        before = await calls.run(_backend_pid, database)
        call = asyncio.ensure_future(calls.run(_sleep, database, 0.2))
        await asyncio.sleep(0.05)
        call.cancel()
        try:
            await call
            cancelled = False
        except asyncio.CancelledError:
            cancelled = True
        return before, cancelled, await calls.run(_backend_pid, database)

    before, cancelled, after = asyncio.run(cancel_then_read())

    assert cancelled and before == after


def test_a_statement_error_reaches_the_caller(database: Database, calls: LoopCalls) -> None:
    """A failing statement raises SQLAlchemy's error in the caller, and the next call still reads."""

    def divide() -> Any:
        with database.uow.admin(readonly=True) as uow:
            return uow.connection.execute(text("SELECT 1 / 0")).scalar_one()

    with pytest.raises(DBAPIError):
        _run(calls, divide)
    assert _run(calls, _backend_pid, database) > 0


def test_a_kept_connection_the_server_dropped_is_replaced(
    database: Database, calls: LoopCalls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a kept connection's backend is terminated, the next call pings it and opens another."""
    monkeypatch.setattr(loop_calls, "PING_AFTER_IDLE_SECONDS", 0.0)
    dropped = _run(calls, _backend_pid, database)
    _terminate(database, {dropped})

    assert _run(calls, _backend_pid, database) not in (dropped, 0)


def test_a_call_sees_the_callers_context_variables(calls: LoopCalls) -> None:
    """The call runs in its caller's context (request ids, tracing spans)."""

    async def call() -> str:
        REQUEST.set("request-7")
        return await calls.run(REQUEST.get)

    assert asyncio.run(call()) == "request-7"


def test_calls_one_after_another_run_in_one_kept_greenlet(calls: LoopCalls) -> None:
    """A call's greenlet is kept for the next call rather than started anew."""
    first = _run(calls, greenlet.getcurrent)

    assert _run(calls, greenlet.getcurrent) is first


def test_a_kept_greenlet_runs_the_next_call_in_the_next_callers_context(calls: LoopCalls) -> None:
    """What a call sets in its context does not leak into the next call on the same greenlet."""
    _run(calls, REQUEST.set, "set by the first call")

    assert _run(calls, REQUEST.get, "unset") == "unset"


def test_a_kept_greenlet_holds_no_result_of_its_last_call(calls: LoopCalls) -> None:
    """Once the caller has dropped a call's result, nothing keeps it alive."""

    class Result:
        pass

    result = weakref.ref(_run(calls, Result))
    gc.collect()

    assert result() is None


def test_a_kept_greenlet_holds_nothing_of_its_last_callers_context(calls: LoopCalls) -> None:
    """Once a call has ended, what its caller's context variables held can be collected."""

    class Held:
        pass

    async def call() -> weakref.ref[Held]:
        held = Held()
        REQUEST_HELD.set(held)
        await calls.run(lambda: None)
        return weakref.ref(held)

    held = asyncio.run(call())
    gc.collect()

    assert held() is None


class _Stop(BaseException):
    pass


def test_an_exception_beyond_exception_ends_the_greenlet_and_reaches_the_caller(calls: LoopCalls) -> None:
    """A call raising a BaseException such as GreenletExit ends its greenlet; the next call runs on another."""
    ran_in: list[greenlet.greenlet] = []

    def stop() -> None:
        ran_in.append(greenlet.getcurrent())
        raise _Stop

    with pytest.raises(_Stop):
        _run(calls, stop)
    assert ran_in[0].dead
    assert _run(calls, greenlet.getcurrent) is not ran_in[0]


def test_a_unit_of_work_that_writes_commits_from_a_call(
    database: Database, services: Services, account: int, calls: LoopCalls
) -> None:
    """A write in a call takes a connection of the usual pool and commits."""
    created = _run(calls, lambda: services.lists.create(account, "From the loop"))

    assert [item.name for item in services.lists.list(account)] == [created.name]


def test_a_cooperative_connection_outside_a_call_blocks_as_usual(database: Database, backend: str) -> None:
    """Used by plain synchronous code, the connection is a psycopg connection like any other."""
    if backend != "postgres":
        pytest.skip("a psycopg connection")
    url = database.engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    with CooperativeConnection.connect(url) as connection:
        assert connection.execute("SELECT 41 + 1").fetchone() == (42,)


def _writer_pid(database: Database, account: int) -> int:
    """The backend of a unit of work that writes (it adds a list, and commits)."""
    with database.uow.workspace(account) as uow:
        pid = int(uow.connection.execute(text("SELECT pg_backend_pid()")).scalar_one())
        uow.lists.add(f"List of {pid}", datetime.now(UTC))
        uow.commit()
    return pid


def _write(calls: LoopCalls, fn: Callable[[], Any]) -> Any:
    async def call() -> Any:
        return await calls.run_writing(fn)

    return asyncio.run(call())


def test_a_writing_call_commits_on_its_kept_writer(database: Database, account: int, calls: LoopCalls) -> None:
    """Two writing calls commit on the same kept connection, not a reader's nor the pool's."""
    first = _write(calls, lambda: _writer_pid(database, account))
    second = _write(calls, lambda: _writer_pid(database, account))

    with database.uow.workspace(account, readonly=True) as uow:
        names = sorted(item.name for item in uow.lists.list())
    assert first == second and names == [f"List of {first}", f"List of {first}"]
    assert first != _run(calls, _backend_pid, database)


def test_the_event_loop_runs_while_a_writing_call_waits(database: Database, account: int, calls: LoopCalls) -> None:
    """A write waiting on the server leaves the loop free for other tasks."""

    def slow_write() -> None:
        with database.uow.workspace(account) as uow:
            uow.connection.execute(text("SELECT pg_sleep(0.5)"))
            uow.commit()

    async def both() -> bool:
        call = asyncio.ensure_future(calls.run_writing(slow_write))
        await asyncio.sleep(0.01)
        other_finished_first = not call.done()
        await call
        return other_finished_first

    assert asyncio.run(both())


def test_a_failed_write_rolls_back_and_keeps_its_writer(database: Database, account: int, calls: LoopCalls) -> None:
    """A write that fails leaves nothing behind, and the next writing call commits on the same writer."""

    def failing() -> None:
        with database.uow.workspace(account) as uow:
            uow.lists.add("Half-written", datetime.now(UTC))
            uow.connection.execute(text("SELECT 1 / 0"))

    with pytest.raises(DBAPIError):
        _write(calls, failing)
    pid = _write(calls, lambda: _writer_pid(database, account))

    with database.uow.workspace(account, readonly=True) as uow:
        assert [item.name for item in uow.lists.list()] == [f"List of {pid}"]


def test_a_connection_left_inside_a_transaction_is_not_kept(database: Database, calls: LoopCalls) -> None:
    """A call that leaves its connection in a transaction gets it closed; the next call opens another."""

    def leave_open() -> int:
        with database.uow.admin(readonly=True) as uow:
            driver: Any = uow.connection.connection.driver_connection
        driver.execute("BEGIN")  # after the unit of work, behind its back
        return int(driver.execute("SELECT pg_backend_pid()").fetchone()[0])

    left = _run(calls, leave_open)

    assert _run(calls, _backend_pid, database) != left


def test_after_a_lost_connection_the_others_kept_are_not_used(database: Database, calls: LoopCalls) -> None:
    """Once a call finds its connection gone, the next call opens a fresh one rather than another dead one."""

    async def two_at_once() -> list[int]:
        return await asyncio.gather(*(calls.run(_sleep, database, 0.05) for _ in range(2)))

    kept = set(asyncio.run(two_at_once()))  # two kept connections
    _terminate(database, kept)

    with pytest.raises(DBAPIError):
        _run(calls, _backend_pid, database)  # the most recent one, dead within the ping's 5 s
    assert _run(calls, _backend_pid, database) not in kept


def test_only_waits_for_the_server_go_through_the_loop(
    database: Database, services: Services, account: int, calls: LoopCalls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A contact's create, COMMIT pipelined, sends without waiting on the loop: the loop waits only for answers."""
    waits: list[int] = []
    readiness = loop_calls._readiness

    async def counted(fileno: int, state: int) -> int:
        waits.append(state)
        return await readiness(fileno, state)

    monkeypatch.setattr(loop_calls, "_readiness", counted)
    plan = services.entitlements.plan_of(account)

    created = _write(
        calls, lambda: services.contacts.create(account, ContactInput(name="Ada", type="instagram"), plan=plan)
    )

    assert created.name == "Ada"
    assert waits and set(waits) == {Wait.R}
