"""ProductService: product-catalog entries, appending and deleting products, search, restocking."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engage_core.commerce.orders import Order
from engage_core.commerce.products import Product, ProductFilter, ProductInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.fakes import KnowledgeTables
from engage_core.knowledge.service import CatalogInput, ProductsInput
from engage_core.services import Services
from engage_core.testing import InMemoryStore

NewProduct = Callable[..., Product]
NewOrder = Callable[..., Order]

KB_FIELDS = {"id", "title", "type", "status", "description", "business_description", "created_at", "updated_at"}


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def names(services: Services, account_id: int, **filters: Any) -> list[str]:
    page = services.products.find(account_id, ProductFilter(**filters), PageRequest(per_page=100))
    return [p.name for p in page.items]


def catalog(services: Services, account_id: int, *products: str, csv: str | None = None, **fields: Any) -> Any:
    data = CatalogInput(
        title=fields.pop("title", "Menu"), products=[ProductInput(n) for n in products], csv_file=csv, **fields
    )
    return services.knowledge_base.create_catalog(account_id, data)


# -- creating a catalog ----------------------------------------------------------------------------


def test_a_catalog_is_a_product_catalog_entry(services: Services, account_id: int) -> None:
    """The entry has type product_catalog, the given title, and status active by default."""
    entry = catalog(services, account_id, "Tea", description="Our menu").knowledge_base
    assert (entry.type, entry.title, entry.status, entry.description) == (
        "product_catalog",
        "Menu",
        "active",
        "Our menu",
    )


def test_the_catalog_reports_its_products(services: Services, account_id: int) -> None:
    """products_created counts the stored products, each with an id and the entry's id."""
    result = catalog(services, account_id, "Tea", "Coffee")
    assert result.products_created == 2
    assert {p.knowledge_base_id for p in result.products} == {result.knowledge_base.id}


def test_creating_a_catalog_emits_knowledge_base_created(
    services: Services, account_id: int, store: InMemoryStore
) -> None:
    """One knowledge_base.created with the SPEC 6 fields, and no event per product."""
    result = catalog(services, account_id, "Tea", "Coffee")
    [event] = store.events(account_id)
    assert event.name == "knowledge_base.created"
    assert set(event.payload) == KB_FIELDS and event.payload["id"] == result.knowledge_base.id


def test_json_products_and_csv_rows_are_both_stored(services: Services, account_id: int) -> None:
    """JSON products first, then the CSV rows."""
    result = catalog(services, account_id, "Tea", csv="name,price\nCoffee,4\n")
    assert [p.name for p in result.products] == ["Tea", "Coffee"]


def test_products_or_a_csv_file_are_required(services: Services, account_id: int) -> None:
    """Neither products nor csv_file: refused naming both."""
    assert set(errors_of(lambda: catalog(services, account_id))) == {"products", "csv_file"}


def test_a_title_is_required(services: Services, account_id: int) -> None:
    """A blank title is refused on title."""
    assert list(errors_of(lambda: catalog(services, account_id, "Tea", title=" "))) == ["title"]


def test_the_status_is_active_or_inactive(services: Services, account_id: int) -> None:
    """Any other status is refused."""
    assert list(errors_of(lambda: catalog(services, account_id, "Tea", status="draft"))) == ["status"]


def test_a_bad_json_product_names_its_index(services: Services, account_id: int) -> None:
    """A bad price in the second product is refused on products.1.price."""
    data = CatalogInput(title="Menu", products=[ProductInput("Tea"), ProductInput("Coffee", price="x")])
    assert list(errors_of(lambda: services.knowledge_base.create_catalog(account_id, data))) == ["products.1.price"]


def test_json_and_csv_errors_are_reported_together(services: Services, account_id: int) -> None:
    """A bad JSON product and a bad CSV row are both named."""
    data = CatalogInput(title="", products=[ProductInput("")], csv_file="name,price\nTea,x\n")
    errors = errors_of(lambda: services.knowledge_base.create_catalog(account_id, data))
    assert set(errors) == {"title", "products.0.product_name", "csv_file.row_2.price"}


def test_a_rejected_upload_stores_nothing(services: Services, account_id: int, store: InMemoryStore) -> None:
    """One bad CSV row: no entry, no product, no event."""
    with pytest.raises(ValidationFailed):
        catalog(services, account_id, "Tea", csv="name,price\nCoffee,4\nCake,-1\n")
    assert (names(services, account_id), store.events(account_id), store.state.of(KnowledgeTables).knowledge_base) == (
        [],
        [],
        {},
    )


def test_a_csv_error_keeps_the_row_and_column_in_the_message(services: Services, account_id: int) -> None:
    """The 422 message says where the bad cell is."""
    with pytest.raises(ValidationFailed, match="row 2, column price"):
        catalog(services, account_id, csv="name,price\nTea,x\n")


# -- appending and deleting ------------------------------------------------------------------------


def test_products_can_be_appended(services: Services, account_id: int) -> None:
    """POST /knowledge-base/{id}/products adds to the same catalog."""
    entry = catalog(services, account_id, "Tea").knowledge_base
    added = services.knowledge_base.add_products(account_id, entry.id, ProductsInput(csv_file="name\nCoffee\n"))
    assert added.products_created == 1
    assert [p.name for p in services.knowledge_base.catalog_products(account_id, entry.id)] == ["Tea", "Coffee"]


def test_appending_emits_nothing(services: Services, account_id: int, store: InMemoryStore) -> None:
    """The entry's fields do not change, so no knowledge_base.updated."""
    entry = catalog(services, account_id, "Tea").knowledge_base
    services.knowledge_base.add_products(account_id, entry.id, ProductsInput(products=[ProductInput("Coffee")]))
    assert [e.name for e in store.events(account_id)] == ["knowledge_base.created"]


def test_appending_needs_products_or_a_csv_file(services: Services, account_id: int) -> None:
    """An empty append is refused naming both."""
    entry = catalog(services, account_id, "Tea").knowledge_base
    errors = errors_of(lambda: services.knowledge_base.add_products(account_id, entry.id, ProductsInput()))
    assert set(errors) == {"products", "csv_file"}


def test_appending_to_an_unknown_catalog_is_not_found(services: Services, account_id: int) -> None:
    """An entry id that does not exist is a 404."""
    with pytest.raises(NotFound):
        services.knowledge_base.add_products(account_id, 999, ProductsInput(products=[ProductInput("Tea")]))


def test_another_accounts_catalog_is_not_found(
    services: Services, account_id: int, new_account: Callable[..., int]
) -> None:
    """A catalog of another account behaves as nonexistent."""
    entry = catalog(services, new_account("Other"), "Tea").knowledge_base
    with pytest.raises(NotFound):
        services.knowledge_base.add_products(account_id, entry.id, ProductsInput(products=[ProductInput("Coffee")]))


def test_a_product_can_be_deleted_from_its_catalog(services: Services, account_id: int) -> None:
    """DELETE /knowledge-base/{id}/products/{product_id} removes it."""
    result = catalog(services, account_id, "Tea", "Coffee")
    services.knowledge_base.delete_product(account_id, result.knowledge_base.id, result.products[0].id)
    assert names(services, account_id) == ["Coffee"]


def test_a_product_of_another_catalog_is_not_found(services: Services, account_id: int) -> None:
    """Deleting through the wrong catalog is a 404 and deletes nothing."""
    first, second = catalog(services, account_id, "Tea"), catalog(services, account_id, "Coffee")
    with pytest.raises(NotFound):
        services.knowledge_base.delete_product(account_id, second.knowledge_base.id, first.products[0].id)
    assert names(services, account_id) == ["Tea", "Coffee"]


def test_orders_keep_a_deleted_products_snapshot(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """An order's item still names a product deleted afterwards."""
    product = new_product("Tea")
    order = new_order(product)
    services.knowledge_base.delete_product(account_id, product.knowledge_base_id, product.id)
    [item] = services.orders.get(account_id, order.id).items
    assert (item.product_id, item.product_name) == (product.id, "Tea")


# -- search ----------------------------------------------------------------------------------------


@pytest.fixture
def shelf(services: Services, account_id: int) -> None:
    products = [
        ProductInput("Green tea", sku="TEA-GRN", category="Drinks"),
        ProductInput("Espresso", sku="COF-ESP", category="Drinks"),
        ProductInput("Cheesecake", sku="CAK-CHS", category="Desserts"),
    ]
    services.knowledge_base.create_catalog(account_id, CatalogInput(title="Menu", products=products))


@pytest.mark.usefixtures("shelf")
@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("tea", ["Green tea"]),
        ("cof-", ["Espresso"]),
        ("DESSERT", ["Cheesecake"]),
        ("e", ["Green tea", "Espresso", "Cheesecake"]),
    ],
)
def test_search_matches_name_sku_or_category(
    services: Services, account_id: int, search: str, expected: list[str]
) -> None:
    """search is a case-insensitive substring of the name, the SKU or the category."""
    assert names(services, account_id, search=search) == expected


@pytest.mark.usefixtures("shelf")
def test_the_category_filter_is_exact(services: Services, account_id: int) -> None:
    """category matches the whole category, ignoring case."""
    assert names(services, account_id, category="drinks") == ["Green tea", "Espresso"]
    assert names(services, account_id, category="Drink") == []


@pytest.mark.usefixtures("shelf")
def test_search_and_category_combine(services: Services, account_id: int) -> None:
    """Both must hold."""
    assert names(services, account_id, search="c", category="Desserts") == ["Cheesecake"]


@pytest.mark.usefixtures("shelf")
def test_products_are_paginated(services: Services, account_id: int) -> None:
    """Page 2 of size 2 holds the third product; the total counts all."""
    page = services.products.find(account_id, ProductFilter(), PageRequest(page=2, per_page=2))
    assert ([p.name for p in page.items], page.total) == (["Cheesecake"], 3)


@pytest.mark.usefixtures("shelf")
def test_search_is_scoped_to_the_account(services: Services, new_account: Callable[..., int]) -> None:
    """Another account sees none of these products."""
    assert names(services, new_account("Other")) == []


def test_an_unknown_product_is_not_found(services: Services, account_id: int) -> None:
    """get of an id that does not exist is a 404."""
    with pytest.raises(NotFound):
        services.products.get(account_id, 999)


# -- restocking ------------------------------------------------------------------------------------


def test_restocking_adds_to_the_stock(services: Services, account_id: int, new_product: NewProduct) -> None:
    """Three more units on top of two."""
    product = new_product(stock_quantity=2)
    assert services.products.restock(account_id, product.id, 3).stock_quantity == 5


def test_restocking_an_untracked_product_is_refused(
    services: Services, account_id: int, new_product: NewProduct
) -> None:
    """A product whose stock is not tracked cannot be restocked."""
    product = new_product(stock_quantity=None)
    assert list(errors_of(lambda: services.products.restock(account_id, product.id, 3))) == ["quantity"]


@pytest.mark.parametrize("quantity", [0, -1, True])
def test_a_restock_is_at_least_one(services: Services, account_id: int, new_product: NewProduct, quantity: int) -> None:
    """Zero, negative or boolean quantities are refused."""
    product = new_product()
    assert list(errors_of(lambda: services.products.restock(account_id, product.id, quantity))) == ["quantity"]


def test_restocking_makes_a_sold_out_product_orderable(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """Sold out, restocked, ordered again."""
    product = new_product(stock_quantity=1)
    new_order(product)
    assert not services.products.get(account_id, product.id).in_stock
    services.products.restock(account_id, product.id, 1)
    assert new_order(product, customer_name="Bob").items[0].product_id == product.id
