"""Tags (SPEC 4): list with counts, create, show, rename everywhere, delete everywhere."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.contacts.tags import Tag
from engage_core.services import Services


def test_list_shows_tags_with_contact_counts(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`GET /tags` lists every tag with `contacts_count`."""
    make_contact(tenant, tags=["VIP"])
    make_contact(tenant, tags=["VIP", "Lead"])

    counts = {t["title"]: t["contacts_count"] for t in api.get("/tags").json()["data"]}

    assert counts == {"VIP": 2, "Lead": 1}


def test_list_is_paginated_with_meta(api: Api, tenant: Tenant, services: Services) -> None:
    """`GET /tags` serves one page at a time by id, with the usual `meta`; `per_page` defaults to 100."""
    for n in range(105):
        services.tags.create(tenant.account_id, f"tag {n}")

    first = api.get("/tags").json()
    second = api.get("/tags", params={"page": 2, "per_page": 50}).json()

    assert (len(first["data"]), first["meta"]) == (
        100,
        {"current_page": 1, "per_page": 100, "total": 105, "last_page": 2},
    )
    assert [t["title"] for t in second["data"]] == [f"tag {n}" for n in range(50, 100)]


def test_list_clamps_per_page_to_100(api: Api, tenant: Tenant, services: Services) -> None:
    """`per_page` above 100 is served as 100, as on every paginated list."""
    services.tags.create(tenant.account_id, "VIP")

    assert api.get("/tags", params={"per_page": 1000}).json()["meta"]["per_page"] == 100


def test_create_answers_201_with_the_tag(api: Api) -> None:
    """`POST /tags` stores the tag and renders it."""
    response = api.post("/tags", json={"title": "  VIP  "})

    assert response.status_code == 201
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "title": "VIP",
        "contacts_count": 0,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }


def test_create_refuses_a_title_over_100_characters(api: Api) -> None:
    """A title of 101 characters is a 422."""
    response = api.post("/tags", json={"title": "x" * 101})

    assert response.json()["errors"] == {"title": ["The title may not be greater than 100 characters."]}


def test_create_accepts_a_title_of_100_characters(api: Api) -> None:
    """A title of exactly 100 characters is accepted."""
    assert api.post("/tags", json={"title": "x" * 100}).status_code == 201


def test_create_refuses_a_duplicate_title_in_any_case(api: Api, tenant: Tenant, make_tag: Callable[..., Tag]) -> None:
    """Titles are unique regardless of case."""
    make_tag(tenant, "VIP")

    response = api.post("/tags", json={"title": "vip"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["title"]


def test_show_renders_the_tag(api: Api, tenant: Tenant, make_tag: Callable[..., Tag]) -> None:
    """`GET /tags/{id}` renders one tag."""
    tag = make_tag(tenant, "VIP")

    assert api.get(f"/tags/{tag.id}").json()["data"]["title"] == "VIP"


def test_show_of_a_missing_tag_is_404(api: Api) -> None:
    """An unknown tag id is a 404."""
    assert api.get("/tags/9999").status_code == 404


def test_rename_shows_everywhere(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`PUT /tags/{id}` renames the tag on every contact carrying it."""
    contact = make_contact(tenant, tags=["VIP"])
    tag_id = api.get("/tags").json()["data"][0]["id"]

    response = api.put(f"/tags/{tag_id}", json={"title": "Gold"})

    assert response.json()["data"]["title"] == "Gold"
    assert response.json()["message"] == "Tag renamed."
    assert api.get(f"/contacts/{contact.id}").json()["data"]["tags"] == ["Gold"]


def test_rename_requires_a_title(api: Api, tenant: Tenant, make_tag: Callable[..., Tag]) -> None:
    """`PUT /tags/{id}` without a title is a 422."""
    tag = make_tag(tenant)

    assert api.put(f"/tags/{tag.id}", json={}).json()["errors"] == {"title": ["The title field is required."]}


def test_rename_of_a_missing_tag_is_404(api: Api) -> None:
    """Renaming an unknown tag is a 404."""
    assert api.put("/tags/9999", json={"title": "Gold"}).status_code == 404


def test_delete_removes_the_tag_from_contacts(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`DELETE /tags/{id}` (204) removes the tag from every contact."""
    contact = make_contact(tenant, tags=["VIP"])
    tag_id = api.get("/tags").json()["data"][0]["id"]

    assert api.delete(f"/tags/{tag_id}").status_code == 204
    assert api.get(f"/contacts/{contact.id}").json()["data"]["tags"] == []


def test_delete_of_a_missing_tag_is_404(api: Api) -> None:
    """Deleting an unknown tag is a 404."""
    assert api.delete("/tags/9999").status_code == 404
