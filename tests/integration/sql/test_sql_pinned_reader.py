"""A thread's pinned reader (`SqlUnitOfWorkFactory.pin_reader`): its read-only units of work keep one connection."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event

from engage_sql import Database

from .conftest import START


@pytest.fixture
def checkouts(database: Database) -> Iterator[list[int]]:
    """One entry per connection checked out of the pool from here on."""
    seen: list[int] = []

    def record(*_args: Any) -> None:
        seen.append(1)

    event.listen(database.engine, "checkout", record)
    yield seen
    event.remove(database.engine, "checkout", record)


@pytest.fixture
def pinned(database: Database) -> Iterator[None]:
    database.uow.pin_reader()
    yield
    database.uow.unpin_reader()


def _names(database: Database, account: int) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return sorted(item.name for item in uow.lists.list())


def _add(database: Database, account: int, name: str) -> None:
    with database.uow.workspace(account) as uow:
        uow.lists.add(name, START)
        uow.commit()


def test_reads_on_a_pinned_thread_check_out_nothing(
    database: Database, account: int, pinned: None, checkouts: list[int]
) -> None:
    """Read-only units of work on the pinned thread reuse its connection: no pool checkout."""
    for _ in range(5):
        _names(database, account)

    assert checkouts == []


def test_a_pinned_reader_sees_each_new_commit(database: Database, account: int, pinned: None) -> None:
    """Each read-only unit of work is a transaction of its own: a commit made meanwhile is seen."""
    before = _names(database, account)
    writer = threading.Thread(target=_add, args=(database, account, "Meanwhile"))
    writer.start()
    writer.join(timeout=10)

    assert (before, _names(database, account)) == ([], ["Meanwhile"])


def test_a_read_inside_a_read_takes_a_connection_of_its_own(
    database: Database, account: int, pinned: None, checkouts: list[int]
) -> None:
    """While the pinned connection is in use, a nested read-only unit of work checks one out."""
    _add(database, account, "Only")
    checkouts.clear()

    with database.uow.workspace(account, readonly=True) as outer:
        inner = _names(database, account)
        assert [item.name for item in outer.lists.list()] == inner == ["Only"]
    assert len(checkouts) == 1


def test_writes_on_a_pinned_thread_are_unchanged(database: Database, account: int, pinned: None) -> None:
    """Write units of work never use the pinned reader: they write and commit as anywhere."""
    _add(database, account, "Written")

    assert _names(database, account) == ["Written"]


def test_other_threads_are_not_pinned(database: Database, account: int, pinned: None, checkouts: list[int]) -> None:
    """Pinning is per thread: another thread's read checks out a connection as usual."""
    reader = threading.Thread(target=_names, args=(database, account))
    reader.start()
    reader.join(timeout=10)

    assert len(checkouts) == 1


def test_unpinning_gives_the_connection_back(database: Database, account: int, checkouts: list[int]) -> None:
    """After `unpin_reader`, reads on the thread check out from the pool again."""
    database.uow.pin_reader()
    database.uow.unpin_reader()
    checkouts.clear()

    _names(database, account)

    assert len(checkouts) == 1
