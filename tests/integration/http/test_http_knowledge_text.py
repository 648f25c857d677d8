"""Knowledge-base text entries and the operations every entry shares (SPEC 4): create, list with
filters and pages, show by type, update (new content re-chunks), delete, their events and limits."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.knowledge.service import CatalogResult
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

BASE = "/knowledge-base"
HOURS = "# Opening hours\n\nWe open at 7 am every day and close at 6 pm."


def create(api: Api, **fields: object) -> dict[str, object]:
    body = {"title": "Hours", "content": HOURS, **fields}
    response = api.post(BASE, json=body)
    assert response.status_code == 201, response.text
    data: dict[str, object] = response.json()["data"]
    return data


def chunks(api: Api, entry_id: object) -> list[dict[str, object]]:
    found: list[dict[str, object]] = api.get(f"{BASE}/{entry_id}/chunks").json()["data"]["chunks"]
    return found


# -- create ------------------------------------------------------------------------------------------


def test_creating_a_text_entry_answers_201_with_the_entry(api: Api) -> None:
    """The new entry has the request's fields, type `text` and status `active` by default."""
    response = api.post(BASE, json={"title": "Hours", "content": HOURS, "description": "When we open"})

    entry = response.json()["data"]
    assert response.status_code == 201
    assert {k: v for k, v in entry.items() if k != "id"} == {
        "title": "Hours",
        "type": "text",
        "description": "When we open",
        "business_description": None,
        "status": "active",
        "embedding_updated_at": None,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }


def test_a_new_text_entry_is_chunked_and_searchable_at_once(api: Api) -> None:
    """Its chunks exist, headed by the title and heading path, and search finds them when the call returns."""
    entry = create(api)

    [chunk] = chunks(api, entry["id"])
    hits = api.get(f"{BASE}/search", params={"q": "when do you open"}).json()["data"]["results"]
    assert (chunk["context_header"], chunk["chunk_index"], chunk["total_chunks"]) == ("Hours > Opening hours", 0, 1)
    assert [h["knowledge_base_id"] for h in hits] == [entry["id"]]


def test_creating_a_text_entry_emits_knowledge_base_created(
    api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory
) -> None:
    """`knowledge_base.created` carries the SPEC 6 fields."""
    entry = create(api)

    [event] = uow.store.events(tenant.account_id)
    assert event.name == "knowledge_base.created"
    assert event.payload == {k: entry[k] for k in event.payload}
    assert set(event.payload) == {
        "id",
        "title",
        "type",
        "status",
        "description",
        "business_description",
        "created_at",
        "updated_at",
    }


def test_content_is_required(api: Api) -> None:
    """A text entry without content, or with blank content, is a 422 on `content`."""
    missing = api.post(BASE, json={"title": "T"})
    blank = api.post(BASE, json={"title": "T", "content": "  "})

    assert (missing.status_code, blank.status_code) == (422, 422)
    assert "content" in missing.json()["errors"] and "content" in blank.json()["errors"]


def test_content_longer_than_the_limit_is_refused(api: Api) -> None:
    """Content above 200,000 characters is a 422 on `content`, and nothing is stored."""
    response = api.post(BASE, json={"title": "T", "content": "a" * 200_001})

    assert response.status_code == 422
    assert "content" in response.json()["errors"]
    assert api.get(BASE).json()["data"] == []


def test_an_unknown_status_is_refused(api: Api) -> None:
    """`status` is `active` or `inactive`."""
    response = api.post(BASE, json={"title": "T", "content": "x", "status": "archived"})

    assert response.status_code == 422
    assert "status" in response.json()["errors"]


# -- list --------------------------------------------------------------------------------------------


def test_the_list_is_newest_first_without_content(api: Api, clock: FakeClock) -> None:
    """Entries come newest first, with the shared fields only."""
    first = create(api, title="First")
    clock.advance(seconds=1)
    second = create(api, title="Second")

    data = api.get(BASE).json()["data"]
    assert [e["id"] for e in data] == [second["id"], first["id"]]
    assert "content" not in data[0]


def test_the_list_filters_by_type_and_status(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """`type` and `status` narrow the list."""
    active = create(api)
    inactive = create(api, status="inactive")
    catalog = make_catalog(tenant, products=[{"product_name": "Mug"}])

    def ids(**params: str) -> set[object]:
        return {e["id"] for e in api.get(BASE, params=params).json()["data"]}

    assert ids(type="text") == {active["id"], inactive["id"]}
    assert ids(type="product_catalog") == {catalog.knowledge_base.id}
    assert ids(type="text", status="inactive") == {inactive["id"]}


def test_the_list_is_paginated_25_by_default(api: Api) -> None:
    """`per_page` defaults to 25 and `meta` tells the total."""
    for n in range(27):
        create(api, title=f"E{n}")

    body = api.get(BASE).json()
    assert (len(body["data"]), body["meta"]["per_page"], body["meta"]["total"]) == (25, 25, 27)


def test_per_page_above_100_is_clamped(api: Api) -> None:
    """`per_page=500` is served as 100."""
    assert api.get(BASE, params={"per_page": 500}).json()["meta"]["per_page"] == 100


def test_an_unknown_type_filter_is_a_422(api: Api) -> None:
    """`type` must be one of the entry types."""
    assert api.get(BASE, params={"type": "video"}).status_code == 422


def test_the_list_holds_only_the_accounts_entries(
    api: Api, make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """Another account's entries are not listed."""
    create(client_for(make_tenant("Other")))

    assert api.get(BASE).json()["data"] == []


# -- show --------------------------------------------------------------------------------------------


def test_showing_a_text_entry_gives_its_content(api: Api) -> None:
    """A text entry comes with `content`, and `products` null."""
    entry = create(api)

    shown = api.get(f"{BASE}/{entry['id']}").json()["data"]
    assert (shown["content"], shown["products"], shown["title"]) == (HOURS, None, "Hours")


def test_showing_a_catalogue_gives_its_products(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """A product catalogue comes with its `products`, and `content` null."""
    catalog = make_catalog(tenant, products=[{"product_name": "Mug"}])

    shown = api.get(f"{BASE}/{catalog.knowledge_base.id}").json()["data"]
    assert ([p["product_name"] for p in shown["products"]], shown["content"]) == (["Mug"], None)


def test_another_accounts_entry_is_not_found(
    api: Api, make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """Reading, updating or deleting another account's entry is a 404."""
    theirs = create(client_for(make_tenant("Other")))
    path = f"{BASE}/{theirs['id']}"

    statuses = (
        api.get(path).status_code,
        api.put(path, json={"title": "Mine"}).status_code,
        api.delete(path).status_code,
    )
    assert statuses == (404, 404, 404)


# -- update ------------------------------------------------------------------------------------------


def test_updating_changes_the_given_fields_only(api: Api, clock: FakeClock) -> None:
    """Fields left out keep their value; `updated_at` moves."""
    entry = create(api, description="Old")
    clock.advance(seconds=5)

    updated = api.put(f"{BASE}/{entry['id']}", json={"status": "inactive"}).json()["data"]
    assert (updated["status"], updated["description"], updated["title"]) == ("inactive", "Old", "Hours")
    assert updated["updated_at"] == "2026-01-01T12:00:05.000000Z"


def test_new_content_replaces_the_chunks(api: Api) -> None:
    """Changing a text entry's content re-chunks it: search finds the new text, not the old."""
    entry = create(api)

    api.put(f"{BASE}/{entry['id']}", json={"content": "Parking is free behind the shop."})

    assert [c["content"] for c in chunks(api, entry["id"])] == ["Parking is free behind the shop."]
    assert api.get(f"{BASE}/search", params={"q": "parking"}).json()["data"]["relevant"] is True
    assert api.get(f"{BASE}/search", params={"q": "open"}).json()["data"]["results"] == []
    assert api.get(f"{BASE}/{entry['id']}").json()["data"]["content"] == "Parking is free behind the shop."


def test_content_of_another_type_of_entry_is_a_422(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """Only a text entry has content to change."""
    catalog = make_catalog(tenant, products=[{"product_name": "Mug"}])

    response = api.put(f"{BASE}/{catalog.knowledge_base.id}", json={"content": "x"})
    assert response.status_code == 422
    assert "content" in response.json()["errors"]


def test_updating_emits_knowledge_base_updated(api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory) -> None:
    """A change is announced with the entry as it now is."""
    entry = create(api)

    api.put(f"{BASE}/{entry['id']}", json={"title": "Hours and holidays"})

    event = uow.store.events(tenant.account_id)[-1]
    assert (event.name, event.payload["title"]) == ("knowledge_base.updated", "Hours and holidays")


def test_an_update_that_changes_nothing_emits_nothing(api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory) -> None:
    """Sending the stored values again stores and announces nothing."""
    entry = create(api)

    api.put(f"{BASE}/{entry['id']}", json={"title": "Hours", "content": HOURS})

    assert [e.name for e in uow.store.events(tenant.account_id)] == ["knowledge_base.created"]


def test_an_inactive_entry_is_not_searched(api: Api) -> None:
    """Setting an entry inactive takes its chunks out of search."""
    entry = create(api)

    api.put(f"{BASE}/{entry['id']}", json={"status": "inactive"})

    assert api.get(f"{BASE}/search", params={"q": "open"}).json()["data"]["results"] == []


# -- delete ------------------------------------------------------------------------------------------


def test_deleting_answers_204_and_removes_the_entry_and_its_chunks(api: Api) -> None:
    """The entry, its chunks and its search results are gone."""
    entry = create(api)

    response = api.delete(f"{BASE}/{entry['id']}")

    assert response.status_code == 204
    assert api.get(f"{BASE}/{entry['id']}").status_code == 404
    assert api.get(f"{BASE}/{entry['id']}/chunks").status_code == 404
    assert api.get(f"{BASE}/search", params={"q": "open"}).json()["data"]["results"] == []


def test_deleting_a_catalogue_removes_its_products(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """A catalogue's products go with it."""
    catalog = make_catalog(tenant, products=[{"product_name": "Mug"}])

    api.delete(f"{BASE}/{catalog.knowledge_base.id}")

    assert api.get("/products").json()["data"] == []


def test_deleting_emits_knowledge_base_deleted(api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory) -> None:
    """`knowledge_base.deleted` carries id, title, type and deleted_at."""
    entry = create(api)

    api.delete(f"{BASE}/{entry['id']}")

    event = uow.store.events(tenant.account_id)[-1]
    assert event.name == "knowledge_base.deleted"
    assert event.payload == {
        "id": entry["id"],
        "title": "Hours",
        "type": "text",
        "deleted_at": "2026-01-01T12:00:00.000000Z",
    }
