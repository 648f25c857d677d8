"""Tenancy: another account's rows behave as absent, through the services and the repositories."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.contacts.contact_service import ContactPatch, TagAssignment
from engage_core.contacts.model import Contact, ContactDraft, ContactFilter
from engage_core.contacts.segments import SegmentRules
from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_sql import Database

from .conftest import START

MakeContact = Callable[..., Contact]


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def test_other_accounts_contact_is_not_found(services: Services, other: int, make_contact: MakeContact) -> None:
    """A contact id of another account is 404 for reading, changing and deleting."""
    contact = make_contact()

    for attempt in (
        lambda: services.contacts.get(other, contact.id),
        lambda: services.contacts.update(other, contact.id, ContactPatch(name="Mine now")),
        lambda: services.contacts.delete(other, contact.id),
        lambda: services.contacts.add_note(other, contact.id, "hi"),
    ):
        with pytest.raises(NotFound):
            attempt()


def test_find_sees_only_the_accounts_contacts(
    services: Services, account: int, other: int, make_contact: MakeContact
) -> None:
    """Listing contacts never shows another account's."""
    make_contact(account_id=other, name="theirs")
    make_contact(name="mine")

    page = services.contacts.find(account, ContactFilter(), PageRequest())
    assert ([c.name for c in page.items], page.total) == (["mine"], 1)


def test_same_phone_in_two_accounts_is_allowed(services: Services, other: int, make_contact: MakeContact) -> None:
    """Phone uniqueness holds within an account only."""
    make_contact(phone="+966501234567")

    assert make_contact(account_id=other, phone="+966501234567").phone == "+966501234567"


def test_same_tag_title_in_two_accounts_is_two_tags(services: Services, account: int, other: int) -> None:
    """Each account has its own `VIP` tag."""
    mine, theirs = services.tags.create(account, "VIP"), services.tags.create(other, "VIP")

    assert mine.id != theirs.id
    with pytest.raises(NotFound):
        services.tags.get(other, mine.id)


def test_other_accounts_tag_cannot_be_assigned(
    services: Services, account: int, other: int, make_contact: MakeContact
) -> None:
    """Assigning another account's tag id is 404."""
    contact = make_contact()
    theirs = services.tags.create(other, "VIP")

    with pytest.raises(NotFound):
        services.contacts.assign_tag(account, contact.id, TagAssignment(tag_id=theirs.id))


def test_other_accounts_list_and_segment_are_not_found(services: Services, account: int, other: int) -> None:
    """Lists and segments of another account are 404."""
    their_list = services.lists.create(other, "Theirs")
    their_segment = services.segments.create(other, "Theirs")

    for attempt in (
        lambda: services.lists.get(account, their_list.id),
        lambda: services.lists.members(account, their_list.id, PageRequest()),
        lambda: services.segments.get(account, their_segment.id),
        lambda: services.segments.members(account, their_segment.id, PageRequest()),
    ):
        with pytest.raises(NotFound):
            attempt()
    assert (services.lists.list(account), services.segments.list(account)) == ([], [])


def test_segment_never_counts_another_accounts_contacts(
    services: Services, account: int, other: int, make_contact: MakeContact
) -> None:
    """Rules are evaluated over the account's own contacts only."""
    make_contact(account_id=other, tags=["vip"])
    segment = services.segments.create(
        account, "VIPs", conditions=[{"field": "tag", "operator": "has", "value": "vip"}]
    )

    assert segment.contacts_count == 0


def test_repositories_do_not_link_across_accounts(database: Database, account: int, other: int) -> None:
    """Links between rows of different accounts are silently not made (the ids are absent)."""
    with database.uow.workspace(other) as uow:
        theirs = uow.contacts.add(ContactDraft(name="Theirs", type="instagram"), START)
        uow.commit()
    with database.uow.workspace(account) as uow:
        tag = uow.tags.add("vip", START)
        newsletter = uow.lists.add("Newsletter", START)
        segment = uow.segments.add("Manual", None, SegmentRules("all", ()), START)
        uow.segments.include(segment.id, theirs.id)
        results = (
            uow.tags.attach(theirs.id, tag.id),
            uow.lists.add_member(newsletter.id, theirs.id, START),
            uow.segments.get(segment.id, START),
        )

    assert (results[0], results[1], results[2] and results[2].contacts_count) == (False, False, 0)


def test_notes_of_another_accounts_contact_cannot_be_added(database: Database, account: int, other: int) -> None:
    """The note repository refuses a contact of another account."""
    with database.uow.workspace(other) as uow:
        theirs = uow.contacts.add(ContactDraft(name="Theirs", type="instagram"), START)
        uow.commit()

    with database.uow.workspace(account) as uow, pytest.raises(NotFound):
        uow.notes.add(theirs.id, "sneaky", START)


def test_deleting_another_accounts_rows_does_nothing(database: Database, account: int, other: int) -> None:
    """delete() with another account's ids leaves their rows alone."""
    with database.uow.workspace(other) as uow:
        contact = uow.contacts.add(ContactDraft(name="Theirs", type="instagram"), START)
        tag = uow.tags.add("vip", START)
        uow.commit()
    with database.uow.workspace(account) as uow:
        uow.contacts.delete(contact.id)
        uow.tags.delete(tag.id)
        uow.commit()

    with database.uow.workspace(other, readonly=True) as uow:
        assert (uow.contacts.get(contact.id) is not None, uow.tags.get(tag.id) is not None) == (True, True)
