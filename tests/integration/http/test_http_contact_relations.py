"""A contact's notes, tags, and list and segment memberships (SPEC 4, Contacts)."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Contact, Note
from engage_core.contacts.segments import Segment
from engage_core.contacts.tags import Tag
from engage_core.testing import FakeClock

# -- notes ------------------------------------------------------------------------------------------


def test_add_note_answers_201_with_the_note(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`POST /contacts/{id}/notes` stores the note and renders it."""
    contact = make_contact(tenant)

    response = api.post(f"/contacts/{contact.id}/notes", json={"content": "Called back."})

    assert response.status_code == 201
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "contact_id": contact.id,
        "content": "Called back.",
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }


def test_add_note_requires_content(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """A note without content is a 422."""
    contact = make_contact(tenant)

    response = api.post(f"/contacts/{contact.id}/notes", json={"content": "  "})

    assert response.json()["errors"] == {"content": ["The content field is required."]}


def test_add_note_to_a_missing_contact_is_404(api: Api) -> None:
    """A note on an unknown contact is a 404."""
    assert api.post("/contacts/9999/notes", json={"content": "x"}).status_code == 404


def test_notes_are_listed_newest_first(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_note: Callable[..., Note], clock: FakeClock
) -> None:
    """`GET /contacts/{id}/notes` lists the notes, newest first."""
    contact = make_contact(tenant)
    old = make_note(tenant, contact, "old")
    clock.advance(minutes=1)
    new = make_note(tenant, contact, "new")

    assert [n["id"] for n in api.get(f"/contacts/{contact.id}/notes").json()["data"]] == [new.id, old.id]


def test_notes_of_a_missing_contact_is_404(api: Api) -> None:
    """Notes of an unknown contact are a 404."""
    assert api.get("/contacts/9999/notes").status_code == 404


# -- tags -------------------------------------------------------------------------------------------


def test_assign_tag_by_title_creates_it(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`{title}` finds or creates the tag and assigns it."""
    contact = make_contact(tenant)

    response = api.post(f"/contacts/{contact.id}/tags", json={"title": "VIP"})

    assert response.status_code == 200
    assert response.json()["data"]["title"] == "VIP"
    assert response.json()["data"]["contacts_count"] == 1
    assert api.get(f"/contacts/{contact.id}").json()["data"]["tags"] == ["VIP"]


def test_assign_tag_by_id(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_tag: Callable[..., Tag]
) -> None:
    """`{tag_id}` assigns an existing tag."""
    contact, tag = make_contact(tenant), make_tag(tenant, "Lead")

    assert api.post(f"/contacts/{contact.id}/tags", json={"tag_id": tag.id}).json()["data"]["id"] == tag.id


def test_assign_tag_is_idempotent(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """Assigning a tag twice leaves one assignment."""
    contact = make_contact(tenant)
    api.post(f"/contacts/{contact.id}/tags", json={"title": "VIP"})

    response = api.post(f"/contacts/{contact.id}/tags", json={"title": "vip"})

    assert response.json()["data"]["contacts_count"] == 1


def test_assign_tag_needs_exactly_one_of_id_or_title(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """Both or neither of `tag_id` and `title` is a 422 on both fields."""
    contact = make_contact(tenant)

    both = api.post(f"/contacts/{contact.id}/tags", json={"tag_id": 1, "title": "VIP"})
    neither = api.post(f"/contacts/{contact.id}/tags", json={})

    assert set(both.json()["errors"]) == set(neither.json()["errors"]) == {"tag_id", "title"}


def test_assign_an_unknown_tag_id_is_404(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """An unknown `tag_id` is a 404."""
    contact = make_contact(tenant)

    response = api.post(f"/contacts/{contact.id}/tags", json={"tag_id": 9999})

    assert response.status_code == 404
    assert response.json()["message"] == "Tag not found."


def test_remove_tag_answers_204(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`DELETE /contacts/{id}/tags/{tag_id}` unassigns the tag."""
    contact = make_contact(tenant, tags=["VIP"])
    tag_id = api.get("/tags").json()["data"][0]["id"]

    assert api.delete(f"/contacts/{contact.id}/tags/{tag_id}").status_code == 204
    assert api.get(f"/contacts/{contact.id}").json()["data"]["tags"] == []


def test_remove_an_unknown_tag_is_404(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """Unassigning an unknown tag is a 404."""
    contact = make_contact(tenant)

    assert api.delete(f"/contacts/{contact.id}/tags/9999").status_code == 404


# -- lists ------------------------------------------------------------------------------------------


def test_add_to_list_answers_the_membership(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_list: Callable[..., ContactList]
) -> None:
    """`POST /contacts/{id}/lists` answers 200 with `{contact_id, list_id}` and a message."""
    contact, contact_list = make_contact(tenant), make_list(tenant)

    response = api.post(f"/contacts/{contact.id}/lists", json={"list_id": contact_list.id})

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {"contact_id": contact.id, "list_id": contact_list.id},
        "message": "Contact added to the list.",
    }


def test_add_to_list_twice_says_so(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_list: Callable[..., ContactList]
) -> None:
    """Adding a member again is accepted and says the contact was already there."""
    contact, contact_list = make_contact(tenant), make_list(tenant)
    api.post(f"/contacts/{contact.id}/lists", json={"list_id": contact_list.id})

    response = api.post(f"/contacts/{contact.id}/lists", json={"list_id": contact_list.id})

    assert response.json()["message"] == "Contact is already in the list."


def test_add_to_an_unknown_list_is_404(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """An unknown `list_id` is a 404."""
    contact = make_contact(tenant)

    assert api.post(f"/contacts/{contact.id}/lists", json={"list_id": 9999}).status_code == 404


def test_add_to_list_requires_list_id(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`list_id` is required."""
    contact = make_contact(tenant)

    response = api.post(f"/contacts/{contact.id}/lists", json={})

    assert response.json()["errors"] == {"list_id": ["The list_id field is required."]}


def test_remove_from_list_answers_204(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services_add_to_list: Callable[..., int]
) -> None:
    """`DELETE /contacts/{id}/lists/{list_id}` removes the membership."""
    contact = make_contact(tenant)
    list_id = services_add_to_list(tenant, [contact])

    assert api.delete(f"/contacts/{contact.id}/lists/{list_id}").status_code == 204
    assert api.get(f"/contacts/lists/{list_id}").json()["data"]["contacts_count"] == 0


def test_remove_a_non_member_is_idempotent(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_list: Callable[..., ContactList]
) -> None:
    """Removing a contact that is not a member is a 204 like the first removal."""
    contact, contact_list = make_contact(tenant), make_list(tenant)

    assert api.delete(f"/contacts/{contact.id}/lists/{contact_list.id}").status_code == 204


def test_remove_from_an_unknown_list_is_404(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """Removing from an unknown list is a 404 naming the list."""
    contact = make_contact(tenant)

    response = api.delete(f"/contacts/{contact.id}/lists/9999")

    assert response.status_code == 404
    assert response.json()["message"] == "List not found."


# -- segments ---------------------------------------------------------------------------------------


def test_add_to_segment_answers_the_membership(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_segment: Callable[..., Segment]
) -> None:
    """`POST /contacts/{id}/segments` answers `{contact_id, segment_id}` and a message."""
    contact, segment = make_contact(tenant), make_segment(tenant)

    response = api.post(f"/contacts/{contact.id}/segments", json={"segment_id": segment.id})

    assert response.status_code == 200
    assert response.json()["data"] == {"contact_id": contact.id, "segment_id": segment.id}
    assert response.json()["message"] == "Contact added to the segment."


def test_add_to_an_unknown_segment_is_404(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """An unknown `segment_id` is a 404."""
    contact = make_contact(tenant)

    assert api.post(f"/contacts/{contact.id}/segments", json={"segment_id": 9999}).status_code == 404


def test_add_to_segment_requires_an_integer_id(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`segment_id` must be an integer."""
    contact = make_contact(tenant)

    assert api.post(f"/contacts/{contact.id}/segments", json={"segment_id": "1"}).status_code == 422


def test_remove_from_segment_answers_204(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_segment: Callable[..., Segment]
) -> None:
    """`DELETE /contacts/{id}/segments/{segment_id}` removes the contact, even one the rules select."""
    contact = make_contact(tenant, name="Ada")
    segment = make_segment(tenant, conditions=[{"field": "name", "operator": "contains", "value": "ada"}])

    assert api.delete(f"/contacts/{contact.id}/segments/{segment.id}").status_code == 204
    assert api.get(f"/contacts/segments/{segment.id}/members").json()["data"] == []


def test_remove_from_an_unknown_segment_is_404(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """Removing from an unknown segment is a 404 naming the segment."""
    contact = make_contact(tenant)

    response = api.delete(f"/contacts/{contact.id}/segments/9999")

    assert response.status_code == 404
    assert response.json()["message"] == "Segment not found."
