"""The shipped fakes: transactions over InMemoryStore behave like the SQL unit of work."""

from __future__ import annotations

import pytest

from engage_core.contacts.model import ContactDraft
from engage_core.kernel.events import DomainEvent
from engage_core.testing import InMemoryUnitOfWorkFactory

from .factories import START


def add_contact(uow: InMemoryUnitOfWorkFactory, account_id: int, *, commit: bool) -> int:
    with uow.workspace(account_id) as tx:
        contact = tx.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        tx.emit(DomainEvent("contact.created", {"id": contact.id}, START))
        if commit:
            tx.commit()
    return contact.id


def test_committed_changes_are_visible_afterwards(uow: InMemoryUnitOfWorkFactory) -> None:
    """A committed change is seen by the next unit of work."""
    contact_id = add_contact(uow, 1, commit=True)
    with uow.workspace(1, readonly=True) as tx:
        assert tx.contacts.get(contact_id) is not None


def test_leaving_without_commit_discards_changes(uow: InMemoryUnitOfWorkFactory) -> None:
    """Leaving the block without commit() rolls the change back."""
    contact_id = add_contact(uow, 1, commit=False)
    with uow.workspace(1, readonly=True) as tx:
        assert tx.contacts.get(contact_id) is None


def test_leaving_without_commit_discards_events(uow: InMemoryUnitOfWorkFactory) -> None:
    """Events emitted in a rolled-back unit of work never reach the outbox."""
    add_contact(uow, 1, commit=False)
    assert uow.store.events() == []


def fail_midway(uow: InMemoryUnitOfWorkFactory) -> None:
    with uow.workspace(1) as tx:
        tx.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        tx.emit(DomainEvent("contact.created", {}, START))
        raise RuntimeError("boom")


def test_an_exception_rolls_back(uow: InMemoryUnitOfWorkFactory) -> None:
    """An exception inside the block discards the change and its events."""
    with pytest.raises(RuntimeError, match="boom"):
        fail_midway(uow)
    with uow.workspace(1, readonly=True) as tx:
        assert (tx.contacts.count(), uow.store.events()) == (0, [])


def test_commit_writes_events_to_the_outbox(uow: InMemoryUnitOfWorkFactory) -> None:
    """Committed events are in the outbox, oldest first."""
    first = add_contact(uow, 1, commit=True)
    second = add_contact(uow, 1, commit=True)
    assert [e.payload["id"] for e in uow.store.events()] == [first, second]


def test_events_can_be_read_per_account(uow: InMemoryUnitOfWorkFactory) -> None:
    """`events(account_id)` returns only that account's events."""
    add_contact(uow, 1, commit=True)
    theirs = add_contact(uow, 2, commit=True)
    assert [e.payload["id"] for e in uow.store.events(2)] == [theirs]


def test_workspace_repositories_are_scoped_to_the_account(uow: InMemoryUnitOfWorkFactory) -> None:
    """A workspace unit of work cannot read another account's rows."""
    contact_id = add_contact(uow, 1, commit=True)
    with uow.workspace(2, readonly=True) as tx:
        assert (tx.contacts.get(contact_id), tx.contacts.count()) == (None, 0)


def test_factory_shares_a_given_store() -> None:
    """Two factories over one store see the same data."""
    first = InMemoryUnitOfWorkFactory()
    second = InMemoryUnitOfWorkFactory(first.store)
    contact_id = add_contact(first, 1, commit=True)
    with second.workspace(1, readonly=True) as tx:
        assert tx.contacts.get(contact_id) is not None
