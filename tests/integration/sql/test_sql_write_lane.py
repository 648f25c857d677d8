"""The write lane (SQLite): batches of writes on one thread, answered once their COMMIT is durable."""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event

from engage_sql import Database
from engage_sql.group_commit import GroupCommitFailed, WriteGroups
from engage_sql.write_lane import WriteLane

from .conftest import START


@pytest.fixture
def groups(sqlite: None, database: Database) -> WriteGroups:
    found = database.uow.write_groups
    assert found is not None
    return found


@pytest.fixture
def lane(groups: WriteGroups) -> Iterator[WriteLane]:
    lane = WriteLane(groups)
    yield lane
    lane.close()


def _names(database: Database, account: int) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return sorted(item.name for item in uow.lists.list())


def _add_list(database: Database, account: int, name: str) -> Callable[[], str]:
    def add() -> str:
        with database.uow.workspace(account) as uow:
            uow.lists.add(name, START)
            uow.commit()
        return name

    return add


def _run_all(lane: WriteLane, jobs: list[Callable[[], Any]]) -> list[Any]:
    """Queue every job at once from one event loop; their outcomes, results or exceptions, in order."""

    async def main() -> list[Any]:
        return await asyncio.gather(*(lane.run(job) for job in jobs), return_exceptions=True)

    return asyncio.run(main())


# -- batches (WriteGroups.batch) -------------------------------------------------------------------


def test_a_batch_commits_its_units_of_work_once(
    groups: WriteGroups, database: Database, account: int, commits: list[int]
) -> None:
    """Units of work in one batch share one COMMIT, at the end of the batch."""
    with groups.batch():
        for n in range(3):
            _add_list(database, account, f"List {n}")()

    assert (len(commits), _names(database, account)) == (1, ["List 0", "List 1", "List 2"])


def test_a_commit_in_a_batch_is_invisible_until_the_batch_ends(
    groups: WriteGroups, database: Database, account: int
) -> None:
    """Inside a batch, commit() returns before the COMMIT: other connections see nothing yet."""
    seen_outside: list[list[str]] = []
    with groups.batch():
        _add_list(database, account, "Pending")()
        reader = threading.Thread(target=lambda: seen_outside.append(_names(database, account)))
        reader.start()
        reader.join(timeout=10)

    assert (seen_outside, _names(database, account)) == ([[]], ["Pending"])


def test_a_read_in_a_batch_sees_what_the_batch_wrote(groups: WriteGroups, database: Database, account: int) -> None:
    """A read-only unit of work on the batch's thread reads inside the batch's transaction."""
    with groups.batch():
        _add_list(database, account, "Mine")()
        seen = _names(database, account)

    assert seen == ["Mine"]


def test_reads_and_writes_may_nest_in_a_batch(groups: WriteGroups, database: Database, account: int) -> None:
    """In a batch, a read-only unit of work may open inside a writing one, and a writing one inside it."""
    with groups.batch():
        with database.uow.workspace(account) as writer:
            writer.lists.add("Outer", START)
            inner_read = _names(database, account)
            writer.commit()
        with database.uow.workspace(account, readonly=True):
            _add_list(database, account, "Inner")()

    assert (inner_read, _names(database, account)) == (["Outer"], ["Inner", "Outer"])


def test_a_failing_unit_of_work_in_a_batch_is_undone_alone(
    groups: WriteGroups, database: Database, account: int
) -> None:
    """A unit of work that raises in a batch rolls back to its savepoint; the others are kept."""

    def failing() -> None:
        with database.uow.workspace(account) as uow:
            uow.lists.add("Undone", START)
            raise ValueError("boom")

    with groups.batch():
        _add_list(database, account, "Kept")()
        with pytest.raises(ValueError, match="boom"):
            failing()
        _add_list(database, account, "Also kept")()

    assert _names(database, account) == ["Also kept", "Kept"]


def test_a_batch_whose_commit_fails_raises_and_keeps_nothing(
    groups: WriteGroups, database: Database, account: int
) -> None:
    """When the batch's COMMIT fails, leaving the batch raises GroupCommitFailed and nothing was kept."""

    def refuse(_connection: Any) -> None:
        raise RuntimeError("disk on fire")

    event.listen(database.engine, "commit", refuse)
    try:
        with pytest.raises(GroupCommitFailed), groups.batch():
            _add_list(database, account, "Lost")()
    finally:
        event.remove(database.engine, "commit", refuse)

    assert _names(database, account) == []


def test_a_batch_cannot_start_inside_a_unit_of_work(groups: WriteGroups, database: Database, account: int) -> None:
    """A thread that holds the writers' turn cannot take it again for a batch."""
    with database.uow.workspace(account), pytest.raises(RuntimeError, match="already holds"):
        groups.batch().__enter__()


# -- the lane --------------------------------------------------------------------------------------


def test_the_lane_answers_once_the_write_is_visible_to_others(
    lane: WriteLane, database: Database, account: int
) -> None:
    """When a job's answer arrives, its change is committed: another connection reads it."""

    async def main() -> list[str]:
        await lane.run(_add_list(database, account, "Durable"))
        return await asyncio.to_thread(_names, database, account)

    assert asyncio.run(main()) == ["Durable"]


def test_the_lane_shares_commits_among_queued_jobs(
    lane: WriteLane, database: Database, account: int, commits: list[int]
) -> None:
    """Jobs queued together commit in batches: fewer COMMITs than jobs, every change kept."""
    names = [f"List {n:02}" for n in range(40)]

    results = _run_all(lane, [_add_list(database, account, name) for name in names])

    assert results == names
    assert _names(database, account) == names
    assert len(commits) < len(names)


def test_a_failing_job_fails_alone(lane: WriteLane, database: Database, account: int) -> None:
    """A job's exception reaches its own caller; the jobs batched with it are kept."""

    def failing() -> None:
        with database.uow.workspace(account) as uow:
            uow.lists.add("Undone", START)
            raise ValueError("boom")

    results = _run_all(lane, [_add_list(database, account, "Before"), failing, _add_list(database, account, "After")])

    assert results[0] == "Before" and results[2] == "After"
    assert isinstance(results[1], ValueError)
    assert _names(database, account) == ["After", "Before"]


def test_every_job_of_a_batch_whose_commit_fails_fails(lane: WriteLane, database: Database, account: int) -> None:
    """If a batch's COMMIT fails, each of its jobs raises GroupCommitFailed and nothing is kept."""

    def refuse(_connection: Any) -> None:
        raise RuntimeError("disk on fire")

    event.listen(database.engine, "commit", refuse)
    try:
        results = _run_all(lane, [_add_list(database, account, f"Lost {n}") for n in range(5)])
    finally:
        event.remove(database.engine, "commit", refuse)

    assert [type(result) for result in results] == [GroupCommitFailed] * 5
    assert _names(database, account) == []


def test_a_job_runs_in_its_callers_context(lane: WriteLane) -> None:
    """Context variables set by the caller are seen by its job on the lane's thread."""
    variable: contextvars.ContextVar[str] = contextvars.ContextVar("variable", default="unset")

    async def main() -> str:
        variable.set("the caller's")
        return await lane.run(variable.get)

    assert asyncio.run(main()) == "the caller's"


def test_a_closed_lane_runs_again_when_a_job_comes(lane: WriteLane, database: Database, account: int) -> None:
    """After close() (an app's lifespan ending), the next job starts the lane again."""
    lane.close()

    assert _run_all(lane, [_add_list(database, account, "Again")]) == ["Again"]


def test_close_runs_the_jobs_already_queued(lane: WriteLane, database: Database, account: int) -> None:
    """Closing the lane waits for the jobs queued before it: none is dropped."""

    async def main() -> list[str]:
        jobs = [asyncio.ensure_future(lane.run(_add_list(database, account, f"Queued {n}"))) for n in range(10)]
        await asyncio.sleep(0)  # every job is queued
        await asyncio.to_thread(lane.close)
        return await asyncio.gather(*jobs)

    assert len(asyncio.run(main())) == 10
    assert len(_names(database, account)) == 10


def test_other_writers_take_turns_between_batches(lane: WriteLane, database: Database, account: int) -> None:
    """A writer outside the lane (another thread) gets its turn while the lane is busy."""
    outside: list[BaseException] = []

    def write_outside() -> None:
        try:
            for n in range(20):
                _add_list(database, account, f"Outside {n:02}")()
        except BaseException as exc:
            outside.append(exc)

    thread = threading.Thread(target=write_outside)
    thread.start()
    results = _run_all(lane, [_add_list(database, account, f"Lane {n:02}") for n in range(40)])
    thread.join(timeout=30)

    assert outside == [] and all(isinstance(result, str) for result in results)
    assert len(_names(database, account)) == 60


JOB_KINDS = st.lists(st.sampled_from(["add", "fail", "read"]), min_size=1, max_size=40)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=JOB_KINDS, max_batch=st.integers(min_value=1, max_value=8))
def test_jobs_behave_as_if_run_one_by_one(
    groups: WriteGroups, database: Database, make_account: Callable[..., int], kinds: list[str], max_batch: int
) -> None:
    """Whatever the batches, every job's outcome and the stored result are those of running the
    jobs one at a time in the order queued: a failing job undoes only itself, a read sees exactly
    the adds queued before it."""
    account = make_account()
    lane = WriteLane(groups, max_batch=max_batch)
    kept: list[str] = []
    expected: list[Any] = []
    jobs: list[Callable[[], Any]] = []
    for n, kind in enumerate(kinds):
        name = f"List {n:02}"
        if kind == "add":
            jobs.append(_add_list(database, account, name))
            kept.append(name)
            expected.append(name)
        elif kind == "fail":
            jobs.append(_failing_add(database, account, name))
            expected.append(ValueError)
        else:
            jobs.append(lambda: _names(database, account))
            expected.append(sorted(kept))
    try:
        results = _run_all(lane, jobs)
    finally:
        lane.close()

    assert [type(r) if isinstance(r, Exception) else r for r in results] == expected
    assert _names(database, account) == sorted(kept)


def _failing_add(database: Database, account: int, name: str) -> Callable[[], None]:
    def add_then_fail() -> None:
        with database.uow.workspace(account) as uow:
            uow.lists.add(name, START)
            raise ValueError("boom")

    return add_then_fail
