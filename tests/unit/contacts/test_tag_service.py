"""TagService and tag assignment on contacts (SPEC 4 Tags; POST/DELETE /contacts/{id}/tags)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, multiple, rule

from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import Contact, ContactInput
from engage_core.contacts.tags import title_key
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory

from ..factories import START

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""

NewContact = Callable[..., Contact]


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def updated_events(store: InMemoryStore) -> int:
    return sum(1 for e in store.events() if e.name == "contact.updated")


# -- TagService ------------------------------------------------------------------------------------


def test_create_returns_a_trimmed_tag_without_contacts(services: Services, account_id: int) -> None:
    """A new tag keeps its trimmed title, has no contacts, and is stamped now."""
    tag = services.tags.create(account_id, "  VIP ")
    assert (tag.title, tag.contacts_count, tag.created_at) == ("VIP", 0, START)


def test_create_accepts_100_characters(services: Services, account_id: int) -> None:
    """A 100-character title is accepted (SPEC 8)."""
    assert services.tags.create(account_id, "x" * 100).title == "x" * 100


@pytest.mark.parametrize("title", ["", "   ", "x" * 101])
def test_create_rejects_blank_or_long_titles(services: Services, account_id: int, title: str) -> None:
    """A blank or 101-character title is refused on `title`."""
    assert list(errors_of(lambda: services.tags.create(account_id, title))) == ["title"]


def test_create_rejects_a_duplicate_title_in_any_case(services: Services, account_id: int) -> None:
    """Titles are unique per account regardless of case."""
    services.tags.create(account_id, "VIP")
    assert list(errors_of(lambda: services.tags.create(account_id, " vip"))) == ["title"]


def test_same_title_in_two_accounts_is_allowed(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """Tag uniqueness is per account."""
    services.tags.create(account_id, "VIP")
    assert services.tags.create(new_account("Other"), "VIP").title == "VIP"


def test_list_shows_contacts_count(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`list` returns every tag with the number of contacts carrying it, in creation order."""
    new_contact("A", tags=["vip", "lead"])
    new_contact("B", tags=["vip"])
    services.tags.create(account_id, "unused")
    assert [(t.title, t.contacts_count) for t in services.tags.list(account_id, ALL_TAGS).items] == [
        ("vip", 2),
        ("lead", 1),
        ("unused", 0),
    ]


def test_list_shows_only_the_accounts_tags(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """Another account's tags are not listed."""
    services.tags.create(new_account("Other"), "theirs")
    assert services.tags.list(account_id, ALL_TAGS).items == []


def test_get_shows_contacts_count(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`get` returns the tag with its contacts_count."""
    new_contact(tags=["vip"])
    [tag] = services.tags.list(account_id, ALL_TAGS).items
    assert services.tags.get(account_id, tag.id).contacts_count == 1


def test_get_unknown_tag_is_not_found(services: Services, account_id: int) -> None:
    """An unknown tag id raises NotFound."""
    with pytest.raises(NotFound):
        services.tags.get(account_id, 999)


def test_get_other_accounts_tag_is_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Another account's tag behaves as nonexistent."""
    theirs = services.tags.create(new_account("Other"), "vip")
    with pytest.raises(NotFound):
        services.tags.get(new_account("Mine"), theirs.id)


def test_rename_shows_everywhere(services: Services, account_id: int, new_contact: NewContact) -> None:
    """After a rename every contact carrying the tag shows the new title."""
    a, b = new_contact("A", tags=["vip"]), new_contact("B", tags=["vip"])
    [tag] = services.tags.list(account_id, ALL_TAGS).items
    services.tags.rename(account_id, tag.id, "Gold")
    assert [services.contacts.get(account_id, c.id).tags for c in (a, b)] == [("Gold",), ("Gold",)]


def test_rename_keeps_the_contacts(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A rename neither adds nor removes contacts: the count is unchanged."""
    new_contact("A", tags=["vip"])
    [tag] = services.tags.list(account_id, ALL_TAGS).items
    assert services.tags.rename(account_id, tag.id, "Gold").contacts_count == 1


def test_rename_to_its_own_title_in_another_case(services: Services, account_id: int) -> None:
    """A tag may be renamed to a different casing of its own title."""
    tag = services.tags.create(account_id, "vip")
    assert services.tags.rename(account_id, tag.id, "VIP").title == "VIP"


def test_rename_to_another_tags_title_is_refused(services: Services, account_id: int) -> None:
    """Renaming onto another tag's title (any case) is refused on `title`."""
    services.tags.create(account_id, "VIP")
    lead = services.tags.create(account_id, "lead")
    assert list(errors_of(lambda: services.tags.rename(account_id, lead.id, "vip"))) == ["title"]


@pytest.mark.parametrize("title", ["", "x" * 101])
def test_rename_checks_the_title(services: Services, account_id: int, title: str) -> None:
    """A rename to a blank or too-long title is refused on `title`."""
    tag = services.tags.create(account_id, "vip")
    assert list(errors_of(lambda: services.tags.rename(account_id, tag.id, title))) == ["title"]


def test_rename_unknown_tag_is_not_found(services: Services, account_id: int) -> None:
    """Renaming an unknown tag raises NotFound."""
    with pytest.raises(NotFound):
        services.tags.rename(account_id, 999, "x")


def test_rename_keeps_segments_on_the_tag(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A segment selecting `tag has vip` still selects the same contacts after `vip` is renamed."""
    new_contact(tags=["vip"])
    [tag] = services.tags.list(account_id, ALL_TAGS).items
    segment = services.segments.create(
        account_id, "VIPs", conditions=[{"field": "tag", "operator": "has", "value": "vip"}]
    )
    services.tags.rename(account_id, tag.id, "Gold")
    assert services.segments.get(account_id, segment.id).contacts_count == 1


def test_delete_removes_the_tag_from_every_contact(
    services: Services, account_id: int, new_contact: NewContact
) -> None:
    """Deleting a tag removes it from all contacts (SPEC 4)."""
    a, b = new_contact("A", tags=["vip", "lead"]), new_contact("B", tags=["vip"])
    vip = next(t for t in services.tags.list(account_id, ALL_TAGS).items if t.title == "vip")
    services.tags.delete(account_id, vip.id)
    assert [services.contacts.get(account_id, c.id).tags for c in (a, b)] == [("lead",), ()]


def test_delete_keeps_the_contacts(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Deleting a tag deletes no contact."""
    contact = new_contact(tags=["vip"])
    [tag] = services.tags.list(account_id, ALL_TAGS).items
    services.tags.delete(account_id, tag.id)
    assert services.contacts.get(account_id, contact.id).id == contact.id


def test_deleted_tag_is_gone(services: Services, account_id: int) -> None:
    """A deleted tag is not found afterwards."""
    tag = services.tags.create(account_id, "vip")
    services.tags.delete(account_id, tag.id)
    with pytest.raises(NotFound):
        services.tags.get(account_id, tag.id)


def test_delete_other_accounts_tag_is_not_found(services: Services, new_account: Callable[..., int]) -> None:
    """Deleting another account's tag raises NotFound and the tag survives."""
    other = new_account("Other")
    theirs = services.tags.create(other, "vip")
    with pytest.raises(NotFound):
        services.tags.delete(new_account("Mine"), theirs.id)
    assert services.tags.get(other, theirs.id).title == "vip"


# -- assign and remove -----------------------------------------------------------------------------


@pytest.mark.parametrize("assignment", [TagAssignment(), TagAssignment(tag_id=1, title="vip")], ids=["neither", "both"])
def test_assign_takes_exactly_one_of_tag_id_or_title(
    services: Services, account_id: int, new_contact: NewContact, assignment: TagAssignment
) -> None:
    """Neither or both of tag_id and title is refused, naming both fields."""
    contact = new_contact()
    errors = errors_of(lambda: services.contacts.assign_tag(account_id, contact.id, assignment))
    assert set(errors) == {"tag_id", "title"}


def test_assign_by_title_creates_a_missing_tag(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Assigning an unknown title creates the tag and attaches it."""
    contact = new_contact()
    tag = services.contacts.assign_tag(account_id, contact.id, TagAssignment(title=" vip "))
    assert (tag.title, tag.contacts_count) == ("vip", 1)
    assert services.contacts.get(account_id, contact.id).tags == ("vip",)


def test_assign_by_title_reuses_the_tag_in_any_case(
    services: Services, account_id: int, new_contact: NewContact
) -> None:
    """Assigning `vip` when `VIP` exists attaches `VIP` and creates nothing."""
    existing = services.tags.create(account_id, "VIP")
    contact = new_contact()
    assert services.contacts.assign_tag(account_id, contact.id, TagAssignment(title="vip")).id == existing.id
    assert len(services.tags.list(account_id, ALL_TAGS).items) == 1


def test_assign_by_id_attaches_the_tag(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Assigning by tag_id attaches that tag."""
    tag = services.tags.create(account_id, "vip")
    contact = new_contact()
    services.contacts.assign_tag(account_id, contact.id, TagAssignment(tag_id=tag.id))
    assert services.contacts.get(account_id, contact.id).tags == ("vip",)


def test_assign_unknown_tag_id_is_not_found(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Assigning a tag_id that does not exist raises NotFound (it does not create a tag)."""
    contact = new_contact()
    with pytest.raises(NotFound):
        services.contacts.assign_tag(account_id, contact.id, TagAssignment(tag_id=999))


def test_assign_other_accounts_tag_id_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Another account's tag cannot be attached by id."""
    theirs = services.tags.create(new_account("Other"), "vip")
    contact = new_contact()
    with pytest.raises(NotFound):
        services.contacts.assign_tag(account_id, contact.id, TagAssignment(tag_id=theirs.id))


@pytest.mark.parametrize("title", ["", "  ", "x" * 101])
def test_assign_checks_the_title(services: Services, account_id: int, new_contact: NewContact, title: str) -> None:
    """A blank or too-long title is refused on `title`."""
    contact = new_contact()
    errors = errors_of(lambda: services.contacts.assign_tag(account_id, contact.id, TagAssignment(title=title)))
    assert list(errors) == ["title"]


def test_assign_is_idempotent(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Assigning the same tag twice leaves one link and a count of 1."""
    contact = new_contact()
    services.contacts.assign_tag(account_id, contact.id, TagAssignment(title="vip"))
    tag = services.contacts.assign_tag(account_id, contact.id, TagAssignment(title="VIP"))
    assert (services.contacts.get(account_id, contact.id).tags, tag.contacts_count) == (("vip",), 1)


def test_repeated_assign_emits_no_second_event(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """Only the assignment that changes the contact records contact.updated."""
    contact = new_contact()
    services.contacts.assign_tag(account_id, contact.id, TagAssignment(title="vip"))
    services.contacts.assign_tag(account_id, contact.id, TagAssignment(title="vip"))
    assert updated_events(store) == 1


def test_assign_touches_the_contact(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore, clock: FakeClock
) -> None:
    """A new tag bumps the contact's updated_at and the event carries the tag."""
    contact = new_contact()
    later = clock.advance(minutes=5)
    services.contacts.assign_tag(account_id, contact.id, TagAssignment(title="vip"))
    assert services.contacts.get(account_id, contact.id).updated_at == later
    assert store.events()[-1].payload["tags"] == ["vip"]


def test_failed_assign_emits_nothing(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """A refused assignment records no event and creates no tag."""
    contact = new_contact()
    before = len(store.events())
    with pytest.raises(ValidationFailed):
        services.contacts.assign_tag(account_id, contact.id, TagAssignment(title="x" * 101))
    assert (len(store.events()), services.tags.list(account_id, ALL_TAGS).items) == (before, [])


def test_remove_detaches_the_tag(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Removing a tag from a contact detaches it; the tag remains."""
    contact = new_contact(tags=["vip"])
    [tag] = services.tags.list(account_id, ALL_TAGS).items
    services.contacts.remove_tag(account_id, contact.id, tag.id)
    assert services.contacts.get(account_id, contact.id).tags == ()
    assert services.tags.get(account_id, tag.id).contacts_count == 0


def test_remove_of_an_absent_tag_is_a_quiet_no_op(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """Removing a tag the contact does not carry succeeds and records no event."""
    contact = new_contact()
    tag = services.tags.create(account_id, "vip")
    before = updated_events(store)
    services.contacts.remove_tag(account_id, contact.id, tag.id)
    assert updated_events(store) == before


def test_remove_unknown_tag_is_not_found(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Removing a tag id that does not exist raises NotFound."""
    contact = new_contact()
    with pytest.raises(NotFound):
        services.contacts.remove_tag(account_id, contact.id, 999)


# -- the state machine -----------------------------------------------------------------------------

TITLES = ["vip", "lead", "Straße", "cold"]
CASINGS: list[Callable[[str], str]] = [str, str.upper, str.lower, str.title, lambda t: f"  {t} "]


class TagAssignmentMachine(RuleBasedStateMachine):
    """Assign, remove, create, rename and delete tags on three contacts; compare with a plain model.

    Model: `titles[tag_id] = title` for live tags, `links[contact_id] = {tag_id, ...}`.
    """

    tags = Bundle("tags")

    def __init__(self) -> None:
        super().__init__()
        self.services = Services.build(InMemoryUnitOfWorkFactory(), FakeClock(START))
        self.account = self.services.accounts.create("Acme").account.id
        self.contacts = [
            self.services.contacts.create(self.account, ContactInput(name=n, type="instagram")).id
            for n in ("A", "B", "C")
        ]
        self.titles: dict[int, str] = {}
        self.links: dict[int, set[int]] = {c: set() for c in self.contacts}

    def _live_by_key(self, title: str) -> int | None:
        return next((tid for tid, t in self.titles.items() if title_key(t) == title_key(title)), None)

    @rule(target=tags, base=st.sampled_from(TITLES), casing=st.sampled_from(CASINGS))
    def create(self, base: str, casing: Callable[[str], str]) -> Any:
        title = casing(base)
        if self._live_by_key(title) is not None:
            with pytest.raises(ValidationFailed):
                self.services.tags.create(self.account, title)
            return multiple()
        tag = self.services.tags.create(self.account, title)
        self.titles[tag.id] = title.strip()
        return tag.id

    @rule(target=tags, who=st.integers(0, 2), base=st.sampled_from(TITLES), casing=st.sampled_from(CASINGS))
    def assign_by_title(self, who: int, base: str, casing: Callable[[str], str]) -> Any:
        contact = self.contacts[who]
        title = casing(base)
        existing = self._live_by_key(title)
        tag = self.services.contacts.assign_tag(self.account, contact, TagAssignment(title=title))
        if existing is None:
            self.titles[tag.id] = title.strip()
        else:
            assert tag.id == existing
        assert tag.title == self.titles[tag.id]
        self.links[contact].add(tag.id)
        return tag.id

    @rule(who=st.integers(0, 2), tag=tags)
    def assign_by_id(self, who: int, tag: int) -> None:
        contact = self.contacts[who]
        if tag not in self.titles:
            with pytest.raises(NotFound):
                self.services.contacts.assign_tag(self.account, contact, TagAssignment(tag_id=tag))
            return
        self.services.contacts.assign_tag(self.account, contact, TagAssignment(tag_id=tag))
        self.links[contact].add(tag)

    @rule(who=st.integers(0, 2), tag=tags)
    def remove(self, who: int, tag: int) -> None:
        contact = self.contacts[who]
        if tag not in self.titles:
            with pytest.raises(NotFound):
                self.services.contacts.remove_tag(self.account, contact, tag)
            return
        self.services.contacts.remove_tag(self.account, contact, tag)
        self.links[contact].discard(tag)

    @rule(tag=tags, base=st.sampled_from(TITLES), casing=st.sampled_from(CASINGS))
    def rename(self, tag: int, base: str, casing: Callable[[str], str]) -> None:
        title = casing(base)
        if tag not in self.titles:
            with pytest.raises(NotFound):
                self.services.tags.rename(self.account, tag, title)
            return
        clash = self._live_by_key(title)
        if clash is not None and clash != tag:
            with pytest.raises(ValidationFailed):
                self.services.tags.rename(self.account, tag, title)
            return
        self.services.tags.rename(self.account, tag, title)
        self.titles[tag] = title.strip()

    @rule(tag=tags)
    def delete(self, tag: int) -> None:
        if tag not in self.titles:
            with pytest.raises(NotFound):
                self.services.tags.delete(self.account, tag)
            return
        self.services.tags.delete(self.account, tag)
        del self.titles[tag]
        for linked in self.links.values():
            linked.discard(tag)

    @invariant()
    def contacts_carry_the_model_tags(self) -> None:
        for contact, linked in self.links.items():
            shown = self.services.contacts.get(self.account, contact).tags
            assert sorted(shown) == sorted(self.titles[t] for t in linked)

    @invariant()
    def counts_match_the_contacts_carrying_each_tag(self) -> None:
        listed = {t.id: t.contacts_count for t in self.services.tags.list(self.account, ALL_TAGS).items}
        expected = {tid: sum(tid in linked for linked in self.links.values()) for tid in self.titles}
        assert listed == expected

    @invariant()
    def titles_are_unique_ignoring_case(self) -> None:
        keys = [title_key(t.title) for t in self.services.tags.list(self.account, ALL_TAGS).items]
        assert len(keys) == len(set(keys))


TagAssignmentMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=30, deadline=None)
test_tag_assignment_machine = TagAssignmentMachine.TestCase
test_tag_assignment_machine.__doc__ = "Tag sets, counts and unique titles always agree with a simple model."
