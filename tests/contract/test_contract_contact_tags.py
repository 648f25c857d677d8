"""Tags: titles unique ignoring case, links to contacts, renames and deletes, and their tenancy
(another account's tags behave as absent), on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest
from support import NOW, MakeContact

from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import ContactDraft, ContactPatch
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.unit_of_work import UnitOfWorkFactory

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


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

    assert [(t.title, t.contacts_count) for t in services.tags.list(account, ALL_TAGS).items] == [
        ("b", 2),
        ("a", 1),
        ("c", 0),
    ]


def test_rename_shows_on_every_contact(services: Services, account: int, make_contact: MakeContact) -> None:
    """A renamed tag shows its new title on the contacts carrying it, without re-tagging them."""
    contact = make_contact(tags=["vip"])
    tag = services.tags.list(account, ALL_TAGS).items[0]

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


def test_repository_rename_collision_keeps_the_transaction(uow: UnitOfWorkFactory, account: int) -> None:
    """The unique title is enforced by the database too; the transaction stays usable."""
    with uow.workspace(account) as unit:
        unit.tags.add("VIP", NOW)
        gold = unit.tags.add("Gold", NOW)
        with pytest.raises(ValidationFailed, match="already exists"):
            unit.tags.rename(gold.id, "vip", NOW)
        unit.tags.add("Silver", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert [t.title for t in unit.tags.list(ALL_TAGS).items] == ["VIP", "Gold", "Silver"]


def test_delete_removes_the_tag_from_every_contact(services: Services, account: int, make_contact: MakeContact) -> None:
    """Deleting a tag unlinks it from its contacts, which stay."""
    contact = make_contact(tags=["vip", "new"])
    vip = services.tags.list(account, ALL_TAGS).items[0]

    services.tags.delete(account, vip.id)

    assert services.contacts.get(account, contact.id).tags == ("new",)
    with pytest.raises(NotFound):
        services.tags.get(account, vip.id)


def test_assign_by_title_creates_the_tag(services: Services, account: int, make_contact: MakeContact) -> None:
    """Assigning an unknown title creates the tag and links it."""
    contact = make_contact()

    tag = services.contacts.assign_tag(account, contact.id, TagAssignment(title="Lead"))

    assert (tag.contacts_count, services.contacts.get(account, contact.id).tags) == (1, ("Lead",))


def test_assign_is_idempotent(
    services: Services, outbox_events: Callable[..., list[DomainEvent]], account: int, make_contact: MakeContact
) -> None:
    """Assigning a tag the contact has changes nothing and emits nothing."""
    contact = make_contact(tags=["vip"])
    tag = services.tags.list(account, ALL_TAGS).items[0]

    again = services.contacts.assign_tag(account, contact.id, TagAssignment(tag_id=tag.id))

    assert again == tag
    assert [e.name for e in outbox_events(account)] == ["contact.created"]


def test_remove_tag_unlinks_it(services: Services, account: int, make_contact: MakeContact) -> None:
    """Removing a tag from a contact leaves the tag itself."""
    contact = make_contact(tags=["vip"])
    tag = services.tags.list(account, ALL_TAGS).items[0]

    services.contacts.remove_tag(account, contact.id, tag.id)

    assert (services.contacts.get(account, contact.id).tags, services.tags.get(account, tag.id).contacts_count) == (
        (),
        0,
    )


def test_attach_and_detach_report_whether_they_changed_anything(uow: UnitOfWorkFactory, account: int) -> None:
    """attach() is False for an existing link, detach() False for a missing one."""
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        tag = unit.tags.add("vip", NOW)
        results = [
            unit.tags.attach(contact.id, tag.id),
            unit.tags.attach(contact.id, tag.id),
            unit.tags.detach(contact.id, tag.id),
            unit.tags.detach(contact.id, tag.id),
        ]

    assert results == [True, False, True, False]


def test_ensure_finds_existing_titles_ignoring_case_and_creates_the_rest(uow: UnitOfWorkFactory, account: int) -> None:
    """ensure() returns one tag per title, in order: the stored one for a known title, a new one otherwise."""
    with uow.workspace(account) as unit:
        vip = unit.tags.add("VIP", NOW)
        tags = unit.tags.ensure(["Gold", "vip", "Silver"], NOW)
        listed = unit.tags.list(ALL_TAGS).items

    assert [t.title for t in tags] == ["Gold", "VIP", "Silver"]
    assert tags[1].id == vip.id
    assert {t.id for t in listed} == {t.id for t in tags}


def test_ensure_twice_creates_nothing_more(uow: UnitOfWorkFactory, account: int) -> None:
    """ensure() is idempotent: the second call returns the same tags and adds none."""
    with uow.workspace(account) as unit:
        first = unit.tags.ensure(["a", "b"], NOW)
        second = unit.tags.ensure(["B", "A"], NOW)
        total = unit.tags.list(ALL_TAGS).total

    assert ([t.id for t in second], total) == ([first[1].id, first[0].id], 2)


def test_ensure_does_not_see_another_accounts_tags(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """A title another account uses is created anew in this one."""
    with uow.workspace(other) as unit:
        theirs = unit.tags.add("vip", NOW)
        unit.commit()
    with uow.workspace(account) as unit:
        [mine] = unit.tags.ensure(["vip"], NOW)

    assert mine.id != theirs.id


def test_attach_all_links_each_tag_once_and_counts_the_new_links(uow: UnitOfWorkFactory, account: int) -> None:
    """attach_all() reports only new links; contacts_count counts each link once."""
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        a, b, c = unit.tags.ensure(["a", "b", "c"], NOW)
        unit.tags.attach(contact.id, a.id)
        linked = [unit.tags.attach_all(contact.id, [a.id, b.id]), unit.tags.attach_all(contact.id, [a.id, b.id, c.id])]
        counts = [t.contacts_count for t in unit.tags.list(ALL_TAGS).items]
        tags = unit.contacts.get(contact.id)

    assert (linked, counts) == ([1, 1], [1, 1, 1])
    assert tags is not None and tags.tags == ("a", "b", "c")


def test_attach_all_links_no_tag_of_another_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's tag id is not linked to this account's contact."""
    with uow.workspace(other) as unit:
        [theirs] = unit.tags.ensure(["vip"], NOW)
        unit.commit()
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        linked = unit.tags.attach_all(contact.id, [theirs.id])
        found = unit.contacts.get(contact.id)

    assert (linked, found is not None and found.tags) == (0, ())


def test_detach_others_keeps_only_the_tags_named(uow: UnitOfWorkFactory, account: int) -> None:
    """detach_others() unlinks every other tag of the contact, and only of that contact."""
    with uow.workspace(account) as unit:
        ada = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        bob = unit.contacts.add(ContactDraft(name="Bob", type="instagram"), NOW)
        a, b, c = unit.tags.ensure(["a", "b", "c"], NOW)
        unit.tags.attach_all(ada.id, [a.id, b.id, c.id])
        unit.tags.attach_all(bob.id, [a.id, b.id])
        unlinked = unit.tags.detach_others(ada.id, [b.id])
        ada_tags, bob_tags = unit.contacts.get(ada.id), unit.contacts.get(bob.id)

    assert unlinked == 2
    assert (ada_tags and ada_tags.tags, bob_tags and bob_tags.tags) == (("b",), ("a", "b"))


def test_tags_are_listed_a_page_at_a_time(uow: UnitOfWorkFactory, account: int) -> None:
    """list() returns the requested page by id, with the total of all pages."""
    with uow.workspace(account) as unit:
        unit.tags.ensure([f"t{n}" for n in range(5)], NOW)
        page = unit.tags.list(PageRequest(page=2, per_page=2))

    assert ([t.title for t in page.items], page.total, page.last_page) == (["t2", "t3"], 5, 3)


def test_a_contact_created_with_many_tags_carries_each(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """Creating a contact with new and known titles (any case) links each tag once and counts it."""
    services.tags.create(account, "Known")
    titles = [f"Tag {n}" for n in range(40)] + ["known", "TAG 0"]

    contact = make_contact(tags=titles)

    listed = services.tags.list(account, ALL_TAGS)
    assert services.contacts.get(account, contact.id).tags == contact.tags
    assert (len(contact.tags), listed.total, {t.contacts_count for t in listed.items}) == (41, 41, {1})


def test_replacing_tags_with_a_set_keeps_counts_and_emits_once(
    services: Services, account: int, make_contact: MakeContact, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """PUT-like replacement of many tags: the contact carries exactly the new set, counts follow, one event."""
    contact = make_contact(tags=[f"old {n}" for n in range(10)] + ["kept"])
    before = len(outbox_events(account))

    updated = services.contacts.update(
        account, contact.id, ContactPatch(tags=["KEPT"] + [f"new {n}" for n in range(10)])
    )

    counts = {t.title: t.contacts_count for t in services.tags.list(account, ALL_TAGS).items}
    assert updated.tags == tuple(sorted(["kept"] + [f"new {n}" for n in range(10)], key=str.casefold))
    assert (counts["kept"], counts["old 0"], counts["new 9"]) == (1, 0, 1)
    assert [e.name for e in outbox_events(account)[before:]] == ["contact.updated"]


def test_add_of_an_existing_title_returns_that_tag(uow: UnitOfWorkFactory, account: int) -> None:
    """add() of a title that already exists (created concurrently) returns the existing tag instead of failing."""
    with uow.workspace(account) as unit:
        existing = unit.tags.add("VIP", NOW)
        again = unit.tags.add("vip", NOW)

    assert again == existing


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


def test_by_title_ignores_case_and_spaces(uow: UnitOfWorkFactory, account: int) -> None:
    """by_title() finds the tag whatever the case and surrounding spaces of the title asked for."""
    with uow.workspace(account) as unit:
        tag = unit.tags.add("VIP", NOW)
        found = unit.tags.by_title(" vip ")

    assert found == tag


def test_rename_stamps_the_update_time(uow: UnitOfWorkFactory, account: int) -> None:
    """rename() stores the title and `updated_at`, keeping `created_at`."""
    later = NOW + timedelta(minutes=1)
    with uow.workspace(account) as unit:
        tag = unit.tags.add("vip", NOW)
        unit.tags.rename(tag.id, "Gold", later)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.tags.get(tag.id) == attrs.evolve(tag, title="Gold", updated_at=later)


def test_detach_of_another_accounts_tag_is_false(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """detach() with another account's tag and contact unlinks nothing and says so."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        tag = unit.tags.add("vip", NOW)
        unit.tags.attach(contact.id, tag.id)
        unit.commit()
    with uow.workspace(account) as unit:
        detached = unit.tags.detach(contact.id, tag.id)
        unit.commit()

    with uow.workspace(other, readonly=True) as unit:
        kept = unit.tags.get(tag.id)

    assert (detached, kept and kept.contacts_count) == (False, 1)
