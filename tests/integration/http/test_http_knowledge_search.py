"""The workspace's knowledge search (`GET /knowledge-base/search`): ranked passages of active
entries, the type filter, the limit, and saying when nothing is relevant."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.knowledge.service import CatalogResult

BASE = "/knowledge-base"
SEARCH = f"{BASE}/search"


def text(api: Api, title: str, content: str) -> int:
    entry_id: int = api.post(BASE, json={"title": title, "content": content}).json()["data"]["id"]
    return entry_id


def test_the_best_passage_comes_first_with_its_entry(api: Api) -> None:
    """The hit names its chunk and entry, and holds the content, a score and a marked snippet."""
    hours = text(api, "Hours", "We open at 7 am every day.")
    text(api, "Parking", "Parking is free behind the shop.")

    data = api.get(SEARCH, params={"q": "When do you open?"}).json()["data"]

    [hit] = data["results"]
    assert (data["query"], data["relevant"]) == ("When do you open?", True)
    assert (hit["knowledge_base_id"], hit["title"], hit["type"]) == (hours, "Hours", "text")
    assert hit["content"] == "We open at 7 am every day."
    assert "<mark>open</mark>" in hit["snippet"]
    assert (hit["score"], hit["relevant"]) == (1.0, True)


def test_nothing_relevant_is_said(api: Api) -> None:
    """A question that shares only a minor word with a passage gets `relevant` false."""
    text(api, "Hours", "We open at 7 am every day. Ask about holidays.")

    data = api.get(SEARCH, params={"q": "refund policy for damaged holidays gifts shipped abroad"}).json()["data"]

    assert data["relevant"] is False
    assert [hit["relevant"] for hit in data["results"]] == [False]


def test_no_match_gives_no_results(api: Api) -> None:
    """A question matching nothing answers 200 with no results."""
    text(api, "Hours", "We open at 7 am.")

    data = api.get(SEARCH, params={"q": "invoice"}).json()["data"]
    assert (data["results"], data["relevant"]) == ([], False)


def test_type_narrows_the_search(api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]) -> None:
    """`type` keeps only passages of entries of that type."""
    text(api, "Mugs", "Our mugs are handmade.")
    make_catalog(tenant, products=[{"product_name": "Mug"}])

    results = api.get(SEARCH, params={"q": "mugs", "type": "product_catalog"}).json()["data"]["results"]
    assert [r["type"] for r in results] == ["product_catalog"]


def test_limit_caps_the_results(api: Api) -> None:
    """`limit` is how many passages at most (default 5)."""
    for n in range(7):
        text(api, f"Tea {n}", f"Green tea number {n}.")

    assert len(api.get(SEARCH, params={"q": "tea"}).json()["data"]["results"]) == 5
    assert len(api.get(SEARCH, params={"q": "tea", "limit": 2}).json()["data"]["results"]) == 2


def test_the_parameters_are_checked(api: Api) -> None:
    """`q` is 1 to 500 characters and `limit` 1 to 20; anything else is a 422."""
    statuses = [
        api.get(SEARCH).status_code,
        api.get(SEARCH, params={"q": " "}).status_code,
        api.get(SEARCH, params={"q": "x" * 501}).status_code,
        api.get(SEARCH, params={"q": "tea", "limit": 21}).status_code,
        api.get(SEARCH, params={"q": "tea", "limit": 0}).status_code,
        api.get(SEARCH, params={"q": "tea", "type": "video"}).status_code,
    ]
    assert statuses == [422] * 6


def test_another_accounts_entries_are_not_searched(
    api: Api, make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """Search sees only the account's own entries."""
    text(client_for(make_tenant("Other")), "Secret", "The secret recipe uses cardamom.")

    assert api.get(SEARCH, params={"q": "cardamom"}).json()["data"]["results"] == []
