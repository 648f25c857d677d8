"""Contacts, tags, lists, segments and notes: the contacts area's repositories and services, and
their tenancy (another account's rows behave as absent), on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest
from support import NOW, MakeContact

from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import Contact, ContactDraft, ContactFilter, ContactInput, ContactPatch
from engage_core.contacts.segments import SegmentRules
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""

VIP = [{"field": "tag", "operator": "has", "value": "vip"}]


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _names(services: Services, account: int, filters: ContactFilter | None = None) -> list[str]:
    page = services.contacts.find(account, filters or ContactFilter(), PageRequest(per_page=100))
    return [c.name for c in page.items]


def _total(services: Services, account: int, page: int = 1) -> int:
    return services.contacts.find(account, ContactFilter(), PageRequest(page=page, per_page=2)).total


def _member_names(services: Services, account: int, list_id: int, page: PageRequest | None = None) -> list[str]:
    return [m.name for m in services.lists.members(account, list_id, page or PageRequest(per_page=100)).items]


def _member_ids(services: Services, account: int, segment_id: int) -> list[int]:
    return [m.id for m in services.segments.members(account, segment_id, PageRequest(per_page=100)).items]


def test_created_contact_reads_back_equal(services: Services, account: int) -> None:
    """Every field of a created contact survives the round trip, tags sorted case-insensitively."""
    data = ContactInput(
        name="Ada Lovelace",
        type="whatsapp",
        phone="+966501234567",
        email="ada@example.com",
        tags=["vip", "Beta", "alpha"],
        company="Analytical Engines",
        address="12 St James's Square",
        country_id=826,
    )
    created = services.contacts.create(account, data)

    assert services.contacts.get(account, created.id) == created
    assert created.tags == ("alpha", "Beta", "vip")


def test_missing_contact_is_not_found(services: Services, account: int) -> None:
    """An id that was never used is 404."""
    with pytest.raises(NotFound):
        services.contacts.get(account, 12345)


def test_find_lists_newest_first(services: Services, account: int, clock: FakeClock, make_contact: MakeContact) -> None:
    """Contacts come newest first; contacts created at the same instant, highest id first."""
    make_contact(name="old")
    clock.advance(seconds=1)
    make_contact(name="tie 1")
    make_contact(name="tie 2")
    clock.advance(microseconds=1)
    make_contact(name="new")

    assert _names(services, account) == ["new", "tie 2", "tie 1", "old"]


def test_find_paginates_with_a_total(services: Services, account: int, make_contact: MakeContact) -> None:
    """A page holds per_page contacts; the total counts every match."""
    for n in range(7):
        make_contact(name=f"c{n}")

    page = services.contacts.find(account, ContactFilter(), PageRequest(page=2, per_page=3))

    assert ([c.name for c in page.items], page.total, page.last_page) == (["c3", "c2", "c1"], 7, 3)


def test_find_past_the_last_page_is_empty(services: Services, account: int, make_contact: MakeContact) -> None:
    """A page beyond the end is empty but still tells the total."""
    make_contact()

    page = services.contacts.find(account, ContactFilter(), PageRequest(page=5, per_page=15))

    assert (list(page.items), page.total) == ([], 1)


def test_find_filters_by_type(services: Services, account: int, make_contact: MakeContact) -> None:
    """`type` keeps contacts of that channel only."""
    make_contact(name="wa")
    make_contact(name="tg", type="telegram")

    assert _names(services, account, ContactFilter(type="telegram")) == ["tg"]


def test_find_filters_by_blacklist(services: Services, account: int, make_contact: MakeContact) -> None:
    """`blacklisted` keeps contacts with that flag only."""
    blocked = make_contact(name="blocked")
    make_contact(name="fine")
    services.contacts.toggle_blacklist(account, blocked.id)

    assert _names(services, account, ContactFilter(blacklisted=True)) == ["blocked"]
    assert _names(services, account, ContactFilter(blacklisted=False)) == ["fine"]


def test_find_filters_by_tag_ignoring_case(services: Services, account: int, make_contact: MakeContact) -> None:
    """`tag` matches the tag's title whatever its case."""
    make_contact(name="vip", tags=["VIP"])
    make_contact(name="plain")

    assert _names(services, account, ContactFilter(tag=" vip ")) == ["vip"]


@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("LOVE", ["Ada Lovelace"]),  # name, any case
        ("STRASSE", ["Hans Straße"]),  # full Unicode case folding, as Python's casefold
        ("@EXAMPLE.org", ["Grace Hopper"]),  # email
        ("96650777", ["Alan Turing"]),  # phone
    ],
)
def test_search_matches_name_email_or_phone(
    services: Services, account: int, make_contact: MakeContact, search: str, expected: list[str]
) -> None:
    """`search` is a case-insensitive substring of the name, the e-mail or the phone."""
    make_contact(name="Ada Lovelace", email="ada@example.com")
    make_contact(name="Hans Straße")
    make_contact(name="Grace Hopper", email="grace@example.org")
    make_contact(name="Alan Turing", phone="+966507771234")

    assert _names(services, account, ContactFilter(search=search)) == expected


@pytest.mark.parametrize(("search", "expected"), [("100%", ["100% sure"]), ("a_b", ["a_b"]), ("\\", ["back\\slash"])])
def test_search_wildcards_match_only_themselves(
    services: Services, account: int, make_contact: MakeContact, search: str, expected: list[str]
) -> None:
    """`%`, `_` and backslash in a search are literal characters, not LIKE wildcards."""
    for name in ("100% sure", "1000 sure", "a_b", "axb", "back\\slash"):
        make_contact(name=name)

    assert _names(services, account, ContactFilter(search=search)) == expected


def test_update_changes_fields_and_replaces_tags(services: Services, account: int, make_contact: MakeContact) -> None:
    """A patch changes the given fields, keeps the others, and replaces the tag set."""
    contact = make_contact(name="Ada", email="ada@example.com", tags=["a", "b"])

    updated = services.contacts.update(account, contact.id, ContactPatch(name="Ada L.", tags=["b", "c"]))

    assert services.contacts.get(account, contact.id) == updated
    assert (updated.name, updated.email, updated.tags) == ("Ada L.", "ada@example.com", ("b", "c"))


def test_update_is_searchable_by_the_new_name(services: Services, account: int, make_contact: MakeContact) -> None:
    """Renaming a contact updates what search matches."""
    contact = make_contact(name="Old Name")
    services.contacts.update(account, contact.id, ContactPatch(name="Brand New"))

    assert (
        _names(services, account, ContactFilter(search="old")),
        _names(services, account, ContactFilter(search="new")),
    ) == (
        [],
        ["Brand New"],
    )


def test_contact_changes_emit_events(
    services: Services, outbox_events: Callable[..., list[DomainEvent]], account: int, make_contact: MakeContact
) -> None:
    """Create, update and delete each write their event to the outbox."""
    contact = make_contact()
    services.contacts.update(account, contact.id, ContactPatch(name="Renamed"))
    services.contacts.delete(account, contact.id)

    events = outbox_events(account)
    assert [e.name for e in events] == ["contact.created", "contact.updated", "contact.deleted"]
    assert events[1].payload["name"] == "Renamed"


def test_duplicate_phone_is_refused(services: Services, account: int, make_contact: MakeContact) -> None:
    """Two contacts of one channel type cannot share a phone."""
    make_contact(phone="+966501234567")

    with pytest.raises(ValidationFailed) as raised:
        make_contact(phone="+966501234567")
    assert list(raised.value.errors) == ["phone"]


def test_same_phone_on_another_channel_is_allowed(services: Services, account: int, make_contact: MakeContact) -> None:
    """The phone is unique per channel type, not across types."""
    make_contact(phone="+966501234567", type="whatsapp")

    assert make_contact(phone="+966501234567", type="telegram").type == "telegram"


def test_storage_refuses_a_duplicate_phone_the_caller_missed(uow: UnitOfWorkFactory, account: int) -> None:
    """The unique constraint is the last word: add() raises ValidationFailed and the transaction stays usable."""
    draft = ContactDraft(name="Ada", type="whatsapp", phone="+966501234567")
    with uow.workspace(account) as unit:
        unit.contacts.add(draft, NOW)
        with pytest.raises(ValidationFailed, match="phone already exists"):
            unit.contacts.add(attrs.evolve(draft, name="Twin"), NOW)
        unit.contacts.add(attrs.evolve(draft, name="Other", phone="+966501234568"), NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.contacts.count() == 2


def test_storage_refuses_a_phone_update_onto_another_contact(uow: UnitOfWorkFactory, account: int) -> None:
    """update() onto a taken phone raises ValidationFailed and leaves the transaction usable."""
    with uow.workspace(account) as unit:
        ada = unit.contacts.add(ContactDraft(name="Ada", type="whatsapp", phone="+966501234567"), NOW)
        bob = unit.contacts.add(ContactDraft(name="Bob", type="whatsapp", phone="+966501234568"), NOW)
        with pytest.raises(ValidationFailed, match="phone already exists"):
            unit.contacts.update(attrs.evolve(bob, phone=ada.phone))
        unit.contacts.update(attrs.evolve(bob, name="Robert"))
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert [c.name for c in unit.contacts.find(ContactFilter(), PageRequest()).items] == ["Robert", "Ada"]


def test_by_phone_finds_the_contact_of_that_type(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """by_phone() looks up one channel type's contact by its E.164 phone."""
    contact = make_contact(phone="+966501234567", tags=["vip"])

    with uow.workspace(account, readonly=True) as unit:
        assert (
            unit.contacts.by_phone("whatsapp", "+966501234567"),
            unit.contacts.by_phone("telegram", "+966501234567"),
        ) == (
            contact,
            None,
        )


def test_update_stores_every_scalar_field(uow: UnitOfWorkFactory, account: int) -> None:
    """The repository's update() writes every field of the entity, timestamps included."""
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        changed = attrs.evolve(
            contact,
            name="Ada L.",
            email="ada@example.com",
            status="inactive",
            blacklisted=True,
            last_message_at=NOW + timedelta(hours=1, microseconds=7),
            updated_at=NOW + timedelta(hours=2),
            source="import",
            company="Engines",
            address="London",
            country_id=826,
        )
        unit.contacts.update(changed)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.contacts.get(contact.id) == changed


def test_blacklist_toggles(services: Services, account: int, make_contact: MakeContact) -> None:
    """Blacklisting twice restores the contact."""
    contact = make_contact()

    first = services.contacts.toggle_blacklist(account, contact.id)
    second = services.contacts.toggle_blacklist(account, contact.id)

    assert (first.blacklisted, second.blacklisted) == (True, False)


def test_delete_removes_the_contact(services: Services, account: int, make_contact: MakeContact) -> None:
    """A deleted contact is gone."""
    contact = make_contact()
    services.contacts.delete(account, contact.id)

    with pytest.raises(NotFound):
        services.contacts.get(account, contact.id)


def test_count_counts_the_accounts_contacts(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """count() is the number of the account's contacts."""
    for _ in range(3):
        make_contact()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.contacts.count() == 3


def test_notes_are_listed_newest_first(
    services: Services, account: int, clock: FakeClock, make_contact: MakeContact
) -> None:
    """A contact's notes come newest first; same instant, latest added first."""
    contact = make_contact()
    services.contacts.add_note(account, contact.id, "first")
    clock.advance(minutes=1)
    services.contacts.add_note(account, contact.id, "second")
    services.contacts.add_note(account, contact.id, "third")

    assert [n.content for n in services.contacts.notes(account, contact.id)] == ["third", "second", "first"]


def test_note_reads_back_equal(services: Services, account: int, make_contact: MakeContact) -> None:
    """A created note is listed exactly as it was returned."""
    contact = make_contact()
    note = services.contacts.add_note(account, contact.id, "Prefers e-mail")

    assert services.contacts.notes(account, contact.id) == [note]


def test_total_past_the_last_page_comes_from_the_counter(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """An empty page past the end still reports the total."""
    for _ in range(3):
        make_contact()

    assert _total(services, account, page=9) == 3


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


def test_remove_member_reports_whether_it_removed(uow: UnitOfWorkFactory, account: int) -> None:
    """The repository's remove_member() is True for a member and False for anyone else."""
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        newsletter = unit.lists.add("Newsletter", NOW)
        unit.lists.add_member(newsletter.id, contact.id, NOW)
        removed = [unit.lists.remove_member(newsletter.id, contact.id) for _ in range(2)]

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


def test_rules_select_members(services: Services, account: int, make_contact: MakeContact) -> None:
    """A segment's members are the contacts its rules match, counted in contacts_count."""
    vip = make_contact(tags=["VIP"])
    make_contact()

    segment = services.segments.create(account, "VIPs", conditions=VIP)

    assert (segment.contacts_count, _member_ids(services, account, segment.id)) == (1, [vip.id])


def test_members_are_ordered_by_id_and_paginated(services: Services, account: int, make_contact: MakeContact) -> None:
    """Members come by contact id, a page at a time, with the total."""
    contacts = [make_contact(name=f"c{n}", tags=["vip"]) for n in range(5)]
    segment = services.segments.create(account, "VIPs", conditions=VIP)

    page = services.segments.members(account, segment.id, PageRequest(page=2, per_page=2))

    assert ([(m.id, m.name, m.phone, m.type) for m in page.items], page.total) == (
        [(c.id, c.name, c.phone, c.type) for c in contacts[2:4]],
        5,
    )


def test_segment_reads_back_equal(services: Services, account: int) -> None:
    """Name, description, match mode and typed conditions survive storage."""
    conditions: list[dict[str, Any]] = [
        {"field": "type", "operator": "in", "value": ["telegram", "whatsapp"]},
        {"field": "created_at", "operator": "after", "value": "2025-12-31T23:59:59.000001Z"},
        {"field": "last_message_at", "operator": "within_days", "value": 7},
        {"field": "email", "operator": "is_empty"},
        {"field": "blacklisted", "operator": "eq", "value": False},
    ]
    segment = services.segments.create(account, "Mixed", description="All kinds", match="any", conditions=conditions)

    assert services.segments.get(account, segment.id) == segment
    assert [c.to_json() for c in segment.conditions][1]["value"] == "2025-12-31T23:59:59.000001Z"


def test_manual_segment_holds_only_added_contacts(services: Services, account: int, make_contact: MakeContact) -> None:
    """A segment without conditions selects nobody until contacts are added by hand."""
    added = make_contact()
    make_contact()
    segment = services.segments.create(account, "Hand-picked")

    services.contacts.add_to_segment(account, added.id, segment.id)

    assert (services.segments.get(account, segment.id).contacts_count, _member_ids(services, account, segment.id)) == (
        1,
        [added.id],
    )


def test_removed_contact_stays_out_despite_the_rules(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """A contact removed by hand is no member even though the rules match it."""
    vip, other = make_contact(tags=["vip"]), make_contact(tags=["vip"])
    segment = services.segments.create(account, "VIPs", conditions=VIP)

    services.contacts.remove_from_segment(account, vip.id, segment.id)

    assert _member_ids(services, account, segment.id) == [other.id]


def test_adding_back_cancels_a_removal(services: Services, account: int, make_contact: MakeContact) -> None:
    """Adding a removed contact by hand makes it a member again."""
    vip = make_contact(tags=["vip"])
    segment = services.segments.create(account, "VIPs", conditions=VIP)
    services.contacts.remove_from_segment(account, vip.id, segment.id)

    services.contacts.add_to_segment(account, vip.id, segment.id)

    assert _member_ids(services, account, segment.id) == [vip.id]


def test_removing_a_non_member_keeps_it_out_once_the_rules_match(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """Removing a contact by hand before the rules match it still keeps it out afterwards."""
    contact = make_contact()
    segment = services.segments.create(account, "VIPs", conditions=VIP)
    services.contacts.remove_from_segment(account, contact.id, segment.id)

    services.contacts.assign_tag(account, contact.id, TagAssignment(title="vip"))

    assert _member_ids(services, account, segment.id) == []


def test_relative_days_follow_the_clock(
    services: Services, account: int, clock: FakeClock, make_contact: MakeContact
) -> None:
    """`within_days` is evaluated at the time of reading, so members age out."""
    make_contact()
    segment = services.segments.create(
        account, "Recent", conditions=[{"field": "created_at", "operator": "within_days", "value": 2}]
    )
    clock.advance(days=2)
    still = services.segments.get(account, segment.id).contacts_count
    clock.advance(microseconds=1)

    assert (still, services.segments.get(account, segment.id).contacts_count) == (1, 0)


def test_update_changes_the_rules_and_keeps_manual_changes(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """New rules select new members; contacts added by hand stay."""
    added = make_contact()
    telegram = make_contact(type="telegram")
    segment = services.segments.create(account, "VIPs", conditions=VIP)
    services.contacts.add_to_segment(account, added.id, segment.id)

    updated = services.segments.update(
        account, segment.id, conditions=[{"field": "type", "operator": "eq", "value": "telegram"}]
    )

    assert (updated.contacts_count, _member_ids(services, account, segment.id)) == (2, [added.id, telegram.id])


def test_segments_are_listed_by_id_with_counts(services: Services, account: int, make_contact: MakeContact) -> None:
    """list() evaluates every segment's count."""
    make_contact(tags=["vip"])
    make_contact(type="telegram")
    services.segments.create(account, "VIPs", conditions=VIP)
    services.segments.create(
        account,
        "Everyone",
        match="any",
        conditions=[*VIP, {"field": "name", "operator": "contains", "value": "contact"}],
    )
    services.segments.create(account, "Nobody")

    assert [(s.name, s.contacts_count) for s in services.segments.list(account)] == [
        ("VIPs", 1),
        ("Everyone", 2),
        ("Nobody", 0),
    ]


def test_delete_removes_the_segment(services: Services, account: int, make_contact: MakeContact) -> None:
    """A deleted segment is gone, with its manual changes; the contacts stay."""
    contact = make_contact()
    segment = services.segments.create(account, "Hand-picked")
    services.contacts.add_to_segment(account, contact.id, segment.id)

    services.segments.delete(account, segment.id)

    with pytest.raises(NotFound):
        services.segments.get(account, segment.id)
    assert services.contacts.get(account, contact.id) == contact


def test_no_segments_lists_empty(services: Services, account: int) -> None:
    """An account without segments lists none."""
    assert services.segments.list(account) == []


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


def test_repositories_do_not_link_across_accounts(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Links between rows of different accounts are silently not made (the ids are absent)."""
    with uow.workspace(other) as unit:
        theirs = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        unit.commit()
    with uow.workspace(account) as unit:
        tag = unit.tags.add("vip", NOW)
        newsletter = unit.lists.add("Newsletter", NOW)
        segment = unit.segments.add("Manual", None, SegmentRules("all", ()), NOW)
        unit.segments.include(segment.id, theirs.id)
        results = (
            unit.tags.attach(theirs.id, tag.id),
            unit.lists.add_member(newsletter.id, theirs.id, NOW),
            unit.segments.get(segment.id, NOW),
        )

    assert (results[0], results[1], results[2] and results[2].contacts_count) == (False, False, 0)


def test_notes_of_another_accounts_contact_cannot_be_added(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """The note repository refuses a contact of another account."""
    with uow.workspace(other) as unit:
        theirs = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        unit.commit()

    with uow.workspace(account) as unit, pytest.raises(NotFound):
        unit.notes.add(theirs.id, "sneaky", NOW)


def test_deleting_another_accounts_rows_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """delete() with another account's ids leaves their rows alone."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        tag = unit.tags.add("vip", NOW)
        unit.commit()
    with uow.workspace(account) as unit:
        unit.contacts.delete(contact.id)
        unit.tags.delete(tag.id)
        unit.commit()

    with uow.workspace(other, readonly=True) as unit:
        assert (unit.contacts.get(contact.id) is not None, unit.tags.get(tag.id) is not None) == (True, True)


def _theirs(uow: UnitOfWorkFactory, other: int) -> Contact:
    """A contact of the other account, stored through the port."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        unit.commit()
    return contact


def test_deleting_a_contact_deletes_its_notes(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """A deleted contact's notes are gone with it."""
    contact = make_contact()
    services.contacts.add_note(account, contact.id, "Called twice")
    services.contacts.delete(account, contact.id)

    with uow.workspace(account, readonly=True) as unit:
        assert unit.notes.for_contact(contact.id) == []


def test_deleting_a_contact_unlinks_its_tags(services: Services, account: int, make_contact: MakeContact) -> None:
    """A deleted contact no longer counts on the tags it carried."""
    contact = make_contact(tags=["vip"])

    services.contacts.delete(account, contact.id)

    assert [(t.title, t.contacts_count) for t in services.tags.list(account, ALL_TAGS).items] == [("vip", 0)]


def test_deleting_a_contact_removes_its_list_memberships(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """A deleted contact leaves the lists it was a member of."""
    contact, kept = make_contact(), make_contact()
    newsletter = services.lists.create(account, "Newsletter")
    for member in (contact, kept):
        services.contacts.add_to_list(account, member.id, newsletter.id)

    services.contacts.delete(account, contact.id)

    assert _member_names(services, account, newsletter.id) == [kept.name]


def test_deleting_a_contact_forgets_its_segment_overrides(
    services: Services, account: int, make_contact: MakeContact
) -> None:
    """A deleted contact's manual segment addition is gone with it."""
    contact = make_contact()
    manual = services.segments.create(account, "Manual")
    services.contacts.add_to_segment(account, contact.id, manual.id)

    services.contacts.delete(account, contact.id)

    assert services.segments.get(account, manual.id).contacts_count == 0


def test_count_goes_down_with_a_delete(uow: UnitOfWorkFactory, account: int, make_contact: MakeContact) -> None:
    """count() no longer counts a deleted contact."""
    first, _ = make_contact(), make_contact()
    with uow.workspace(account) as unit:
        unit.contacts.delete(first.id)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.contacts.count() == 1


def test_another_accounts_ids_read_as_none(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """get() of a contact, tag, list or segment of another account is None."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="whatsapp", phone="+966501234567"), NOW)
        tag = unit.tags.add("vip", NOW)
        newsletter = unit.lists.add("Newsletter", NOW)
        segment = unit.segments.add("Manual", None, SegmentRules("all", ()), NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        found = (
            unit.contacts.get(contact.id),
            unit.tags.get(tag.id),
            unit.lists.get(newsletter.id),
            unit.segments.get(segment.id, NOW),
        )

    assert found == (None, None, None, None)


def test_by_phone_and_by_title_see_only_the_account(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """by_phone() and by_title() find nothing of another account."""
    with uow.workspace(other) as unit:
        unit.contacts.add(ContactDraft(name="Theirs", type="whatsapp", phone="+966501234567"), NOW)
        unit.tags.add("vip", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert (unit.contacts.by_phone("whatsapp", "+966501234567"), unit.tags.by_title("vip")) == (None, None)


def test_updating_another_accounts_contact_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """update() of another account's contact leaves it as it was."""
    theirs = _theirs(uow, other)
    with uow.workspace(account) as unit:
        unit.contacts.update(attrs.evolve(theirs, name="Mine now"))
        unit.commit()

    with uow.workspace(other, readonly=True) as unit:
        assert unit.contacts.get(theirs.id) == theirs


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


def test_list_update_stamps_the_update_time(uow: UnitOfWorkFactory, account: int) -> None:
    """lists.update() stores name, status and `updated_at`, keeping `created_at`."""
    later = NOW + timedelta(minutes=1)
    with uow.workspace(account) as unit:
        newsletter = unit.lists.add("Newsletter", NOW)
        unit.lists.update(newsletter.id, "Weekly", 0, later)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.lists.get(newsletter.id) == attrs.evolve(newsletter, name="Weekly", status=0, updated_at=later)


def test_updating_another_accounts_list_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """lists.update() and lists.delete() of another account's list leave it as it was."""
    with uow.workspace(other) as unit:
        theirs = unit.lists.add("Theirs", NOW)
        unit.commit()
    with uow.workspace(account) as unit:
        unit.lists.update(theirs.id, "Mine now", 0, NOW)
        unit.lists.delete(theirs.id)
        unit.commit()

    with uow.workspace(other, readonly=True) as unit:
        assert unit.lists.get(theirs.id) == theirs


def test_another_accounts_list_has_no_members_to_read_or_remove(
    uow: UnitOfWorkFactory, account: int, other: int
) -> None:
    """members() of another account's list is empty and remove_member() of it is False."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        theirs = unit.lists.add("Theirs", NOW)
        unit.lists.add_member(theirs.id, contact.id, NOW)
        unit.commit()

    with uow.workspace(account) as unit:
        page = unit.lists.members(theirs.id, PageRequest())
        removed = unit.lists.remove_member(theirs.id, contact.id)

    assert (list(page.items), page.total, removed) == ([], 0, False)


def test_is_member_follows_rules_and_overrides(uow: UnitOfWorkFactory, account: int) -> None:
    """is_member() is True for a contact the rules match, False once it is excluded by hand."""
    rules = SegmentRules("all", ())
    with uow.workspace(account) as unit:
        contact = unit.contacts.add(ContactDraft(name="Ada", type="instagram"), NOW)
        segment = unit.segments.add("Manual", None, rules, NOW)
        unit.segments.include(segment.id, contact.id)
        included = unit.segments.is_member(segment.id, contact.id, NOW)
        unit.segments.exclude(segment.id, contact.id)
        excluded = unit.segments.is_member(segment.id, contact.id, NOW)

    assert (included, excluded) == (True, False)


def test_another_accounts_segment_has_no_members(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """members() and is_member() of another account's segment find nobody."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        theirs = unit.segments.add("Theirs", None, SegmentRules("all", ()), NOW)
        unit.segments.include(theirs.id, contact.id)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        page = unit.segments.members(theirs.id, PageRequest(), NOW)
        member = unit.segments.is_member(theirs.id, contact.id, NOW)

    assert (list(page.items), page.total, member) == ([], 0, False)


def test_segment_update_stamps_the_update_time(uow: UnitOfWorkFactory, account: int) -> None:
    """segments.update() stores name, description, rules and `updated_at`, keeping `created_at`."""
    later = NOW + timedelta(minutes=1)
    with uow.workspace(account) as unit:
        segment = unit.segments.add("Manual", None, SegmentRules("all", ()), NOW)
        unit.segments.update(segment.id, "Renamed", "Now described", SegmentRules("any", ()), later)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.segments.get(segment.id, later) == attrs.evolve(
            segment, name="Renamed", description="Now described", match="any", updated_at=later
        )


def test_notes_of_another_accounts_contact_are_not_listed(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """for_contact() of another account's contact lists none of its notes."""
    theirs = _theirs(uow, other)
    with uow.workspace(other) as unit:
        unit.notes.add(theirs.id, "Private", NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.notes.for_contact(theirs.id) == []


def test_touch_moves_last_message_at_forward_only(
    services: Services, uow: UnitOfWorkFactory, account: int, make_contact: MakeContact
) -> None:
    """`touch` sets `last_message_at` where it is unset or earlier, and never moves it back."""
    fresh, recent = make_contact(name="Fresh"), make_contact(name="Recent")
    with uow.workspace(account) as unit:
        unit.contacts.touch([recent.id], NOW + timedelta(hours=2))
        unit.contacts.touch([fresh.id, recent.id], NOW + timedelta(hours=1))
        unit.commit()

    assert services.contacts.get(account, fresh.id).last_message_at == NOW + timedelta(hours=1)
    assert services.contacts.get(account, recent.id).last_message_at == NOW + timedelta(hours=2)
    assert services.contacts.get(account, fresh.id).updated_at == fresh.updated_at


def test_get_many_reads_the_accounts_contacts_with_their_tags(
    services: Services, uow: UnitOfWorkFactory, account: int, other: int, make_contact: MakeContact
) -> None:
    """`get_many` returns the account's contacts among the ids, tagged, and leaves out others and unknown ids."""
    tagged, plain = make_contact(name="Tagged"), make_contact(name="Plain")
    tag = services.tags.create(account, "VIP")
    with uow.workspace(account) as unit:
        unit.tags.attach(tagged.id, tag.id)
        unit.commit()
    theirs = _theirs(uow, other)

    with uow.workspace(account, readonly=True) as unit:
        found = unit.contacts.get_many([tagged.id, plain.id, theirs.id, 999_999, tagged.id])
        assert unit.contacts.get_many([]) == {}

    assert found == {
        tagged.id: services.contacts.get(account, tagged.id),
        plain.id: services.contacts.get(account, plain.id),
    }
    assert found[tagged.id].tags == ("VIP",)
