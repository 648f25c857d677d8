"""Units of work: one transaction each, committed with their events or rolled back without them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from engage_core.kernel.events import DomainEvent
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.webhooks.tables import events

from .conftest import START


def _event(name: str = "contact.created", contact_name: str = "Ada") -> DomainEvent:
    return DomainEvent(name, {"id": 1, "name": contact_name, "tags": ["VIP"]}, START)


def test_committed_change_is_kept(database: Database, account: int) -> None:
    """What a unit of work commits, the next one reads."""
    with database.uow.workspace(account) as uow:
        created = uow.lists.add("Newsletter", START)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.lists.get(created.id) == created


def test_leaving_without_commit_rolls_back(database: Database, account: int) -> None:
    """A unit of work left without commit() leaves no trace."""
    with database.uow.workspace(account) as uow:
        uow.lists.add("Newsletter", START)

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.lists.list() == []


def test_an_exception_rolls_back(database: Database, account: int) -> None:
    """An exception inside the block undoes the change."""

    def fail_midway() -> None:
        with database.uow.workspace(account) as uow:
            uow.lists.add("Newsletter", START)
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail_midway()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.lists.list() == []


def test_work_after_a_commit_needs_its_own_commit(database: Database, account: int) -> None:
    """After commit() the unit of work goes on in a new transaction, rolled back unless committed."""
    with database.uow.workspace(account) as uow:
        uow.lists.add("Kept", START)
        uow.commit()
        uow.lists.add("Dropped", START)

    with database.uow.workspace(account, readonly=True) as uow:
        assert [item.name for item in uow.lists.list()] == ["Kept"]


def test_commit_writes_emitted_events_to_the_outbox(database: Database, account: int) -> None:
    """Emitted events reach the outbox with the commit, in the order they were emitted."""
    events = [_event("contact.created", "Ada"), _event("contact.updated", "Ada L.")]
    with database.uow.workspace(account) as uow:
        for event in events:
            uow.emit(event)
        uow.commit()

    assert database.outbox_events(account) == events


def test_rollback_writes_no_events(database: Database, account: int) -> None:
    """Events of a change that is rolled back are never written."""
    with database.uow.workspace(account) as uow:
        uow.lists.add("Newsletter", START)
        uow.emit(_event())

    assert database.outbox_events(account) == []


def test_events_are_not_carried_into_the_next_transaction(database: Database, account: int) -> None:
    """Events emitted after a commit belong to the next transaction, and go if it is rolled back."""
    with database.uow.workspace(account) as uow:
        uow.emit(_event("contact.created"))
        uow.commit()
        uow.emit(_event("contact.updated"))

    assert [e.name for e in database.outbox_events(account)] == ["contact.created"]


def test_outbox_events_are_kept_per_account(database: Database, make_account: Callable[..., int]) -> None:
    """`outbox_events(account_id)` shows one account's events; without it, everyone's, oldest first."""
    first, second = make_account("First"), make_account("Second")
    for account, name in ((first, "contact.created"), (second, "contact.deleted")):
        with database.uow.workspace(account) as uow:
            uow.emit(_event(name))
            uow.commit()

    assert [e.name for e in database.outbox_events(second)] == ["contact.deleted"]
    assert [e.name for e in database.outbox_events()] == ["contact.created", "contact.deleted"]


def test_outbox_rows_record_when_they_were_written(make_database: Callable[..., Database]) -> None:
    """Each outbox row records the adapter's clock at commit as well as the event's own time."""
    adapter_clock = FakeClock(datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC))
    database = make_database(clock=adapter_clock)
    with database.uow.admin() as admin:
        account = admin.accounts.add("Acme", "0" * 64, "eng_abcd…", START).id
        admin.commit()
    with database.uow.workspace(account) as uow:
        uow.emit(_event())
        uow.commit()

    with database.engine.connect() as connection:
        row = connection.execute(select(events.c.occurred_at, events.c.created_at)).one()
    assert tuple(row) == (START, adapter_clock.now())


def test_units_of_work_run_in_parallel_threads(database: Database, account: int) -> None:
    """The factory is shared by threads; each unit of work has its own connection."""
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(5):
                with database.uow.workspace(account) as uow:
                    uow.lists.add(f"List {n}.{i}", START)
                    uow.commit()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (errors, len(uow.lists.list())) == ([], 40)
