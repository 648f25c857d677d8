"""Contact lists (SPEC 4, Lists and segments)."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Contact


def test_list_shows_lists_with_counts(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services_add_to_list: Callable[..., int]
) -> None:
    """`GET /contacts/lists` lists every list with `contacts_count`."""
    services_add_to_list(tenant, [make_contact(tenant), make_contact(tenant)], name="Newsletter")

    [item] = api.get("/contacts/lists").json()["data"]

    assert (item["name"], item["status"], item["contacts_count"]) == ("Newsletter", 1, 2)


def test_create_answers_201_with_the_list(api: Api) -> None:
    """`POST /contacts/lists` creates an active, empty list."""
    response = api.post("/contacts/lists", json={"name": "Newsletter"})

    assert response.status_code == 201
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "name": "Newsletter",
        "status": 1,
        "contacts_count": 0,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }
    assert response.json()["message"] == "List created."


def test_create_requires_a_name(api: Api) -> None:
    """A list without a name is a 422."""
    assert api.post("/contacts/lists", json={}).json()["errors"] == {"name": ["The name field is required."]}


def test_show_renders_the_list(api: Api, tenant: Tenant, make_list: Callable[..., ContactList]) -> None:
    """`GET /contacts/lists/{id}` renders one list."""
    created = make_list(tenant, "Newsletter")

    assert api.get(f"/contacts/lists/{created.id}").json()["data"]["name"] == "Newsletter"


def test_show_of_a_missing_list_is_404(api: Api) -> None:
    """An unknown list id is a 404."""
    assert api.get("/contacts/lists/9999").json() == {"success": False, "message": "List not found."}


def test_update_changes_name_and_status(api: Api, tenant: Tenant, make_list: Callable[..., ContactList]) -> None:
    """`PUT` takes any subset of name and status."""
    created = make_list(tenant, "Newsletter")

    renamed = api.put(f"/contacts/lists/{created.id}", json={"name": "Weekly"}).json()["data"]
    paused = api.put(f"/contacts/lists/{created.id}", json={"status": 0}).json()["data"]

    assert (renamed["name"], renamed["status"]) == ("Weekly", 1)
    assert (paused["name"], paused["status"]) == ("Weekly", 0)


def test_update_refuses_another_status(api: Api, tenant: Tenant, make_list: Callable[..., ContactList]) -> None:
    """A status other than 1 or 0 is a 422."""
    created = make_list(tenant)

    assert api.put(f"/contacts/lists/{created.id}", json={"status": 2}).status_code == 422


def test_update_of_a_missing_list_is_404(api: Api) -> None:
    """Updating an unknown list is a 404."""
    assert api.put("/contacts/lists/9999", json={"name": "x"}).status_code == 404


def test_delete_keeps_the_contacts(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services_add_to_list: Callable[..., int]
) -> None:
    """`DELETE /contacts/lists/{id}` (204) removes the list but not its members."""
    contact = make_contact(tenant)
    list_id = services_add_to_list(tenant, [contact])

    assert api.delete(f"/contacts/lists/{list_id}").status_code == 204
    assert api.get(f"/contacts/lists/{list_id}").status_code == 404
    assert api.get(f"/contacts/{contact.id}").status_code == 200


def test_delete_of_a_missing_list_is_404(api: Api) -> None:
    """Deleting an unknown list is a 404."""
    assert api.delete("/contacts/lists/9999").status_code == 404


def test_members_lists_member_items(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], services_add_to_list: Callable[..., int]
) -> None:
    """Members are `{id, name, phone, type}`, in the order they were added."""
    first = make_contact(tenant, name="Ada", type="whatsapp", phone="+14155552671")
    second = make_contact(tenant, name="Grace")
    list_id = services_add_to_list(tenant, [second, first])

    data = api.get(f"/contacts/lists/{list_id}/members").json()["data"]

    assert data == [
        {"id": second.id, "name": "Grace", "phone": None, "type": "instagram"},
        {"id": first.id, "name": "Ada", "phone": "+14155552671", "type": "whatsapp"},
    ]


def test_members_of_a_missing_list_is_404(api: Api) -> None:
    """Members of an unknown list are a 404."""
    assert api.get("/contacts/lists/9999/members").status_code == 404


def test_lists_is_not_taken_for_a_contact_id(api: Api) -> None:
    """`/contacts/lists` is the lists collection, never `/contacts/{id}`."""
    assert api.get("/contacts/lists").json()["data"] == []
