"""Products linking files of the media library over HTTP: `media_file_ids` in, full media items
out (`media_files`), on the catalogue answers, the entry and `GET /products`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant
from media_files import image

from engage_connectors.media_probe import PillowAvMediaProber

CATALOG = "/knowledge-base/product-catalog"


@pytest.fixture
def media_prober() -> PillowAvMediaProber:
    """The decoders `engage serve` uses, instead of the fake."""
    return PillowAvMediaProber()


def uploaded(api: Api, name: str = "tea.png") -> dict[str, Any]:
    response = api.post("/media", files={"file": (name, image("png", (40, 30)), "application/octet-stream")})
    assert response.status_code == 201
    media: dict[str, Any] = response.json()["data"]
    return media


def catalog(api: Api, *media_ids: int) -> Any:
    body = {"title": "Menu", "products": [{"product_name": "Tea", "price": 2.5, "media_file_ids": list(media_ids)}]}
    return api.post(CATALOG, json=body)


def test_a_created_product_renders_its_linked_files(api: Api) -> None:
    """The catalogue answer holds each linked file as the media API renders it, in the order given."""
    first, second = uploaded(api, "a.png"), uploaded(api, "b.png")

    response = catalog(api, second["id"], first["id"])

    assert response.status_code == 201
    assert response.json()["data"]["products"][0]["media_files"] == [second, first]


def test_the_product_list_renders_linked_files(api: Api) -> None:
    """GET /products shows each product's linked files with their URL and type."""
    photo = uploaded(api)
    catalog(api, photo["id"])

    listed = api.get("/products").json()["data"][0]["media_files"]

    assert [(m["id"], m["url"], m["mime_type"]) for m in listed] == [(photo["id"], photo["url"], "image/png")]


def test_the_entry_renders_its_products_files(api: Api) -> None:
    """GET /knowledge-base/{id} of a catalogue shows its products' linked files."""
    photo = uploaded(api)
    entry = catalog(api, photo["id"]).json()["data"]["knowledge_base"]["id"]

    products = api.get(f"/knowledge-base/{entry}").json()["data"]["products"]

    assert [m["id"] for m in products[0]["media_files"]] == [photo["id"]]


def test_another_workspaces_file_is_a_422(
    api: Api, client_for: Callable[[Tenant], Api], make_tenant: Callable[..., Tenant]
) -> None:
    """Linking a file of another workspace is refused on the product's field, like an unknown id."""
    foreign = uploaded(client_for(make_tenant("Other")))

    response = catalog(api, foreign["id"])

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["products.0.media_file_ids"]


def test_more_than_ten_files_is_a_422(api: Api) -> None:
    """A product may link at most ten files."""
    response = catalog(api, *range(1, 12))

    assert response.status_code == 422
    assert "products.0.media_file_ids" in response.json()["errors"]


def test_a_deleted_file_leaves_the_product(api: Api) -> None:
    """After DELETE /media/{id} the product no longer lists the file."""
    photo = uploaded(api)
    catalog(api, photo["id"])

    api.delete(f"/media/{photo['id']}")

    assert api.get("/products").json()["data"][0]["media_files"] == []
