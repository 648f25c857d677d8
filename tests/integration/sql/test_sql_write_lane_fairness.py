"""The write lane's fairness: keys take turns, a batch closes when its time budget is spent, and jobs
that would hold the lane too long are refused (`WriteLane.admits`). Synthetic jobs on a clock that
moves only when they say so, so nothing depends on the machine's speed."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from engage_sql import Database
from engage_sql.group_commit import WriteGroups
from engage_sql.write_lane import MAX_JOB_BYTES, WriteLane

from .conftest import START


class Ticks:
    """A monotonic clock (seconds) that moves only when a job advances it."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def groups(sqlite: None, database: Database) -> WriteGroups:
    found = database.uow.write_groups
    assert found is not None
    return found


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()


@pytest.fixture
def lane(groups: WriteGroups, ticks: Ticks) -> Iterator[WriteLane]:
    lane = WriteLane(groups, batch_budget=0.05, job_budget=0.1, cooldown=10.0, clock=ticks, job_clock=ticks)
    yield lane
    lane.close()


class Log:
    """What each synthetic job saw: its name and how many COMMITs had run before it (its batch).
    Each job writes a row, so that its batch has something to commit."""

    def __init__(self, commits: list[int], database: Database, account: int) -> None:
        self.commits = commits
        self.database = database
        self.account = account
        self.runs: list[tuple[str, int]] = []

    def job(
        self, name: str, ticks: Ticks, seconds: float = 0.0, gate: threading.Event | None = None
    ) -> Callable[[], str]:
        def run() -> str:
            if gate is not None:
                gate.wait(10)
            with self.database.uow.workspace(self.account) as uow:
                uow.lists.add(name, START)
                uow.commit()
            ticks.advance(seconds)
            self.runs.append((name, len(self.commits)))
            return name

        return run


def _run_behind_a_gate(lane: WriteLane, jobs: list[tuple[str, Callable[[], Any]]], gate: threading.Event) -> list[Any]:
    """Queue every (key, job) while the lane is held by the first one (which waits for `gate`), then let it go."""

    async def main() -> list[Any]:
        tasks = [asyncio.create_task(lane.run(job, key=key)) for key, job in jobs]
        await asyncio.sleep(0)  # each task has now queued its job
        gate.set()
        return await asyncio.gather(*tasks)

    return asyncio.run(main())


def test_keys_take_turns(lane: WriteLane, ticks: Ticks, commits: list[int], database: Database, account: int) -> None:
    """A backlog of one key does not run ahead of another key's job queued after it."""
    log, gate = Log(commits, database, account), threading.Event()
    jobs = [("z", log.job("hold", ticks, gate=gate))]
    jobs += [("a", log.job(f"a{n}", ticks)) for n in range(4)] + [("b", log.job("b0", ticks))]

    _run_behind_a_gate(lane, jobs, gate)

    assert [name for name, _ in log.runs] == ["hold", "a0", "b0", "a1", "a2", "a3"]


def test_a_batch_closes_when_its_time_budget_is_spent(
    lane: WriteLane, ticks: Ticks, commits: list[int], database: Database, account: int
) -> None:
    """Jobs of 20 ms against a budget of 50 ms: a batch takes no job its key's last one says would overrun
    the budget, so holds two (of nine)."""
    log, gate = Log(commits, database, account), threading.Event()
    jobs = [("z", log.job("hold", ticks, gate=gate))] + [("a", log.job(f"a{n}", ticks, 0.02)) for n in range(9)]

    results = _run_behind_a_gate(lane, jobs, gate)

    per_batch = Counter(batch for name, batch in log.runs if name != "hold")
    assert len(results) == 10
    assert sorted(per_batch.values()) == [1, 2, 2, 2, 2]


def test_a_batch_takes_no_job_its_keys_last_one_says_would_overrun(
    lane: WriteLane, ticks: Ticks, commits: list[int], database: Database, account: int
) -> None:
    """After a job of 40 ms, the next of its key waits for the next batch rather than take a 50 ms batch to 80."""
    log, gate = Log(commits, database, account), threading.Event()
    jobs = [("z", log.job("hold", ticks, gate=gate)), ("a", log.job("a0", ticks, 0.04)), ("b", log.job("b0", ticks))]
    jobs.append(("a", log.job("a1", ticks, 0.04)))

    _run_behind_a_gate(lane, jobs, gate)

    batch_of = dict(log.runs)
    assert [name for name, _ in log.runs] == ["hold", "a0", "b0", "a1"]
    assert batch_of["a0"] == batch_of["b0"] < batch_of["a1"]


def test_a_job_queued_behind_a_busy_key_is_answered_with_the_first_batch(
    lane: WriteLane, ticks: Ticks, commits: list[int], database: Database, account: int
) -> None:
    """Another key's job waits for one budget at most, not for the busy key's whole backlog."""
    log, gate = Log(commits, database, account), threading.Event()
    jobs = [("a", log.job("hold", ticks, gate=gate))] + [("a", log.job(f"a{n}", ticks, 0.02)) for n in range(20)]
    jobs.append(("b", log.job("b0", ticks)))

    _run_behind_a_gate(lane, jobs, gate)

    batch_of = dict(log.runs)
    assert batch_of["b0"] == batch_of["hold"] < batch_of["a19"]


def test_a_job_over_its_budget_sends_its_keys_next_jobs_off_the_lane(lane: WriteLane, ticks: Ticks) -> None:
    """After a job of 200 ms (budget 100 ms), its key is refused for the cooldown; other keys are not."""

    async def main() -> None:
        await lane.run(lambda: ticks.advance(0.2), key="slow")

    asyncio.run(main())

    refused = (lane.admits("slow", 10), lane.admits("other", 10))
    ticks.advance(10.0)
    assert (refused, lane.admits("slow", 10)) == ((False, True), True)


def test_a_job_within_its_budget_keeps_its_key_on_the_lane(lane: WriteLane, ticks: Ticks) -> None:
    """A job of 50 ms (budget 100 ms) changes nothing."""

    async def main() -> None:
        await lane.run(lambda: ticks.advance(0.05), key="quick")

    asyncio.run(main())

    assert lane.admits("quick", 10)


def test_a_body_above_the_size_bound_is_refused(lane: WriteLane) -> None:
    """A job whose body exceeds `MAX_JOB_BYTES` runs off the lane; one of exactly that size runs on it."""
    assert (lane.admits("a", MAX_JOB_BYTES), lane.admits("a", MAX_JOB_BYTES + 1)) == (True, False)
