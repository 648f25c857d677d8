"""Group commit (SQLite): concurrent write units of work share one COMMIT, and lose no guarantee."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from engage_sql import Database
from engage_sql.group_commit import GroupCommitFailed, WriteGroups
from engage_sql.unit_of_work import SqlWorkspaceUnitOfWork

from .conftest import START


def _groups(database: Database) -> WriteGroups:
    groups = database.uow._groups
    assert groups is not None
    return groups


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def _names(database: Database, account: int) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return sorted(item.name for item in uow.lists.list())


def _queue_writers(
    database: Database, account: int, work: Callable[[SqlWorkspaceUnitOfWork, int], None], count: int
) -> tuple[list[threading.Thread], list[BaseException]]:
    """Start `count` threads that each run `work` in a write unit of work; wait until all of them
    are queued for their turn behind the caller's open unit of work."""
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            with database.uow.workspace(account) as uow:
                work(uow, n)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    _wait_for(lambda: _groups(database)._waiting == count)
    return threads, errors


def test_queued_writers_share_one_commit(sqlite: None, database: Database, account: int, commits: list[int]) -> None:
    """Writers that queue while one is working commit together: one COMMIT, and each one's commit()
    returns only once its change is visible to other connections."""
    visible: list[list[str]] = []

    def work(uow: SqlWorkspaceUnitOfWork, n: int) -> None:
        uow.lists.add(f"Queued {n}", START)
        uow.commit()
        visible.append(_names(database, account))

    with database.uow.workspace(account) as first:
        first.lists.add("First", START)
        threads, errors = _queue_writers(database, account, work, 3)
        first.commit()
        assert "First" in _names(database, account)
    for thread in threads:
        thread.join(timeout=30)

    assert (errors, len(commits)) == ([], 1)
    assert _names(database, account) == ["First", "Queued 0", "Queued 1", "Queued 2"]
    assert all(len(names) == 4 for names in visible)


def test_a_writer_left_without_commit_is_rolled_back_alone(
    sqlite: None, database: Database, account: int, commits: list[int]
) -> None:
    """In a group, a unit of work that fails or leaves without commit() undoes its own change only."""

    def work(uow: SqlWorkspaceUnitOfWork, n: int) -> None:
        uow.lists.add(f"Queued {n}", START)
        if n == 1:
            raise ValueError("boom")
        if n == 2:
            return
        uow.commit()

    with database.uow.workspace(account) as first:
        first.lists.add("First", START)
        threads, errors = _queue_writers(database, account, work, 4)
        first.commit()
    for thread in threads:
        thread.join(timeout=30)

    assert [type(e) for e in errors] == [ValueError]
    assert _names(database, account) == ["First", "Queued 0", "Queued 3"]
    assert len(commits) == 1


def test_a_failed_group_commit_fails_every_member(sqlite: None, database: Database, account: int) -> None:
    """When the group's COMMIT fails, every unit of work that committed in it raises, and nothing is kept."""

    def refuse(_connection: Any) -> None:
        raise RuntimeError("disk on fire")

    def work(uow: SqlWorkspaceUnitOfWork, n: int) -> None:
        uow.lists.add(f"Queued {n}", START)
        uow.commit()

    queued: list[tuple[list[threading.Thread], list[BaseException]]] = []

    def first_writer() -> None:
        with database.uow.workspace(account) as first:
            first.lists.add("First", START)
            queued.append(_queue_writers(database, account, work, 2))
            first.commit()

    event.listen(database.engine, "commit", refuse)
    try:
        with pytest.raises(GroupCommitFailed):
            first_writer()
        threads, errors = queued[0]
        for thread in threads:
            thread.join(timeout=30)
    finally:
        event.remove(database.engine, "commit", refuse)

    assert [type(e) for e in errors] == [GroupCommitFailed, GroupCommitFailed]
    assert _names(database, account) == []


def test_work_after_a_group_commit_joins_a_later_group(sqlite: None, database: Database, account: int) -> None:
    """After commit() the unit of work can go on: its next transaction begins when it is next used."""
    with database.uow.workspace(account) as uow:
        uow.lists.add("First", START)
        uow.commit()
        uow.lists.add("Second", START)
        uow.commit()
        uow.lists.add("Dropped", START)

    assert _names(database, account) == ["First", "Second"]


def test_a_nested_writer_fails_instead_of_waiting_for_itself(sqlite: None, database: Database, account: int) -> None:
    """A thread cannot open a second write unit of work inside its first: it would wait for itself."""
    with database.uow.workspace(account), pytest.raises(RuntimeError, match="already has a write unit"):
        database.uow.workspace(account).__enter__()

    with database.uow.workspace(account) as uow:  # and the turn was given back
        uow.lists.add("After", START)
        uow.commit()
    assert _names(database, account) == ["After"]


def test_a_writer_waits_at_most_the_lock_timeout(sqlite: None, database: Database, account: int) -> None:
    """A writer kept waiting fails as a `BEGIN IMMEDIATE` past SQLite's busy timeout would."""
    groups = WriteGroups(database.engine, lock_timeout=0.1)
    member = groups.enter()
    failures: list[BaseException] = []

    def second() -> None:
        try:
            groups.enter()
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=second)
    thread.start()
    thread.join(timeout=10)
    groups.leave(member, commit=False)

    assert len(failures) == 1
    assert isinstance(failures[0], OperationalError)
    assert "database is locked" in str(failures[0])


def test_many_concurrent_writers_lose_nothing(sqlite: None, database: Database, account: int) -> None:
    """Under free-running concurrency every committed change is kept and every other one is not."""
    errors: list[BaseException] = []

    def run(n: int) -> None:
        try:
            for i in range(10):
                with database.uow.workspace(account) as uow:
                    uow.lists.add(f"List {n}.{i}", START)
                    if i % 3 == 0:
                        continue  # left without commit
                    uow.commit()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert _names(database, account) == sorted(f"List {n}.{i}" for n in range(8) for i in range(10) if i % 3)
