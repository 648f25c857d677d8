"""ContactService: create, read, search, update, blacklist, delete and notes (SPEC 4 Contacts)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import attrs
import pytest

from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.fakes import ContactsTables
from engage_core.contacts.model import Contact, ContactFilter, ContactInput, ContactPatch
from engage_core.contacts.tags import TAGS_MAX
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.kernel.unset import UNSET
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryStore

from ..factories import START

ALL_TAGS = PageRequest(per_page=100)
"""Every tag of a test's workspace: one page."""

NewContact = Callable[..., Contact]

PHONE = "+966501234567"

CREATED_FIELDS = {
    "id",
    "name",
    "email",
    "phone",
    "type",
    "status",
    "is_blacklist",
    "source",
    "company",
    "address",
    "country_id",
    "created_at",
    "updated_at",
}
"""contact.created/updated data fields of SPEC 6."""

DOCUMENTED_EXTRA_FIELDS = {"tags", "last_message_at"}
"""Added by engage beyond SPEC 6 (additive, SPEC 9.4): the tag titles and the last message time."""


def events(store: InMemoryStore, name: str | None = None) -> list[DomainEvent]:
    return [e for e in store.events() if name is None or e.name == name]


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def search(services: Services, account_id: int, **filters: Any) -> list[int]:
    page = services.contacts.find(account_id, ContactFilter(**filters), PageRequest(per_page=100))
    return [c.id for c in page.items]


# -- create ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["whatsapp", "telegram"])
def test_phone_is_required_for_phone_channels(services: Services, account_id: int, kind: str) -> None:
    """A whatsapp or telegram contact without a phone is refused on `phone`."""
    errors = errors_of(lambda: services.contacts.create(account_id, ContactInput(name="Ada", type=kind)))
    assert list(errors) == ["phone"]


def test_phone_is_optional_for_instagram(services: Services, account_id: int) -> None:
    """An instagram contact needs no phone."""
    contact = services.contacts.create(account_id, ContactInput(name="Ada", type="instagram"))
    assert contact.phone is None


@pytest.mark.parametrize("raw", ["+966 50 123 4567", "00966501234567", "+966-50-123-4567"])
def test_phone_is_stored_in_e164(services: Services, account_id: int, raw: str) -> None:
    """Whatever the input format, the stored phone is E.164."""
    contact = services.contacts.create(account_id, ContactInput(name="Ada", type="whatsapp", phone=raw))
    assert services.contacts.get(account_id, contact.id).phone == PHONE


def test_invalid_phone_is_refused(services: Services, account_id: int) -> None:
    """A phone that is not a valid international number is refused on `phone`."""
    errors = errors_of(lambda: services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone="12345")))
    assert list(errors) == ["phone"]


def test_create_reports_every_field_error_at_once(services: Services, account_id: int) -> None:
    """Bad name, type, status, e-mail and phone are all reported in one error."""
    data = ContactInput(name=" ", type="sms", phone="12", email="nope", status="gone")
    assert set(errors_of(lambda: services.contacts.create(account_id, data))) == {
        "name",
        "type",
        "status",
        "email",
        "phone",
    }


def test_missing_phone_is_reported_with_other_field_errors(services: Services, account_id: int) -> None:
    """A blank name and a missing whatsapp phone are reported together."""
    data = ContactInput(name=" ", type="whatsapp")
    assert set(errors_of(lambda: services.contacts.create(account_id, data))) == {"name", "phone"}


def test_bad_tag_is_reported_with_other_field_errors(services: Services, account_id: int) -> None:
    """A blank name and a too-long tag are reported together."""
    data = ContactInput(name=" ", type="instagram", tags=["x" * 101])
    assert set(errors_of(lambda: services.contacts.create(account_id, data))) == {"name", "tags.0"}


def test_more_tags_than_the_limit_are_refused_on_tags(services: Services, account_id: int) -> None:
    """A contact given more than `TAGS_MAX` tags is refused on `tags`, and none is created."""
    data = ContactInput(name="Ada", type="instagram", tags=[f"t{n}" for n in range(TAGS_MAX + 1)])
    assert list(errors_of(lambda: services.contacts.create(account_id, data))) == ["tags"]
    assert services.tags.list(account_id, ALL_TAGS).items == []


def test_an_update_with_more_tags_than_the_limit_is_refused(services: Services, account_id: int) -> None:
    """Replacing a contact's tags with more than `TAGS_MAX` is refused on `tags`."""
    contact = services.contacts.create(account_id, ContactInput(name="Ada", type="instagram"))
    patch = ContactPatch(tags=[f"t{n}" for n in range(TAGS_MAX + 1)])
    assert list(errors_of(lambda: services.contacts.update(account_id, contact.id, patch))) == ["tags"]


def test_duplicate_phone_of_the_same_type_is_refused(services: Services, account_id: int) -> None:
    """A second whatsapp contact with the same phone (in any format) is refused on `phone`."""
    services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone=PHONE))
    duplicate = ContactInput("Eve", "whatsapp", phone="00966 50 123 4567")
    assert list(errors_of(lambda: services.contacts.create(account_id, duplicate))) == ["phone"]


def test_same_phone_on_another_channel_type_is_allowed(services: Services, account_id: int) -> None:
    """The same phone may be used once per channel type."""
    services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone=PHONE))
    assert services.contacts.create(account_id, ContactInput("Ada", "telegram", phone=PHONE)).phone == PHONE


def test_same_phone_in_another_account_is_allowed(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """Phone uniqueness is per account."""
    services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone=PHONE))
    other = new_account("Other")
    assert services.contacts.create(other, ContactInput("Ada", "whatsapp", phone=PHONE)).phone == PHONE


def test_create_trims_and_keeps_optional_fields(services: Services, account_id: int) -> None:
    """Name, e-mail, company and address are stored trimmed; country_id as given."""
    data = ContactInput(
        name="  Ada  ", type="instagram", email=" ada@example.com ", company=" ACME ", address=" 1 Road ", country_id=7
    )
    contact = services.contacts.create(account_id, data)
    assert (contact.name, contact.email, contact.company, contact.address, contact.country_id) == (
        "Ada",
        "ada@example.com",
        "ACME",
        "1 Road",
        7,
    )


def test_new_contact_defaults(services: Services, account_id: int) -> None:
    """A new contact is active, not blacklisted, from the API, without messages, stamped now."""
    contact = services.contacts.create(account_id, ContactInput("Ada", "instagram"))
    assert (contact.status, contact.blacklisted, contact.source, contact.last_message_at) == (
        "active",
        False,
        "api",
        None,
    )
    assert contact.created_at == contact.updated_at == START


def test_create_records_the_source(services: Services, account_id: int) -> None:
    """The caller can say where the contact came from."""
    assert services.contacts.create(account_id, ContactInput("Ada", "instagram"), source="import").source == "import"


def test_create_attaches_tags_creating_missing_ones(services: Services, account_id: int) -> None:
    """Tags given on create are attached; missing tags are created."""
    contact = services.contacts.create(account_id, ContactInput("Ada", "instagram", tags=["vip", "lead"]))
    assert contact.tags == ("lead", "vip")
    assert sorted(t.title for t in services.tags.list(account_id, ALL_TAGS).items) == ["lead", "vip"]


def test_create_reuses_existing_tags_whatever_the_case(services: Services, account_id: int) -> None:
    """A tag title matching an existing tag in another case reuses that tag and its spelling."""
    services.tags.create(account_id, "VIP")
    contact = services.contacts.create(account_id, ContactInput("Ada", "instagram", tags=["vip"]))
    assert contact.tags == ("VIP",)
    assert len(services.tags.list(account_id, ALL_TAGS).items) == 1


def test_create_drops_duplicate_tags_first_spelling_wins(services: Services, account_id: int) -> None:
    """Tags repeated in another case are attached once, with the first spelling."""
    contact = services.contacts.create(account_id, ContactInput("Ada", "instagram", tags=["Vip", " VIP ", "vip"]))
    assert contact.tags == ("Vip",)


def test_create_names_the_bad_tag(services: Services, account_id: int) -> None:
    """A bad tag title is reported on its index (`tags.1`)."""
    data = ContactInput("Ada", "instagram", tags=["ok", " "])
    assert list(errors_of(lambda: services.contacts.create(account_id, data))) == ["tags.1"]


def test_create_emits_contact_created(services: Services, account_id: int, store: InMemoryStore) -> None:
    """Creating a contact records one contact.created event for the account, stamped now."""
    contact = services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone=PHONE))
    assert [(e.name, e.payload["id"], e.occurred_at) for e in store.events(account_id)] == [
        ("contact.created", contact.id, START)
    ]


def test_contact_created_payload_has_the_spec_fields(services: Services, account_id: int, store: InMemoryStore) -> None:
    """contact.created data are the SPEC 6 fields plus only the documented extras (tags, last_message_at)."""
    services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone=PHONE))
    assert set(events(store, "contact.created")[0].payload) == CREATED_FIELDS | DOCUMENTED_EXTRA_FIELDS


def test_contact_created_payload_describes_the_contact(
    services: Services, account_id: int, store: InMemoryStore
) -> None:
    """contact.created data hold the stored values, with `is_blacklist` and ISO timestamps."""
    data = ContactInput("Ada", "whatsapp", phone="+966 50 123 4567", email="ada@example.com", tags=["vip"])
    contact = services.contacts.create(account_id, data)
    assert events(store, "contact.created")[0].payload == {
        "id": contact.id,
        "name": "Ada",
        "email": "ada@example.com",
        "phone": PHONE,
        "type": "whatsapp",
        "status": "active",
        "is_blacklist": False,
        "source": "api",
        "company": None,
        "address": None,
        "country_id": None,
        "tags": ["vip"],
        "last_message_at": None,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }


def test_failed_create_stores_nothing_and_emits_nothing(
    services: Services, account_id: int, store: InMemoryStore
) -> None:
    """A refused create (duplicate phone) leaves no contact, no tag and no event behind."""
    services.contacts.create(account_id, ContactInput("Ada", "whatsapp", phone=PHONE))
    before = len(store.events())
    with pytest.raises(ValidationFailed):
        services.contacts.create(account_id, ContactInput("Eve", "whatsapp", phone=PHONE, tags=["fresh"]))
    assert len(store.events()) == before
    assert services.tags.list(account_id, ALL_TAGS).items == []
    assert search(services, account_id, search="Eve") == []


# -- get -------------------------------------------------------------------------------------------


def test_get_returns_the_contact(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`get` returns the stored contact."""
    contact = new_contact()
    assert services.contacts.get(account_id, contact.id) == contact


def test_get_unknown_contact_is_not_found(services: Services, account_id: int) -> None:
    """An unknown contact id raises NotFound."""
    with pytest.raises(NotFound):
        services.contacts.get(account_id, 999)


def test_get_other_accounts_contact_is_not_found(
    services: Services, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """A contact of another account behaves as nonexistent (404)."""
    theirs = new_contact(account=new_account("Other"))
    mine = new_account("Mine")
    with pytest.raises(NotFound):
        services.contacts.get(mine, theirs.id)


# -- find ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("needle", ["lovelace", "ADA@EX", "+96650"])
def test_search_matches_name_email_or_phone(
    services: Services, account_id: int, new_contact: NewContact, needle: str
) -> None:
    """`search` is a case-insensitive substring of the name, the e-mail or the phone."""
    ada = new_contact("Ada Lovelace", "whatsapp", phone=PHONE, email="ada@example.com")
    new_contact("Grace Hopper", "instagram", email="grace@example.org")
    assert search(services, account_id, search=needle) == [ada.id]


def test_filter_by_type(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`type` keeps contacts of that channel type only."""
    wa = new_contact("A", "whatsapp", phone=PHONE)
    new_contact("B", "instagram")
    assert search(services, account_id, type="whatsapp") == [wa.id]


@pytest.mark.parametrize("blacklisted", [True, False])
def test_filter_by_blacklisted(services: Services, account_id: int, new_contact: NewContact, blacklisted: bool) -> None:
    """`blacklisted` true or false keeps contacts in that state only."""
    listed = new_contact("A")
    clean = new_contact("B")
    services.contacts.toggle_blacklist(account_id, listed.id)
    assert search(services, account_id, blacklisted=blacklisted) == [listed.id if blacklisted else clean.id]


def test_filter_by_tag_ignores_case(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`tag` keeps contacts carrying that tag, whatever the case asked for."""
    vip = new_contact("A", tags=["VIP"])
    new_contact("B", tags=["lead"])
    assert search(services, account_id, tag="vip") == [vip.id]


def test_filters_combine(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Several filters must all hold."""
    target = new_contact("Ada A", "whatsapp", phone=PHONE, tags=["vip"])
    new_contact("Ada B", "instagram", tags=["vip"])
    new_contact("Ada C", "telegram", phone=PHONE)
    assert search(services, account_id, search="ada", type="whatsapp", tag="vip") == [target.id]


def test_find_lists_newest_first(
    services: Services, account_id: int, new_contact: NewContact, clock: FakeClock
) -> None:
    """Contacts come newest first by creation time."""
    old = new_contact("Old")
    clock.advance(minutes=1)
    new = new_contact("New")
    clock.set(START - timedelta(days=1))
    oldest = new_contact("Oldest")
    assert search(services, account_id) == [new.id, old.id, oldest.id]


def test_find_breaks_creation_time_ties_by_id(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Contacts created at the same instant come highest id first."""
    first, second = new_contact("A"), new_contact("B")
    assert search(services, account_id) == [second.id, first.id]


def test_find_paginates(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`find` returns the requested page and the total across pages."""
    ids = [new_contact(f"C{i}").id for i in range(5)]
    page = services.contacts.find(account_id, ContactFilter(), PageRequest(page=2, per_page=2))
    assert ([c.id for c in page.items], page.total, page.last_page) == (ids[::-1][2:4], 5, 3)


def test_find_sees_only_the_accounts_contacts(
    services: Services, account_id: int, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Another account's contacts never appear."""
    mine = new_contact("Mine")
    new_contact("Theirs", account=new_account("Other"))
    assert search(services, account_id) == [mine.id]


# -- update ----------------------------------------------------------------------------------------


def test_update_leaves_unset_fields_alone(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A patch naming only `name` changes only the name (and updated_at)."""
    contact = new_contact("Ada", "whatsapp", phone=PHONE, email="ada@example.com", company="ACME", tags=["vip"])
    updated = services.contacts.update(account_id, contact.id, ContactPatch(name="Ada L."))
    assert updated == attrs.evolve(contact, name="Ada L.")


def test_update_with_explicit_none_clears_email(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`email=None` clears the e-mail, unlike leaving it UNSET."""
    contact = new_contact(email="ada@example.com")
    assert services.contacts.update(account_id, contact.id, ContactPatch(email=None)).email is None


def test_update_with_unset_email_keeps_it(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`email=UNSET` keeps the e-mail."""
    contact = new_contact(email="ada@example.com")
    patch = ContactPatch(email=UNSET, company="ACME")
    assert services.contacts.update(account_id, contact.id, patch).email == "ada@example.com"


def test_update_normalises_the_phone(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A new phone is stored in E.164."""
    contact = new_contact("Ada", "whatsapp", phone="+447911123456")
    patch = ContactPatch(phone="00966 50 123 4567")
    assert services.contacts.update(account_id, contact.id, patch).phone == PHONE


def test_update_cannot_clear_a_required_phone(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Clearing the phone of a whatsapp contact is refused on `phone`."""
    contact = new_contact("Ada", "whatsapp", phone=PHONE)
    assert list(errors_of(lambda: services.contacts.update(account_id, contact.id, ContactPatch(phone=None)))) == [
        "phone"
    ]


def test_update_type_to_a_phone_channel_needs_a_phone(
    services: Services, account_id: int, new_contact: NewContact
) -> None:
    """Turning an instagram contact without phone into a telegram one is refused on `phone`."""
    contact = new_contact()
    patch = ContactPatch(type="telegram")
    assert list(errors_of(lambda: services.contacts.update(account_id, contact.id, patch))) == ["phone"]


def test_update_can_clear_an_optional_phone(services: Services, account_id: int, new_contact: NewContact) -> None:
    """An instagram contact's phone can be cleared."""
    contact = new_contact(phone=PHONE)
    assert services.contacts.update(account_id, contact.id, ContactPatch(phone=None)).phone is None


def test_update_reports_every_field_error_at_once(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Several bad fields in one patch are reported together."""
    contact = new_contact()
    patch = ContactPatch(name="", email="nope", status="gone")
    assert set(errors_of(lambda: services.contacts.update(account_id, contact.id, patch))) == {
        "name",
        "email",
        "status",
    }


def test_update_to_a_taken_phone_is_refused(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Changing the phone to another same-type contact's phone is refused on `phone`."""
    new_contact("Ada", "whatsapp", phone=PHONE)
    eve = new_contact("Eve", "whatsapp", phone="+447911123456")
    patch = ContactPatch(phone=PHONE)
    assert list(errors_of(lambda: services.contacts.update(account_id, eve.id, patch))) == ["phone"]


def test_update_keeping_its_own_phone_is_allowed(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Re-sending the contact's own phone is not a duplicate."""
    ada = new_contact("Ada", "whatsapp", phone=PHONE)
    assert services.contacts.update(account_id, ada.id, ContactPatch(phone="+966 50 123 4567")).phone == PHONE


def test_update_replaces_tags(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Giving `tags` makes them the contact's whole tag set."""
    contact = new_contact(tags=["vip", "lead"])
    updated = services.contacts.update(account_id, contact.id, ContactPatch(tags=["lead", "new"]))
    assert updated.tags == ("lead", "new")


def test_update_with_empty_tags_removes_all(services: Services, account_id: int, new_contact: NewContact) -> None:
    """`tags=[]` removes every tag from the contact (the tags themselves remain)."""
    contact = new_contact(tags=["vip"])
    assert services.contacts.update(account_id, contact.id, ContactPatch(tags=[])).tags == ()
    assert [t.contacts_count for t in services.tags.list(account_id, ALL_TAGS).items] == [0]


def test_update_moves_updated_at_only(
    services: Services, account_id: int, new_contact: NewContact, clock: FakeClock
) -> None:
    """An update stamps updated_at with now and keeps created_at."""
    contact = new_contact()
    later = clock.advance(hours=1)
    updated = services.contacts.update(account_id, contact.id, ContactPatch(name="B"))
    assert (updated.created_at, updated.updated_at) == (START, later)


def test_update_emits_contact_updated(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """An update records contact.updated with the SPEC 6 fields and the new values."""
    contact = new_contact()
    services.contacts.update(account_id, contact.id, ContactPatch(name="Renamed"))
    [event] = events(store, "contact.updated")
    assert set(event.payload) == CREATED_FIELDS | DOCUMENTED_EXTRA_FIELDS
    assert (event.payload["id"], event.payload["name"]) == (contact.id, "Renamed")


def test_failed_update_changes_nothing_and_emits_nothing(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """A patch refused after the fields were applied (bad tag) leaves the contact and the outbox untouched."""
    contact = new_contact(tags=["vip"])
    before = len(store.events())
    with pytest.raises(ValidationFailed):
        services.contacts.update(account_id, contact.id, ContactPatch(name="Changed", tags=["ok", ""]))
    assert services.contacts.get(account_id, contact.id) == contact
    assert len(store.events()) == before


def test_update_unknown_contact_is_not_found(services: Services, account_id: int) -> None:
    """Updating an unknown contact raises NotFound."""
    with pytest.raises(NotFound):
        services.contacts.update(account_id, 999, ContactPatch(name="x"))


def test_update_other_accounts_contact_is_not_found(
    services: Services, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Updating another account's contact raises NotFound and changes nothing."""
    theirs = new_contact(account=new_account("Other"))
    with pytest.raises(NotFound):
        services.contacts.update(new_account("Mine"), theirs.id, ContactPatch(name="x"))


# -- blacklist -------------------------------------------------------------------------------------


def test_blacklist_toggles_on(services: Services, account_id: int, new_contact: NewContact) -> None:
    """The first toggle blacklists the contact."""
    contact = new_contact()
    assert services.contacts.toggle_blacklist(account_id, contact.id).blacklisted is True


def test_blacklist_toggles_back_off(services: Services, account_id: int, new_contact: NewContact) -> None:
    """The second toggle un-blacklists it (SPEC 3)."""
    contact = new_contact()
    services.contacts.toggle_blacklist(account_id, contact.id)
    assert services.contacts.toggle_blacklist(account_id, contact.id).blacklisted is False


def test_blacklist_is_stored(services: Services, account_id: int, new_contact: NewContact) -> None:
    """The toggled flag is what a later read sees."""
    contact = new_contact()
    services.contacts.toggle_blacklist(account_id, contact.id)
    assert services.contacts.get(account_id, contact.id).blacklisted is True


def test_blacklist_emits_contact_updated(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """Each toggle records contact.updated carrying the new `is_blacklist`."""
    contact = new_contact()
    services.contacts.toggle_blacklist(account_id, contact.id)
    services.contacts.toggle_blacklist(account_id, contact.id)
    assert [e.payload["is_blacklist"] for e in events(store, "contact.updated")] == [True, False]


def test_blacklist_other_accounts_contact_is_not_found(
    services: Services, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Toggling another account's contact raises NotFound."""
    theirs = new_contact(account=new_account("Other"))
    with pytest.raises(NotFound):
        services.contacts.toggle_blacklist(new_account("Mine"), theirs.id)


# -- delete ----------------------------------------------------------------------------------------


def test_delete_removes_the_contact(services: Services, account_id: int, new_contact: NewContact) -> None:
    """After delete the contact is not found."""
    contact = new_contact()
    services.contacts.delete(account_id, contact.id)
    with pytest.raises(NotFound):
        services.contacts.get(account_id, contact.id)


def test_delete_removes_notes(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """Deleting a contact deletes its notes."""
    contact = new_contact()
    services.contacts.add_note(account_id, contact.id, "hello")
    services.contacts.delete(account_id, contact.id)
    assert store.state.of(ContactsTables).notes == {}


def test_delete_removes_tag_links(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Deleting a contact unlinks its tags; the tags remain with a lower count."""
    contact = new_contact(tags=["vip"])
    services.contacts.delete(account_id, contact.id)
    assert [(t.title, t.contacts_count) for t in services.tags.list(account_id, ALL_TAGS).items] == [("vip", 0)]


def test_delete_removes_list_memberships(services: Services, account_id: int, new_contact: NewContact) -> None:
    """Deleting a contact removes it from its lists."""
    contact = new_contact()
    listed = services.lists.create(account_id, "L")
    services.contacts.add_to_list(account_id, contact.id, listed.id)
    services.contacts.delete(account_id, contact.id)
    assert services.lists.get(account_id, listed.id).contacts_count == 0
    assert services.lists.members(account_id, listed.id, PageRequest()).items == []


def test_delete_removes_segment_memberships(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore
) -> None:
    """Deleting a contact forgets its manual segment inclusion."""
    contact = new_contact()
    segment = services.segments.create(account_id, "Manual")
    services.contacts.add_to_segment(account_id, contact.id, segment.id)
    services.contacts.delete(account_id, contact.id)
    assert services.segments.get(account_id, segment.id).contacts_count == 0
    assert store.state.of(ContactsTables).segments[segment.id][1].included == set()


def test_delete_frees_the_phone(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A deleted contact's phone can be used again."""
    contact = new_contact("Ada", "whatsapp", phone=PHONE)
    services.contacts.delete(account_id, contact.id)
    assert new_contact("Eve", "whatsapp", phone=PHONE).phone == PHONE


def test_delete_emits_contact_deleted_with_spec_fields(
    services: Services, account_id: int, new_contact: NewContact, store: InMemoryStore, clock: FakeClock
) -> None:
    """contact.deleted carries exactly id, name, phone, email, type and deleted_at (SPEC 6)."""
    contact = new_contact("Ada", "whatsapp", phone=PHONE, email="ada@example.com")
    clock.advance(days=1)
    services.contacts.delete(account_id, contact.id)
    [event] = events(store, "contact.deleted")
    assert event.payload == {
        "id": contact.id,
        "name": "Ada",
        "phone": PHONE,
        "email": "ada@example.com",
        "type": "whatsapp",
        "deleted_at": "2026-01-02T12:00:00.000000Z",
    }


def test_delete_unknown_contact_is_not_found_and_emits_nothing(
    services: Services, account_id: int, store: InMemoryStore
) -> None:
    """Deleting an unknown contact raises NotFound and records no event."""
    with pytest.raises(NotFound):
        services.contacts.delete(account_id, 999)
    assert events(store, "contact.deleted") == []


def test_delete_other_accounts_contact_is_not_found(
    services: Services, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Deleting another account's contact raises NotFound and the contact survives."""
    other = new_account("Other")
    theirs = new_contact(account=other)
    with pytest.raises(NotFound):
        services.contacts.delete(new_account("Mine"), theirs.id)
    assert services.contacts.get(other, theirs.id) == theirs


# -- notes -----------------------------------------------------------------------------------------


def test_add_note_returns_the_note(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A note is stored trimmed, on the contact, stamped now."""
    contact = new_contact()
    note = services.contacts.add_note(account_id, contact.id, "  called back  ")
    assert (note.contact_id, note.content, note.created_at) == (contact.id, "called back", START)


def test_notes_come_newest_first(
    services: Services, account_id: int, new_contact: NewContact, clock: FakeClock
) -> None:
    """Notes are listed newest first."""
    contact = new_contact()
    services.contacts.add_note(account_id, contact.id, "first")
    clock.advance(minutes=1)
    services.contacts.add_note(account_id, contact.id, "second")
    assert [n.content for n in services.contacts.notes(account_id, contact.id)] == ["second", "first"]


def test_notes_at_the_same_instant_come_latest_added_first(
    services: Services, account_id: int, new_contact: NewContact
) -> None:
    """Notes added at the same instant are listed last-added first."""
    contact = new_contact()
    services.contacts.add_note(account_id, contact.id, "first")
    services.contacts.add_note(account_id, contact.id, "second")
    assert [n.content for n in services.contacts.notes(account_id, contact.id)] == ["second", "first"]


def test_notes_belong_to_their_contact(services: Services, account_id: int, new_contact: NewContact) -> None:
    """A contact's notes do not include another contact's."""
    ada, eve = new_contact("Ada"), new_contact("Eve")
    services.contacts.add_note(account_id, ada.id, "for ada")
    assert services.contacts.notes(account_id, eve.id) == []


@pytest.mark.parametrize("content", ["", "   ", "x" * 10_001])
def test_note_content_is_required_and_bounded(
    services: Services, account_id: int, new_contact: NewContact, content: str
) -> None:
    """A blank or over-10,000-character note is refused on `content`."""
    contact = new_contact()
    assert list(errors_of(lambda: services.contacts.add_note(account_id, contact.id, content))) == ["content"]


def test_note_on_unknown_contact_is_not_found(services: Services, account_id: int) -> None:
    """Adding a note to an unknown contact raises NotFound."""
    with pytest.raises(NotFound):
        services.contacts.add_note(account_id, 999, "x")


def test_notes_of_other_accounts_contact_are_not_found(
    services: Services, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Reading notes of another account's contact raises NotFound."""
    theirs = new_contact(account=new_account("Other"))
    with pytest.raises(NotFound):
        services.contacts.notes(new_account("Mine"), theirs.id)


def test_tag_assignment_requires_a_contact_of_the_account(
    services: Services, new_account: Callable[..., int], new_contact: NewContact
) -> None:
    """Tagging another account's contact raises NotFound."""
    theirs = new_contact(account=new_account("Other"))
    with pytest.raises(NotFound):
        services.contacts.assign_tag(new_account("Mine"), theirs.id, TagAssignment(title="vip"))
