"""Tags through TagService, ContactService and the SQL tag repository."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.services import Services
from engage_sql import Database

from .conftest import START

MakeContact = Callable[..., Contact]


def test_created_tag_reads_back_with_no_contacts(services: Services, account: int) -> None:
    """A new tag has a count of zero and reads back equal."""
    tag = services.tags.create(account, "VIP")

    assert (services.tags.get(account, tag.id), tag.contacts_count) == (tag, 0)


def test_title_is_unique_ignoring_case(services: Services, account: int) -> None:
    """`vip` cannot be created next to `VIP`."""
    services.tags.create(account, "VIP")

    with pytest.raises(ValidationFailed, match="already exists"):
        services.tags.create(account, " vip ")


def test_tags_are_listed_by_id_with_counts(services: Services, account: int, make_contact: MakeContact) -> None:
    """list() returns tags oldest first, each with the number of contacts carrying it."""
    make_contact(tags=["b", "a"])
    make_contact(tags=["b"])
    services.tags.create(account, "c")

    assert [(t.title, t.contacts_count) for t in services.tags.list(account)] == [("b", 2), ("a", 1), ("c", 0)]


def test_rename_shows_on_every_contact(services: Services, account: int, make_contact: MakeContact) -> None:
    """A renamed tag shows its new title on the contacts carrying it, without re-tagging them."""
    contact = make_contact(tags=["vip"])
    tag = services.tags.list(account)[0]

    renamed = services.tags.rename(account, tag.id, "Gold")

    assert (renamed.id, renamed.contacts_count, services.contacts.get(account, contact.id).tags) == (
        tag.id,
        1,
        ("Gold",),
    )


def test_rename_onto_another_title_is_refused(services: Services, account: int) -> None:
    """A tag cannot be renamed to the title of another."""
    services.tags.create(account, "VIP")
    other = services.tags.create(account, "Gold")

    with pytest.raises(ValidationFailed, match="already exists"):
        services.tags.rename(account, other.id, "vip")


def test_rename_to_a_different_case_of_itself_is_allowed(services: Services, account: int) -> None:
    """Renaming `vip` to `VIP` is the same tag, so allowed."""
    tag = services.tags.create(account, "vip")

    assert services.tags.rename(account, tag.id, "VIP").title == "VIP"


def test_repository_rename_collision_keeps_the_transaction(database: Database, account: int) -> None:
    """The unique title is enforced by the database too; the transaction stays usable."""
    with database.uow.workspace(account) as uow:
        uow.tags.add("VIP", START)
        gold = uow.tags.add("Gold", START)
        with pytest.raises(ValidationFailed, match="already exists"):
            uow.tags.rename(gold.id, "vip", START)
        uow.tags.add("Silver", START)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert [t.title for t in uow.tags.list()] == ["VIP", "Gold", "Silver"]


def test_delete_removes_the_tag_from_every_contact(services: Services, account: int, make_contact: MakeContact) -> None:
    """Deleting a tag unlinks it from its contacts, which stay."""
    contact = make_contact(tags=["vip", "new"])
    vip = services.tags.list(account)[0]

    services.tags.delete(account, vip.id)

    assert services.contacts.get(account, contact.id).tags == ("new",)
    with pytest.raises(NotFound):
        services.tags.get(account, vip.id)


def test_assign_by_title_creates_the_tag(services: Services, account: int, make_contact: MakeContact) -> None:
    """Assigning an unknown title creates the tag and links it."""
    contact = make_contact()

    tag = services.contacts.assign_tag(account, contact.id, TagAssignment(title="Lead"))

    assert (tag.contacts_count, services.contacts.get(account, contact.id).tags) == (1, ("Lead",))


def test_assign_is_idempotent(services: Services, database: Database, account: int, make_contact: MakeContact) -> None:
    """Assigning a tag the contact has changes nothing and emits nothing."""
    contact = make_contact(tags=["vip"])
    tag = services.tags.list(account)[0]

    again = services.contacts.assign_tag(account, contact.id, TagAssignment(tag_id=tag.id))

    assert again == tag
    assert [e.name for e in database.outbox_events(account)] == ["contact.created"]


def test_remove_tag_unlinks_it(services: Services, account: int, make_contact: MakeContact) -> None:
    """Removing a tag from a contact leaves the tag itself."""
    contact = make_contact(tags=["vip"])
    tag = services.tags.list(account)[0]

    services.contacts.remove_tag(account, contact.id, tag.id)

    assert (services.contacts.get(account, contact.id).tags, services.tags.get(account, tag.id).contacts_count) == (
        (),
        0,
    )


def test_attach_and_detach_report_whether_they_changed_anything(database: Database, account: int) -> None:
    """attach() is False for an existing link, detach() False for a missing one."""
    with database.uow.workspace(account) as uow:
        contact = uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        tag = uow.tags.add("vip", START)
        results = [
            uow.tags.attach(contact.id, tag.id),
            uow.tags.attach(contact.id, tag.id),
            uow.tags.detach(contact.id, tag.id),
            uow.tags.detach(contact.id, tag.id),
        ]

    assert results == [True, False, True, False]


def test_add_of_an_existing_title_returns_that_tag(database: Database, account: int) -> None:
    """add() of a title that already exists (created concurrently) returns the existing tag instead of failing."""
    with database.uow.workspace(account) as uow:
        existing = uow.tags.add("VIP", START)
        again = uow.tags.add("vip", START)

    assert again == existing


def test_concurrent_add_of_one_title_makes_one_tag(database: Database, account: int) -> None:
    """Two transactions adding the same title at once end with one tag, and neither fails."""
    results: list[int] = []

    def second() -> None:
        with database.uow.workspace(account) as uow:
            results.append(uow.tags.add("vip", START).id)
            uow.commit()

    with database.uow.workspace(account) as uow:
        first = uow.tags.add("VIP", START)
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.2)  # the second transaction now waits on the first (its lock or its unique key)
        uow.commit()
    thread.join(timeout=10)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (results, [t.id for t in uow.tags.list()]) == ([first.id], [first.id])
