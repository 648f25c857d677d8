"""Contacts (SPEC 4): create, read, update, delete and the blacklist toggle."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.contacts.model import Contact

WHATSAPP = {"name": "Ada Lovelace", "type": "whatsapp", "phone": "+14155552671"}


def test_create_answers_201_with_the_contact(api: Api) -> None:
    """`POST /contacts` stores the contact and renders every SPEC field."""
    response = api.post("/contacts", json={**WHATSAPP, "email": "ada@example.com", "tags": ["VIP"]})

    assert response.status_code == 201
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "phone": "+14155552671",
        "type": "whatsapp",
        "status": "active",
        "blacklisted": False,
        "tags": ["VIP"],
        "last_message_at": None,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
        "source": "api",
        "company": None,
        "address": None,
        "country_id": None,
        "ai_agent_id": None,
    }
    assert response.json()["message"] == "Contact created."


def test_create_requires_a_phone_for_whatsapp(api: Api) -> None:
    """A WhatsApp contact without a phone is a 422 on `phone`."""
    response = api.post("/contacts", json={"name": "Ada", "type": "whatsapp"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["phone"]


def test_create_allows_an_instagram_contact_without_phone(api: Api) -> None:
    """An Instagram contact needs no phone."""
    assert api.post("/contacts", json={"name": "Ada", "type": "instagram"}).status_code == 201


def test_create_refuses_a_phone_that_is_no_number(api: Api) -> None:
    """A phone that is E.164-shaped but not a real number is a 422."""
    response = api.post("/contacts", json={**WHATSAPP, "phone": "+10000000000"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["phone"]


def test_create_refuses_a_phone_outside_e164(api: Api) -> None:
    """The API takes phones in E.164 form only."""
    response = api.post("/contacts", json={**WHATSAPP, "phone": "(415) 555-2671"})

    assert response.json()["errors"] == {"phone": ["The phone must be a valid international number in E.164 format."]}


def test_create_refuses_a_duplicate_phone_of_the_same_type(api: Api) -> None:
    """Two WhatsApp contacts cannot share a phone."""
    api.post("/contacts", json=WHATSAPP)

    response = api.post("/contacts", json=WHATSAPP)

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["phone"]


def test_create_names_every_invalid_field(api: Api) -> None:
    """One 422 names all invalid fields."""
    response = api.post("/contacts", json={"name": "", "type": "fax", "email": "nope"})

    assert set(response.json()["errors"]) == {"name", "type", "email"}


def test_create_creates_missing_tags(api: Api) -> None:
    """Tag titles on a new contact create the tags."""
    api.post("/contacts", json={"name": "Ada", "type": "instagram", "tags": ["New", "new"]})

    assert [t["title"] for t in api.get("/tags").json()["data"]] == ["New"]


def test_list_shows_the_accounts_contacts(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`GET /contacts` lists the account's contacts."""
    contact = make_contact(tenant)

    assert [c["id"] for c in api.get("/contacts").json()["data"]] == [contact.id]


def test_show_renders_the_contact(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`GET /contacts/{id}` renders one contact."""
    contact = make_contact(tenant, name="Grace")

    assert api.get(f"/contacts/{contact.id}").json()["data"]["name"] == "Grace"


def test_show_of_a_missing_contact_is_404(api: Api) -> None:
    """An unknown id is a 404."""
    assert api.get("/contacts/9999").status_code == 404


def test_update_changes_only_the_given_fields(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`PUT` with a subset of fields leaves the others alone."""
    contact = make_contact(tenant, name="Ada", email="ada@example.com")

    response = api.put(f"/contacts/{contact.id}", json={"name": "Ada King"})

    data = response.json()["data"]
    assert (data["name"], data["email"]) == ("Ada King", "ada@example.com")
    assert response.json()["message"] == "Contact updated."


def test_update_with_null_clears_a_field(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`null` clears a nullable field."""
    contact = make_contact(tenant, email="ada@example.com")

    assert api.put(f"/contacts/{contact.id}", json={"email": None}).json()["data"]["email"] is None


def test_update_replaces_the_tags(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`tags` in a `PUT` replaces the contact's tags."""
    contact = make_contact(tenant, tags=["A", "B"])

    assert api.put(f"/contacts/{contact.id}", json={"tags": ["C"]}).json()["data"]["tags"] == ["C"]


def test_update_validates_the_result(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """Turning a contact without a phone into a WhatsApp contact is a 422."""
    contact = make_contact(tenant, type="instagram")

    response = api.put(f"/contacts/{contact.id}", json={"type": "whatsapp"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["phone"]


def test_update_of_a_missing_contact_is_404(api: Api) -> None:
    """`PUT` on an unknown id is a 404."""
    assert api.put("/contacts/9999", json={"name": "x"}).status_code == 404


def test_update_with_a_wrong_type_is_422(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`PUT` with a non-string name is a 422."""
    contact = make_contact(tenant)

    assert api.put(f"/contacts/{contact.id}", json={"name": 7}).status_code == 422


def test_delete_removes_the_contact(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """After `DELETE` (204) the contact is gone."""
    contact = make_contact(tenant)

    assert api.delete(f"/contacts/{contact.id}").status_code == 204
    assert api.get(f"/contacts/{contact.id}").status_code == 404


def test_delete_of_a_missing_contact_is_404(api: Api) -> None:
    """`DELETE` of an unknown id is a 404."""
    assert api.delete("/contacts/9999").status_code == 404


def test_blacklist_toggles_the_flag(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`POST /contacts/{id}/blacklist` answers `{id, blacklisted}` and flips it each time."""
    contact = make_contact(tenant)

    first = api.post(f"/contacts/{contact.id}/blacklist").json()
    second = api.post(f"/contacts/{contact.id}/blacklist").json()

    assert first["data"] == {"id": contact.id, "blacklisted": True}
    assert second["data"] == {"id": contact.id, "blacklisted": False}
    assert second["message"] == "Contact removed from the blacklist."


def test_blacklist_of_a_missing_contact_is_404(api: Api) -> None:
    """Blacklisting an unknown contact is a 404."""
    assert api.post("/contacts/9999/blacklist").status_code == 404
