"""ContactListService and list membership (SPEC 4 Lists; POST/DELETE /contacts/{id}/lists)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engage_core.contacts.model import Contact, Member
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import LIST_MEMBERS, PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock

from ..factories import START

NewContact = Callable[..., Contact]


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


# -- the lists themselves --------------------------------------------------------------------------


def test_create_returns_an_active_empty_list(services: Services, account_id: int) -> None:
    """A new list has its trimmed name, status 1 (active), no contacts, and is stamped now."""
    created = services.lists.create(account_id, "  Newsletter ")
    assert (created.name, created.status, created.contacts_count, created.created_at) == ("Newsletter", 1, 0, START)


@pytest.mark.parametrize("name", ["", "   ", "x" * 256])
def test_create_requires_a_bounded_name(services: Services, account_id: int, name: str) -> None:
    """A blank or over-255-character name is refused on `name`."""
    assert list(errors_of(lambda: services.lists.create(account_id, name))) == ["name"]


def test_list_returns_all_lists_with_counts(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`list` returns every list of the account with its member count, in creation order."""
    a, b = services.lists.create(account_id, "A"), services.lists.create(account_id, "B")
    contact = new_contact()
    services.contacts.add_to_list(account_id, contact.id, b.id)
    assert [(x.id, x.contacts_count) for x in services.lists.list(account_id)] == [(a.id, 0), (b.id, 1)]


def test_list_shows_only_the_accounts_lists(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """Another account's lists are not listed."""
    services.lists.create(new_account("Other"), "Theirs")
    assert services.lists.list(account_id) == []


def test_get_unknown_list_is_not_found(services: Services, account_id: int) -> None:
    """An unknown list id raises NotFound."""
    with pytest.raises(NotFound):
        services.lists.get(account_id, 999)


def test_get_other_accounts_list_is_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Another account's list behaves as nonexistent."""
    theirs = services.lists.create(new_account("Other"), "Theirs")
    with pytest.raises(NotFound):
        services.lists.get(new_account("Mine"), theirs.id)


def test_update_renames(services: Services, account_id: int, clock: FakeClock) -> None:
    """Updating the name renames the list, keeps its status and moves updated_at."""
    created = services.lists.create(account_id, "Old")
    later = clock.advance(minutes=1)
    updated = services.lists.update(account_id, created.id, name="New")
    assert (updated.name, updated.status, updated.updated_at) == ("New", 1, later)


@pytest.mark.parametrize("status", [0, 1])
def test_update_sets_status_zero_or_one(services: Services, account_id: int, status: int) -> None:
    """Status may be set to 0 (inactive) or 1 (active), keeping the name."""
    created = services.lists.create(account_id, "L")
    services.lists.update(account_id, created.id, status=1 - status)
    updated = services.lists.update(account_id, created.id, status=status)
    assert (updated.status, updated.name) == (status, "L")


@pytest.mark.parametrize("status", [2, -1])
def test_update_rejects_other_statuses(services: Services, account_id: int, status: int) -> None:
    """A status other than 0 or 1 is refused on `status`."""
    created = services.lists.create(account_id, "L")
    assert list(errors_of(lambda: services.lists.update(account_id, created.id, status=status))) == ["status"]


def test_update_rejects_boolean_status(services: Services, account_id: int) -> None:
    """A boolean is not an integer status (SPEC 2: 1 or 0)."""
    created = services.lists.create(account_id, "L")
    with pytest.raises(ValidationFailed):
        services.lists.update(account_id, created.id, status=True)


def test_update_rejects_a_blank_name(services: Services, account_id: int) -> None:
    """A blank new name is refused on `name`."""
    created = services.lists.create(account_id, "L")
    assert list(errors_of(lambda: services.lists.update(account_id, created.id, name=" "))) == ["name"]


def test_update_with_nothing_changes_nothing_but_updated_at(services: Services, account_id: int) -> None:
    """An empty update keeps name and status."""
    created = services.lists.create(account_id, "L")
    updated = services.lists.update(account_id, created.id)
    assert (updated.name, updated.status) == ("L", 1)


def test_update_unknown_list_is_not_found(services: Services, account_id: int) -> None:
    """Updating an unknown list raises NotFound."""
    with pytest.raises(NotFound):
        services.lists.update(account_id, 999, name="x")


def test_delete_removes_the_list(services: Services, account_id: int) -> None:
    """A deleted list is not found afterwards."""
    created = services.lists.create(account_id, "L")
    services.lists.delete(account_id, created.id)
    with pytest.raises(NotFound):
        services.lists.get(account_id, created.id)


def test_delete_keeps_the_contacts(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Deleting a list removes its memberships, not its contacts."""
    created = services.lists.create(account_id, "L")
    contact = new_contact()
    services.contacts.add_to_list(account_id, contact.id, created.id)
    services.lists.delete(account_id, created.id)
    assert services.contacts.get(account_id, contact.id).id == contact.id


def test_delete_other_accounts_list_is_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Deleting another account's list raises NotFound and the list survives."""
    other = new_account("Other")
    theirs = services.lists.create(other, "Theirs")
    with pytest.raises(NotFound):
        services.lists.delete(new_account("Mine"), theirs.id)
    assert services.lists.get(other, theirs.id).name == "Theirs"


# -- membership ------------------------------------------------------------------------------------


def test_add_to_list_counts_the_member(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Adding a contact reports a new membership and raises the count."""
    created = services.lists.create(account_id, "L")
    contact = new_contact()
    assert services.contacts.add_to_list(account_id, contact.id, created.id) is True
    assert services.lists.get(account_id, created.id).contacts_count == 1


def test_add_to_list_is_idempotent(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Adding the same contact twice keeps one membership and reports it was not new."""
    created = services.lists.create(account_id, "L")
    contact = new_contact()
    services.contacts.add_to_list(account_id, contact.id, created.id)
    assert services.contacts.add_to_list(account_id, contact.id, created.id) is False
    assert services.lists.get(account_id, created.id).contacts_count == 1


def test_members_come_in_insertion_order(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Members are listed in the order they were added, not by id or name."""
    created = services.lists.create(account_id, "L")
    a, b, c = new_contact("A"), new_contact("B"), new_contact("C")
    for contact in (c, a, b):
        services.contacts.add_to_list(account_id, contact.id, created.id)
    assert [m.id for m in services.lists.members(account_id, created.id, PageRequest()).items] == [c.id, a.id, b.id]


def test_members_are_member_items(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A member item has id, name, phone and type (SPEC 2)."""
    created = services.lists.create(account_id, "L")
    contact = new_contact("Ada", "whatsapp", phone="+966501234567")
    services.contacts.add_to_list(account_id, contact.id, created.id)
    assert services.lists.members(account_id, created.id, PageRequest()).items == [
        Member(contact.id, "Ada", "+966501234567", "whatsapp")
    ]


def test_members_are_paginated(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Members are paginated with the total across pages."""
    created = services.lists.create(account_id, "L")
    ids = [new_contact(f"C{i}").id for i in range(5)]
    for contact_id in ids:
        services.contacts.add_to_list(account_id, contact_id, created.id)
    request = PageRequest.build(3, 2, default=LIST_MEMBERS.default, maximum=LIST_MEMBERS.maximum)
    page = services.lists.members(account_id, created.id, request)
    assert ([m.id for m in page.items], page.total, page.last_page) == (ids[4:], 5, 3)


def test_remove_from_list(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Removing a member drops it from the list and the count."""
    created = services.lists.create(account_id, "L")
    contact = new_contact()
    services.contacts.add_to_list(account_id, contact.id, created.id)
    services.contacts.remove_from_list(account_id, contact.id, created.id)
    assert services.lists.get(account_id, created.id).contacts_count == 0


def test_remove_a_non_member_is_a_no_op(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Removing a contact that is not in the list succeeds and leaves the list as it was (idempotent)."""
    created = services.lists.create(account_id, "L")
    contact = new_contact()
    services.contacts.remove_from_list(account_id, contact.id, created.id)
    assert services.lists.get(account_id, created.id).contacts_count == 0


def test_add_to_unknown_list_is_not_found(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Adding to a list that does not exist raises NotFound."""
    contact = new_contact()
    with pytest.raises(NotFound):
        services.contacts.add_to_list(account_id, contact.id, 999)


def test_add_to_other_accounts_list_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """A contact cannot be put in another account's list."""
    theirs = services.lists.create(new_account("Other"), "Theirs")
    contact = new_contact()
    with pytest.raises(NotFound):
        services.contacts.add_to_list(account_id, contact.id, theirs.id)


def test_add_other_accounts_contact_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Another account's contact cannot be put in this account's list."""
    mine = services.lists.create(account_id, "Mine")
    theirs = new_contact(account=new_account("Other"))
    with pytest.raises(NotFound):
        services.contacts.add_to_list(account_id, theirs.id, mine.id)


def test_members_of_other_accounts_list_are_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Reading the members of another account's list raises NotFound."""
    theirs = services.lists.create(new_account("Other"), "Theirs")
    with pytest.raises(NotFound):
        services.lists.members(new_account("Mine"), theirs.id, PageRequest())
