"""Contacts through ContactService and the SQL contact repository (reference: engage_core.testing)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta

import attrs
import pytest

from engage_core.contacts.contact_service import ContactInput, ContactPatch
from engage_core.contacts.model import Contact, ContactDraft, ContactFilter
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_sql import Database

from .conftest import START

MakeContact = Callable[..., Contact]


def _names(services: Services, account: int, filters: ContactFilter | None = None) -> list[str]:
    page = services.contacts.find(account, filters or ContactFilter(), PageRequest(per_page=100))
    return [c.name for c in page.items]


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


def test_find_costs_one_statement(
    services: Services, account: int, make_contact: MakeContact, statements: list[str]
) -> None:
    """A page of contacts with tags is one statement (rows, tags and total), whatever its size."""
    for n in range(20):
        make_contact(tags=[f"tag {n}", "common"])
    statements.clear()

    page = services.contacts.find(account, ContactFilter(), PageRequest(per_page=15))

    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert (len(page.items), page.total, len(queries)) == (15, 20, 1)
    assert all(len(c.tags) == 2 for c in page.items)


def test_filtered_find_costs_two_statements(
    services: Services, account: int, make_contact: MakeContact, statements: list[str]
) -> None:
    """A filtered page is one COUNT of the matches and one page query, whatever its size."""
    for n in range(20):
        make_contact(tags=[f"tag {n}", "common"])
    statements.clear()

    page = services.contacts.find(account, ContactFilter(tag="common"), PageRequest(per_page=15))

    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert (len(page.items), page.total, len(queries)) == (15, 20, 2)
    assert all(len(c.tags) == 2 for c in page.items)


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
    services: Services, database: Database, account: int, make_contact: MakeContact
) -> None:
    """Create, update and delete each write their event to the outbox."""
    contact = make_contact()
    services.contacts.update(account, contact.id, ContactPatch(name="Renamed"))
    services.contacts.delete(account, contact.id)

    events = database.outbox_events(account)
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


def test_database_refuses_a_duplicate_phone_the_caller_missed(database: Database, account: int) -> None:
    """The unique constraint is the last word: add() raises ValidationFailed and the transaction stays usable."""
    draft = ContactDraft(name="Ada", type="whatsapp", phone="+966501234567")
    with database.uow.workspace(account) as uow:
        uow.contacts.add(draft, START)
        with pytest.raises(ValidationFailed, match="phone already exists"):
            uow.contacts.add(attrs.evolve(draft, name="Twin"), START)
        uow.contacts.add(attrs.evolve(draft, name="Other", phone="+966501234568"), START)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.contacts.count() == 2


def test_database_refuses_a_phone_update_onto_another_contact(database: Database, account: int) -> None:
    """update() onto a taken phone raises ValidationFailed and leaves the transaction usable."""
    with database.uow.workspace(account) as uow:
        ada = uow.contacts.add(ContactDraft(name="Ada", type="whatsapp", phone="+966501234567"), START)
        bob = uow.contacts.add(ContactDraft(name="Bob", type="whatsapp", phone="+966501234568"), START)
        with pytest.raises(ValidationFailed, match="phone already exists"):
            uow.contacts.update(attrs.evolve(bob, phone=ada.phone))
        uow.contacts.update(attrs.evolve(bob, name="Robert"))
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert [c.name for c in uow.contacts.find(ContactFilter(), PageRequest()).items] == ["Robert", "Ada"]


def test_by_phone_finds_the_contact_of_that_type(
    services: Services, database: Database, account: int, make_contact: MakeContact
) -> None:
    """by_phone() looks up one channel type's contact by its E.164 phone."""
    contact = make_contact(phone="+966501234567", tags=["vip"])

    with database.uow.workspace(account, readonly=True) as uow:
        assert (
            uow.contacts.by_phone("whatsapp", "+966501234567"),
            uow.contacts.by_phone("telegram", "+966501234567"),
        ) == (
            contact,
            None,
        )


def test_update_stores_every_scalar_field(database: Database, account: int) -> None:
    """The repository's update() writes every field of the entity, timestamps included."""
    with database.uow.workspace(account) as uow:
        contact = uow.contacts.add(ContactDraft(name="Ada", type="instagram"), START)
        changed = attrs.evolve(
            contact,
            name="Ada L.",
            email="ada@example.com",
            status="inactive",
            blacklisted=True,
            last_message_at=START + timedelta(hours=1, microseconds=7),
            updated_at=START + timedelta(hours=2),
            source="import",
            company="Engines",
            address="London",
            country_id=826,
        )
        uow.contacts.update(changed)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.contacts.get(contact.id) == changed


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


def test_delete_cascades_to_links(
    services: Services, database: Database, account: int, make_contact: MakeContact
) -> None:
    """Deleting a contact removes its notes, tag links, list memberships and segment overrides."""
    contact = make_contact(tags=["vip"])
    services.contacts.add_note(account, contact.id, "Called twice")
    newsletter = services.lists.create(account, "Newsletter")
    services.contacts.add_to_list(account, contact.id, newsletter.id)
    manual = services.segments.create(account, "Manual")
    services.contacts.add_to_segment(account, contact.id, manual.id)

    services.contacts.delete(account, contact.id)

    tag = services.tags.list(account)[0]
    left = (
        tag.contacts_count,
        services.lists.get(account, newsletter.id).contacts_count,
        services.segments.get(account, manual.id).contacts_count,
    )
    assert left == (0, 0, 0)
    with database.engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM contact_notes").scalar() == 0


def test_count_counts_the_accounts_contacts(database: Database, account: int, make_contact: MakeContact) -> None:
    """count() is the number of the account's contacts."""
    for _ in range(3):
        make_contact()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.contacts.count() == 3


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


def test_concurrent_creates_of_one_phone_make_one_contact(services: Services, database: Database, account: int) -> None:
    """Two requests racing to create the same phone: one contact, and the loser gets a phone error."""
    outcomes: list[str] = []

    def create(name: str) -> None:
        try:
            services.contacts.create(account, ContactInput(name=name, type="whatsapp", phone="+966501234567"))
            outcomes.append("created")
        except ValidationFailed as exc:
            outcomes.append(next(iter(exc.errors)))

    threads = [threading.Thread(target=create, args=(f"Racer {n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (sorted(outcomes), uow.contacts.count()) == (["created", "phone", "phone", "phone"], 1)
