"""An entry's chunks over HTTP (SPEC 4, `/knowledge-base/{id}/chunks`): listing, reading, appending,
editing and deleting one, each ready for search when the call returns."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

BASE = "/knowledge-base"
TEXT = "# Shipping\n\nOrders ship within two days.\n\n" + "Delivery is tracked. " * 80


def entry(api: Api, content: str = TEXT) -> int:
    response = api.post(BASE, json={"title": "Policies", "content": content})
    assert response.status_code == 201, response.text
    entry_id: int = response.json()["data"]["id"]
    return entry_id


def chunk_list(api: Api, entry_id: int) -> dict[str, object]:
    data: dict[str, object] = api.get(f"{BASE}/{entry_id}/chunks").json()["data"]
    return data


def hits(api: Api, q: str) -> list[int]:
    return [h["chunk_id"] for h in api.get(f"{BASE}/search", params={"q": q}).json()["data"]["results"]]


def test_the_chunks_come_in_order_with_their_count(api: Api) -> None:
    """`chunks` are ordered by `chunk_index` with every SPEC field; `count` is how many."""
    entry_id = entry(api)

    data = chunk_list(api, entry_id)
    chunks = data["chunks"]
    assert isinstance(chunks, list) and len(chunks) > 1
    assert (data["knowledge_base_id"], data["count"]) == (entry_id, len(chunks))
    assert [c["chunk_index"] for c in chunks] == list(range(len(chunks)))
    assert set(chunks[0]) == {
        "id",
        "knowledge_base_id",
        "content",
        "char_count",
        "chunk_index",
        "total_chunks",
        "context_header",
        "keywords",
        "has_embedding",
        "created_at",
        "updated_at",
    }
    assert (chunks[0]["has_embedding"], chunks[0]["char_count"]) == (False, len(chunks[0]["content"]))


def test_one_chunk_reads_back(api: Api) -> None:
    """`GET .../chunks/{chunk_id}` gives the chunk as the list has it."""
    entry_id = entry(api)
    first = chunk_list(api, entry_id)["chunks"][0]  # type: ignore[index]

    assert api.get(f"{BASE}/{entry_id}/chunks/{first['id']}").json()["data"] == first


def test_a_chunk_of_another_entry_is_not_found(api: Api) -> None:
    """A chunk is read only through its own entry."""
    one, two = entry(api), entry(api, "Other text.")
    theirs = chunk_list(api, two)["chunks"][0]["id"]  # type: ignore[index]

    assert api.get(f"{BASE}/{one}/chunks/{theirs}").status_code == 404


def test_another_accounts_chunks_are_not_found(
    api: Api, make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """Another account's entry has no chunks for this account."""
    theirs = entry(client_for(make_tenant("Other")))

    assert api.get(f"{BASE}/{theirs}/chunks").status_code == 404
    assert api.post(f"{BASE}/{theirs}/chunks", json={"content": "x"}).status_code == 404


def test_creating_a_chunk_appends_it_searchable(api: Api) -> None:
    """A new chunk goes last, headed by the entry title, with computed keywords; search finds it at once."""
    entry_id = entry(api, "Espresso is our house drink.")

    response = api.post(f"{BASE}/{entry_id}/chunks", json={"content": "Oat milk costs 50 cents extra."})

    chunk = response.json()["data"]
    assert response.status_code == 201
    assert (chunk["chunk_index"], chunk["total_chunks"], chunk["context_header"]) == (1, 2, "Policies")
    assert "oat" in chunk["keywords"]
    assert hits(api, "oat milk") == [chunk["id"]]
    assert [c["total_chunks"] for c in chunk_list(api, entry_id)["chunks"]] == [2, 2]  # type: ignore[union-attr]


def test_a_created_chunk_keeps_the_given_header_and_keywords(api: Api) -> None:
    """`context_header` and `keywords` given are stored as given."""
    entry_id = entry(api, "x y z")

    chunk = api.post(
        f"{BASE}/{entry_id}/chunks", json={"content": "Free parking", "context_header": "Visit", "keywords": ["car"]}
    ).json()["data"]
    assert (chunk["context_header"], chunk["keywords"]) == ("Visit", ["car"])


def test_a_blank_chunk_is_refused(api: Api) -> None:
    """`content` is required and not blank."""
    entry_id = entry(api)

    assert api.post(f"{BASE}/{entry_id}/chunks", json={"content": " "}).status_code == 422


def test_updating_a_chunk_reindexes_it(api: Api) -> None:
    """New content is searchable, the old is not, and keywords are computed again."""
    entry_id = entry(api, "Espresso is our house drink.")
    chunk_id = chunk_list(api, entry_id)["chunks"][0]["id"]  # type: ignore[index]

    response = api.put(f"{BASE}/{entry_id}/chunks/{chunk_id}", json={"content": "Matcha is our house drink."})

    updated = response.json()["data"]
    assert response.status_code == 200
    assert (updated["content"], "matcha" in updated["keywords"]) == ("Matcha is our house drink.", True)
    assert (hits(api, "matcha"), hits(api, "espresso")) == ([chunk_id], [])


def test_updating_only_the_header_keeps_the_content(api: Api) -> None:
    """Fields left out keep their value."""
    entry_id = entry(api, "Espresso.")
    chunk_id = chunk_list(api, entry_id)["chunks"][0]["id"]  # type: ignore[index]

    updated = api.put(f"{BASE}/{entry_id}/chunks/{chunk_id}", json={"context_header": "Drinks"}).json()["data"]
    assert (updated["content"], updated["context_header"]) == ("Espresso.", "Drinks")


def test_an_empty_update_is_refused(api: Api) -> None:
    """An update names at least one field."""
    entry_id = entry(api, "Espresso.")
    chunk_id = chunk_list(api, entry_id)["chunks"][0]["id"]  # type: ignore[index]

    assert api.put(f"{BASE}/{entry_id}/chunks/{chunk_id}", json={}).status_code == 422


def test_deleting_a_chunk_renumbers_the_rest(api: Api) -> None:
    """204; the chunk is gone for good and the later ones move down an index."""
    entry_id = entry(api)
    before = chunk_list(api, entry_id)["chunks"]
    assert isinstance(before, list)

    response = api.delete(f"{BASE}/{entry_id}/chunks/{before[0]['id']}")

    after = chunk_list(api, entry_id)["chunks"]
    assert response.status_code == 204
    assert [c["id"] for c in after] == [c["id"] for c in before[1:]]  # type: ignore[union-attr]
    assert {(c["chunk_index"], c["total_chunks"]) for c in after} == {  # type: ignore[union-attr]
        (i, len(before) - 1) for i in range(len(before) - 1)
    }
    assert api.get(f"{BASE}/{entry_id}/chunks/{before[0]['id']}").status_code == 404
