"""Contacts and notes: the contacts repository and service, their events and counts, and
their tenancy (another account's rows behave as absent), on every adapter."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest
from support import NOW, MakeContact

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


def _theirs(uow: UnitOfWorkFactory, other: int) -> Contact:
    """A contact of the other account, stored through the port."""
    with uow.workspace(other) as unit:
        contact = unit.contacts.add(ContactDraft(name="Theirs", type="instagram"), NOW)
        unit.commit()
    return contact


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
