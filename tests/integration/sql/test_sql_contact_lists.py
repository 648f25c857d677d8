"""Contact lists through ContactListService, ContactService and the SQL list repository."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_sql import Database

from .conftest import START

MakeContact = Callable[..., Contact]


def _member_names(services: Services, account: int, list_id: int, page: PageRequest | None = None) -> list[str]:
    return [m.name for m in services.lists.members(account, list_id, page or PageRequest(per_page=100)).items]


def test_created_list_is_active_and_empty(services: Services, account: int) -> None:
    """A new list has status 1, no members, and reads back equal."""
    created = services.lists.create(account, "Newsletter")

    assert (services.lists.get(account, created.id), created.status, created.contacts_count) == (created, 1, 0)


def test_update_changes_name_and_status(services: Services, account: int) -> None:
    """update() renames and deactivates."""
    created = services.lists.create(account, "Newsletter")

    updated = services.lists.update(account, created.id, name="Weekly", status=0)

    assert (updated.name, updated.status, services.lists.get(account, created.id)) == ("Weekly", 0, updated)


def test_lists_are_listed_by_id_with_counts(services: Services, account: int, make_contact: MakeContact) -> None:
    """list() returns every list, oldest first, with its member count."""
    first, second = services.lists.create(account, "A"), services.lists.create(account, "B")
    for contact in (make_contact(), make_contact()):
        services.contacts.add_to_list(account, contact.id, second.id)

    assert [(i.id, i.contacts_count) for i in services.lists.list(account)] == [(first.id, 0), (second.id, 2)]


def test_members_come_in_the_order_they_were_added(services: Services, account: int, make_contact: MakeContact) -> None:
    """Members are listed in insertion order, not by id or name (the clock stands still here)."""
    ada, bob, cy = make_contact(name="Ada"), make_contact(name="Bob"), make_contact(name="Cy")
    newsletter = services.lists.create(account, "Newsletter")
    for contact in (cy, ada, bob):
        services.contacts.add_to_list(account, contact.id, newsletter.id)

    assert _member_names(services, account, newsletter.id) == ["Cy", "Ada", "Bob"]


def test_readded_member_goes_to_the_end(services: Services, account: int, make_contact: MakeContact) -> None:
    """A contact removed and added again is the newest member."""
    ada, bob = make_contact(name="Ada"), make_contact(name="Bob")
    newsletter = services.lists.create(account, "Newsletter")
    for contact in (ada, bob):
        services.contacts.add_to_list(account, contact.id, newsletter.id)
    services.contacts.remove_from_list(account, ada.id, newsletter.id)
    services.contacts.add_to_list(account, ada.id, newsletter.id)

    assert _member_names(services, account, newsletter.id) == ["Bob", "Ada"]


def test_members_paginate(services: Services, account: int, make_contact: MakeContact) -> None:
    """A page of members carries the id, name, phone and type, and the total."""
    newsletter = services.lists.create(account, "Newsletter")
    contacts = [make_contact(name=f"c{n}") for n in range(5)]
    for contact in contacts:
        services.contacts.add_to_list(account, contact.id, newsletter.id)

    page = services.lists.members(account, newsletter.id, PageRequest(page=2, per_page=2))

    assert ([(m.id, m.name, m.phone, m.type) for m in page.items], page.total) == (
        [(c.id, c.name, c.phone, c.type) for c in contacts[2:4]],
        5,
    )


def test_adding_a_member_twice_is_reported(services: Services, account: int, make_contact: MakeContact) -> None:
    """The second add of the same contact returns False and changes nothing."""
    contact = make_contact()
    newsletter = services.lists.create(account, "Newsletter")

    added = [services.contacts.add_to_list(account, contact.id, newsletter.id) for _ in range(2)]

    assert (added, services.lists.get(account, newsletter.id).contacts_count) == ([True, False], 1)


def test_removing_a_non_member_changes_nothing(services: Services, account: int, make_contact: MakeContact) -> None:
    """Removing a contact that is not in the list is accepted and leaves the list as it was."""
    member, stranger = make_contact(), make_contact()
    newsletter = services.lists.create(account, "Newsletter")
    services.contacts.add_to_list(account, member.id, newsletter.id)

    services.contacts.remove_from_list(account, stranger.id, newsletter.id)

    assert [m.id for m in services.lists.members(account, newsletter.id, PageRequest()).items] == [member.id]


def test_remove_member_reports_whether_it_removed(database: Database, account: int) -> None:
    """The repository's remove_member() is True for a member and False for anyone else."""
    with database.uow.workspace(account) as uow:
        contact = uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        newsletter = uow.lists.add("Newsletter", START)
        uow.lists.add_member(newsletter.id, contact.id, START)
        removed = [uow.lists.remove_member(newsletter.id, contact.id) for _ in range(2)]

    assert removed == [True, False]


def test_delete_keeps_the_contacts(services: Services, account: int, make_contact: MakeContact) -> None:
    """Deleting a list removes its memberships; the contacts stay."""
    contact = make_contact()
    newsletter = services.lists.create(account, "Newsletter")
    services.contacts.add_to_list(account, contact.id, newsletter.id)

    services.lists.delete(account, newsletter.id)

    assert services.contacts.get(account, contact.id) == contact
    with pytest.raises(NotFound):
        services.lists.get(account, newsletter.id)
