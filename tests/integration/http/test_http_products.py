"""`GET /products` (SPEC 4, Orders and products): fields, search, category filter and pagination."""

from __future__ import annotations

from collections.abc import Callable

from http_support import Api, Tenant

from engage_core.commerce.products import Product


def test_a_product_has_every_field(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """A listed product carries the SPEC fields, with `purchase_url` read from its attributes."""
    product = make_product(
        tenant,
        product_name="Espresso beans",
        product_description="Dark roast",
        sku="ESP-1",
        category="Coffee",
        price=19.99,
        currency="eur",
        stock_quantity=7,
        image_url="https://cdn.example.com/esp.png",
        product_attributes={"purchase_url": "https://shop.example.com/esp", "origin": "Brazil"},
    )

    [item] = api.get("/products").json()["data"]

    assert item == {
        "id": product.id,
        "name": "Espresso beans",
        "description": "Dark roast",
        "sku": "ESP-1",
        "category": "Coffee",
        "price": 19.99,
        "currency": "EUR",
        "stock_quantity": 7,
        "in_stock": True,
        "is_available": True,
        "image_url": "https://cdn.example.com/esp.png",
        "purchase_url": "https://shop.example.com/esp",
        "media_files": [],
        "product_attributes": {"purchase_url": "https://shop.example.com/esp", "origin": "Brazil"},
        "knowledge_base_id": product.knowledge_base_id,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }


def test_a_product_without_price_or_tracked_stock_has_nulls(
    api: Api, tenant: Tenant, make_product: Callable[..., Product]
) -> None:
    """No price and untracked stock are null, and such a product is in stock."""
    make_product(tenant, price=None, stock_quantity=None)

    [item] = api.get("/products").json()["data"]

    assert (item["price"], item["stock_quantity"], item["in_stock"]) == (None, None, True)


def test_a_product_with_no_stock_left_is_out_of_stock(
    api: Api, tenant: Tenant, make_product: Callable[..., Product]
) -> None:
    """Tracked stock of 0 makes `in_stock` false."""
    make_product(tenant, stock_quantity=0)

    [item] = api.get("/products").json()["data"]

    assert item["in_stock"] is False


def test_an_unavailable_product_is_out_of_stock(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """An unavailable product is not in stock, whatever its stock."""
    make_product(tenant, is_available=False, stock_quantity=5)

    [item] = api.get("/products").json()["data"]

    assert (item["is_available"], item["in_stock"]) == (False, False)


def test_prices_keep_their_exact_decimal(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """Prices come back as the decimals they were given, not as nearby binary fractions."""
    for price in ("0.10", "0.29", "1234567.89", "999999999.99"):
        make_product(tenant, price=price)

    text = api.get("/products").text

    assert [text.count(f'"price":{price}') for price in ("0.1,", "0.29,", "1234567.89,", "999999999.99,")] == [1] * 4


def test_search_matches_the_name_case_insensitively(
    api: Api, tenant: Tenant, make_product: Callable[..., Product]
) -> None:
    """`search` finds a substring of the name in any case."""
    wanted = make_product(tenant, product_name="Green Tea")
    make_product(tenant, product_name="Coffee")

    found = api.get("/products", params={"search": "green"}).json()["data"]

    assert [p["id"] for p in found] == [wanted.id]


def test_search_matches_the_sku(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """`search` finds a substring of the SKU."""
    wanted = make_product(tenant, sku="TEA-042")
    make_product(tenant, sku="COF-001")

    found = api.get("/products", params={"search": "tea-04"}).json()["data"]

    assert [p["id"] for p in found] == [wanted.id]


def test_search_matches_the_category(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """`search` finds a substring of the category."""
    wanted = make_product(tenant, category="Kitchenware")
    make_product(tenant, category="Coffee")

    found = api.get("/products", params={"search": "KITCHEN"}).json()["data"]

    assert [p["id"] for p in found] == [wanted.id]


def test_the_category_filter_is_an_exact_match_in_any_case(
    api: Api, tenant: Tenant, make_product: Callable[..., Product]
) -> None:
    """`category` keeps products of exactly that category, ignoring case, and not of one containing it."""
    wanted = make_product(tenant, category="Tea")
    make_product(tenant, category="Tea sets")

    found = api.get("/products", params={"category": "tea"}).json()["data"]

    assert [p["id"] for p in found] == [wanted.id]


def test_products_are_paginated_15_per_page_by_default(
    api: Api, tenant: Tenant, make_product: Callable[..., Product]
) -> None:
    """Without `per_page` a page holds 15 products, and `meta` counts them all."""
    for _ in range(16):
        make_product(tenant)

    body = api.get("/products").json()

    assert len(body["data"]) == 15
    assert body["meta"] == {"current_page": 1, "per_page": 15, "total": 16, "last_page": 2}


def test_the_second_page_holds_the_rest(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """`page=2` continues where the first page stopped, in catalogue order."""
    made = [make_product(tenant) for _ in range(3)]

    found = api.get("/products", params={"page": 2, "per_page": 2}).json()["data"]

    assert [p["id"] for p in found] == [made[2].id]


def test_per_page_above_100_is_clamped(api: Api, tenant: Tenant) -> None:
    """`per_page=500` is served as 100."""
    meta = api.get("/products", params={"per_page": 500}).json()["meta"]

    assert meta["per_page"] == 100


def test_a_per_page_below_1_is_refused(api: Api) -> None:
    """`per_page=0` is a 422 naming the parameter."""
    response = api.get("/products", params={"per_page": 0})

    assert response.status_code == 422
    assert "per_page" in response.json()["errors"]


def test_another_accounts_products_are_not_listed(
    api: Api, make_tenant: Callable[..., Tenant], make_product: Callable[..., Product]
) -> None:
    """Products of another account never appear."""
    make_product(make_tenant("Other"))

    assert api.get("/products").json()["data"] == []


def test_listing_products_needs_a_key(anonymous: Api) -> None:
    """Without an API key the answer is 401."""
    assert anonymous.get("/products").status_code == 401
