"""Units of work: one transaction each, committed with their events or rolled back without them, on
every adapter."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import NOW

from engage_core.kernel.events import DomainEvent
from engage_core.unit_of_work import UnitOfWorkFactory


def _event(name: str = "contact.created", contact_name: str = "Ada") -> DomainEvent:
    return DomainEvent(name, {"id": 1, "name": contact_name, "tags": ["VIP"]}, NOW)


def test_committed_change_is_kept(uow: UnitOfWorkFactory, account: int) -> None:
    """What a unit of work commits, the next one reads."""
    with uow.workspace(account) as unit:
        created = unit.lists.add("Newsletter", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.lists.get(created.id) == created


def test_leaving_without_commit_rolls_back(uow: UnitOfWorkFactory, account: int) -> None:
    """A unit of work left without commit() leaves no trace."""
    with uow.workspace(account) as unit:
        unit.lists.add("Newsletter", NOW)

    with uow.workspace(account, readonly=True) as unit:
        assert unit.lists.list() == []


def test_an_exception_rolls_back(uow: UnitOfWorkFactory, account: int) -> None:
    """An exception inside the block undoes the change."""

    def fail_midway() -> None:
        with uow.workspace(account) as unit:
            unit.lists.add("Newsletter", NOW)
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        fail_midway()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.lists.list() == []


def test_work_after_a_commit_needs_its_own_commit(uow: UnitOfWorkFactory, account: int) -> None:
    """After commit() the unit of work goes on in a new transaction, rolled back unless committed."""
    with uow.workspace(account) as unit:
        unit.lists.add("Kept", NOW)
        unit.commit()
        unit.lists.add("Dropped", NOW)

    with uow.workspace(account, readonly=True) as unit:
        assert [item.name for item in unit.lists.list()] == ["Kept"]


def test_commit_writes_emitted_events_to_the_outbox(
    uow: UnitOfWorkFactory, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Emitted events reach the outbox with the commit, in the order they were emitted."""
    events = [_event("contact.created", "Ada"), _event("contact.updated", "Ada L.")]
    with uow.workspace(account) as unit:
        for event in events:
            unit.emit(event)
        unit.commit()

    assert outbox_events(account) == events


def test_rollback_writes_no_events(
    uow: UnitOfWorkFactory, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Events of a change that is rolled back are never written."""
    with uow.workspace(account) as unit:
        unit.lists.add("Newsletter", NOW)
        unit.emit(_event())

    assert outbox_events(account) == []


def test_events_are_not_carried_into_the_next_transaction(
    uow: UnitOfWorkFactory, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Events emitted after a commit belong to the next transaction, and go if it is rolled back."""
    with uow.workspace(account) as unit:
        unit.emit(_event("contact.created"))
        unit.commit()
        unit.emit(_event("contact.updated"))

    assert [e.name for e in outbox_events(account)] == ["contact.created"]


def test_outbox_events_are_kept_per_account(
    uow: UnitOfWorkFactory, make_account: Callable[..., int], outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """`outbox_events(account_id)` shows one account's events; without it, everyone's, oldest first."""
    first, second = make_account("First"), make_account("Second")
    for account, name in ((first, "contact.created"), (second, "contact.deleted")):
        with uow.workspace(account) as unit:
            unit.emit(_event(name))
            unit.commit()

    assert [e.name for e in outbox_events(second)] == ["contact.deleted"]
    assert [e.name for e in outbox_events()] == ["contact.created", "contact.deleted"]


def test_work_after_a_commit_is_unseen_until_committed(uow: UnitOfWorkFactory, account: int) -> None:
    """What a unit of work does after its commit is invisible to another unit of work until committed too."""
    with uow.workspace(account) as unit:
        unit.lists.add("Kept", NOW)
        unit.commit()
        unit.lists.add("Pending", NOW)
        with uow.workspace(account, readonly=True) as reader:
            seen = [item.name for item in reader.lists.list()]
        unit.commit()

    assert seen == ["Kept"]


def test_a_second_commit_keeps_the_work_after_the_first(uow: UnitOfWorkFactory, account: int) -> None:
    """Work done between two commits of one unit of work is kept by the second, with its events."""
    with uow.workspace(account) as unit:
        unit.lists.add("First", NOW)
        unit.commit()
        unit.lists.add("Second", NOW)
        unit.emit(_event("contact.updated"))
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert [item.name for item in unit.lists.list()] == ["First", "Second"]


def test_the_events_of_each_commit_reach_the_outbox(
    uow: UnitOfWorkFactory,
    account: int,
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Two commits of one unit of work each write the events emitted before them, in order."""
    with uow.workspace(account) as unit:
        unit.emit(_event("contact.created"))
        unit.commit()
        unit.emit(_event("contact.updated"))
        unit.commit()

    assert [e.name for e in outbox_events(account)] == ["contact.created", "contact.updated"]
