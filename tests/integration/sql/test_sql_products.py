"""Products and their stock through the SQL product repository (reference: engage_core.testing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal

import pytest
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from engage_core.commerce.products import STOCK_MAX, Product, ProductDraft, ProductFilter
from engage_core.kernel.errors import NotFound
from engage_core.kernel.money import PRICE_MAX
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.services import Services
from engage_sql import Database
from engage_sql.commerce.tables import products

from .conftest import START


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


@pytest.fixture
def catalog(database: Database, account: int) -> int:
    """A product catalog entry of `account`."""
    return _catalog(database, account)


def _catalog(database: Database, account: int) -> int:
    with database.uow.workspace(account) as uow:
        entry = uow.knowledge_base.add(KnowledgeBaseDraft("Menu", "product_catalog"), START)
        uow.commit()
    return entry.id


def _add(database: Database, account: int, catalog: int, *drafts: ProductDraft) -> Sequence[Product]:
    with database.uow.workspace(account) as uow:
        added = uow.products.add_many(catalog, drafts, START)
        uow.commit()
    return added


def _get(database: Database, account: int, product_id: int) -> Product | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.products.get(product_id)


def _stock(database: Database, account: int, product_id: int) -> int | None:
    product = _get(database, account, product_id)
    assert product is not None
    return product.stock_quantity


def _names(database: Database, account: int, filters: ProductFilter, page: PageRequest | None = None) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return [p.name for p in uow.products.find(filters, page or PageRequest(per_page=100)).items]


def _take(database: Database, account: int, product_id: int, quantity: int) -> bool:
    with database.uow.workspace(account) as uow:
        taken = uow.products.take_stock(product_id, quantity)
        uow.commit()
    return taken


def _restore(database: Database, account: int, product_id: int, quantity: int) -> bool:
    with database.uow.workspace(account) as uow:
        restored = uow.products.restore_stock(product_id, quantity)
        uow.commit()
    return restored


# -- storing and reading ---------------------------------------------------------------------------


def test_added_product_reads_back_equal(database: Database, account: int, catalog: int) -> None:
    """Every field survives the round trip: exact price, attributes, untouched media list."""
    draft = ProductDraft(
        name="Green tea",
        description="Loose leaf, 100 g",
        sku="TEA-GRN-100",
        category="Drinks",
        price=Decimal("12.34"),
        currency="EUR",
        stock_quantity=7,
        image_url="https://cdn.example.com/tea.png",
        is_available=False,
        product_attributes={"purchase_url": "https://shop.example.com/tea", "origin": "Uji", "grams": 100},
    )

    (added,) = _add(database, account, catalog, draft)

    assert _get(database, account, added.id) == added
    assert (added.price, added.knowledge_base_id, added.media_file_ids) == (Decimal("12.34"), catalog, ())
    assert added.purchase_url == "https://shop.example.com/tea"


def test_optional_fields_read_back_as_none(database: Database, account: int, catalog: int) -> None:
    """A product with only a name has no price, untracked stock and empty attributes."""
    (added,) = _add(database, account, catalog, ProductDraft("Menu card"))

    found = _get(database, account, added.id)
    assert found is not None
    assert (found.price, found.stock_quantity, found.sku, found.category, found.product_attributes) == (
        None,
        None,
        None,
        None,
        {},
    )


@pytest.mark.parametrize("price", [Decimal("0.00"), Decimal("0.01"), Decimal("0.10"), Decimal("19.99"), PRICE_MAX])
def test_prices_are_exact_decimals(database: Database, account: int, catalog: int, price: Decimal) -> None:
    """Prices read back as the same two-place decimal, up to the largest allowed."""
    (added,) = _add(database, account, catalog, ProductDraft("Item", price=price))

    found = _get(database, account, added.id)
    assert found is not None and found.price is not None
    assert (found.price, found.price.as_tuple().exponent) == (price, -2)


def test_ids_ascend_in_the_order_given(database: Database, account: int, catalog: int) -> None:
    """add_many returns the products in the order given, with ascending ids."""
    added = _add(database, account, catalog, *(ProductDraft(f"P{n}") for n in range(30)))

    assert [p.name for p in added] == [f"P{n}" for n in range(30)]
    assert [p.id for p in added] == sorted(p.id for p in added)
    assert [p.name for p in added] == _names(database, account, ProductFilter())


def test_get_many_returns_only_existing_own_products(
    database: Database, account: int, other: int, catalog: int
) -> None:
    """Unknown ids and another account's ids are left out of get_many."""
    mine = _add(database, account, catalog, ProductDraft("A"), ProductDraft("B"))
    (theirs,) = _add(database, other, _catalog(database, other), ProductDraft("Theirs"))

    with database.uow.workspace(account, readonly=True) as uow:
        found = uow.products.get_many([mine[1].id, theirs.id, 987654, mine[0].id])

    assert found == {mine[0].id: mine[0], mine[1].id: mine[1]}


def test_get_many_of_nothing_is_empty(database: Database, account: int) -> None:
    """No ids, no products (and no query with an empty IN list)."""
    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.products.get_many([]) == {}


def test_other_accounts_product_is_none(database: Database, account: int, other: int) -> None:
    """Another account's product id reads as None."""
    (theirs,) = _add(database, other, _catalog(database, other), ProductDraft("Theirs"))

    assert _get(database, account, theirs.id) is None


def test_products_cannot_join_another_accounts_catalog(database: Database, account: int, other: int) -> None:
    """The composite foreign key refuses a product in a catalog of another account."""
    theirs = _catalog(database, other)

    with pytest.raises(IntegrityError), database.uow.workspace(account) as uow:
        uow.products.add_many(theirs, [ProductDraft("Sneaky")], START)


def test_for_catalog_lists_one_catalogs_products(database: Database, account: int, catalog: int) -> None:
    """for_catalog gives the products of that entry only, ascending id."""
    first = _add(database, account, catalog, ProductDraft("A"), ProductDraft("B"))
    _add(database, account, _catalog(database, account), ProductDraft("Elsewhere"))
    later = _add(database, account, catalog, ProductDraft("C"))

    with database.uow.workspace(account, readonly=True) as uow:
        assert list(uow.products.for_catalog(catalog)) == [*first, *later]


def test_delete_removes_only_that_product(database: Database, account: int, catalog: int) -> None:
    """delete() removes the product; its neighbours stay."""
    gone, kept = _add(database, account, catalog, ProductDraft("Gone"), ProductDraft("Kept"))

    with database.uow.workspace(account) as uow:
        uow.products.delete(gone.id)
        uow.commit()

    assert (_get(database, account, gone.id), _get(database, account, kept.id)) == (None, kept)


def test_deleting_another_accounts_product_does_nothing(database: Database, account: int, other: int) -> None:
    """delete() with another account's id leaves their product alone."""
    (theirs,) = _add(database, other, _catalog(database, other), ProductDraft("Theirs"))

    with database.uow.workspace(account) as uow:
        uow.products.delete(theirs.id)
        uow.commit()

    assert _get(database, other, theirs.id) == theirs


# -- finding ---------------------------------------------------------------------------------------


@pytest.fixture
def shelf(database: Database, account: int, catalog: int) -> None:
    """Four products to search: names, SKUs and categories in mixed case, one with no category."""
    _add(
        database,
        account,
        catalog,
        ProductDraft("Green Tea", sku="TEA-GRN", category="Drinks"),
        ProductDraft("Espresso", sku="COF-ESP", category="drinks"),
        ProductDraft("Croissant", sku="BAK-CRO", category="Bakery"),
        ProductDraft("Gift card", sku="GFT_10%"),
    )


@pytest.mark.usefixtures("shelf")
@pytest.mark.parametrize(
    ("search", "expected"),
    [
        ("tea", ["Green Tea"]),  # name
        ("cof-", ["Espresso"]),  # SKU, case-insensitive
        ("BAKERY", ["Croissant"]),  # category
        ("drink", ["Green Tea", "Espresso"]),  # category of two
        ("_10%", ["Gift card"]),  # LIKE wildcards match themselves
        ("%", ["Gift card"]),
        ("nothing", []),
    ],
)
def test_search_matches_name_sku_or_category(
    database: Database, account: int, search: str, expected: list[str]
) -> None:
    """search is a case-insensitive substring of the name, SKU or category, in catalogue order."""
    assert _names(database, account, ProductFilter(search=search)) == expected


def test_search_folds_case_beyond_ascii(database: Database, account: int, catalog: int) -> None:
    """Searching folds case as Python's casefold does, on both engines (`ß` matches `SS`)."""
    _add(database, account, catalog, ProductDraft("STRASSE map"), ProductDraft("ÉCLAIR"), ProductDraft("Bread"))

    assert (
        _names(database, account, ProductFilter(search="straße")),
        _names(database, account, ProductFilter(search="éclair")),
    ) == (["STRASSE map"], ["ÉCLAIR"])


@pytest.mark.usefixtures("shelf")
def test_category_filter_is_exact_and_case_insensitive(database: Database, account: int) -> None:
    """category matches the whole category, in any case; a prefix is no match."""
    assert (
        _names(database, account, ProductFilter(category="DRINKS")),
        _names(database, account, ProductFilter(category="drin")),
    ) == (["Green Tea", "Espresso"], [])


@pytest.mark.usefixtures("shelf")
def test_search_and_category_combine(database: Database, account: int) -> None:
    """Both filters must hold."""
    assert _names(database, account, ProductFilter(search="e", category="drinks")) == ["Green Tea", "Espresso"]
    assert _names(database, account, ProductFilter(search="croissant", category="drinks")) == []


def test_find_pages_in_catalogue_order(database: Database, account: int, catalog: int) -> None:
    """Pages slice the ascending-id order; the total counts every match; past the end is empty."""
    _add(database, account, catalog, *(ProductDraft(f"P{n}") for n in range(7)))

    with database.uow.workspace(account, readonly=True) as uow:
        second = uow.products.find(ProductFilter(), PageRequest(page=2, per_page=3))
        beyond = uow.products.find(ProductFilter(), PageRequest(page=4, per_page=3))

    assert ([p.name for p in second.items], second.total) == (["P3", "P4", "P5"], 7)
    assert (list(beyond.items), beyond.total) == ([], 7)


def test_find_sees_only_the_accounts_products(database: Database, account: int, other: int, catalog: int) -> None:
    """Listing products never shows another account's."""
    _add(database, other, _catalog(database, other), ProductDraft("Theirs"))
    _add(database, account, catalog, ProductDraft("Mine"))

    assert _names(database, account, ProductFilter()) == ["Mine"]


# -- stock -----------------------------------------------------------------------------------------


def test_take_stock_takes_when_enough_is_on_hand(database: Database, account: int, catalog: int) -> None:
    """Taking 3 of 5 leaves 2; taking the last 2 leaves 0."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=5))

    assert (_take(database, account, product.id, 3), _stock(database, account, product.id)) == (True, 2)
    assert (_take(database, account, product.id, 2), _stock(database, account, product.id)) == (True, 0)


def test_take_stock_refuses_more_than_on_hand(database: Database, account: int, catalog: int) -> None:
    """Asking for more than is on hand takes nothing."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=2))

    assert (_take(database, account, product.id, 3), _stock(database, account, product.id)) == (False, 2)


def test_take_stock_of_untracked_product_succeeds_and_changes_nothing(
    database: Database, account: int, catalog: int
) -> None:
    """Untracked stock is never short and stays untracked."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea"))

    assert (_take(database, account, product.id, 1000), _stock(database, account, product.id)) == (True, None)


def test_take_stock_of_missing_or_foreign_product_is_false(database: Database, account: int, other: int) -> None:
    """An unknown id, or another account's product, has nothing to take, and theirs is untouched."""
    (theirs,) = _add(database, other, _catalog(database, other), ProductDraft("Theirs", stock_quantity=5))

    assert (_take(database, account, 987654, 1), _take(database, account, theirs.id, 1)) == (False, False)
    assert _stock(database, other, theirs.id) == 5


def test_take_stock_is_one_conditional_update(
    database: Database, account: int, catalog: int, statements: list[str]
) -> None:
    """take_stock runs exactly one statement, an UPDATE: never a read followed by a write."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=5))

    with database.uow.workspace(account) as uow:
        statements.clear()
        uow.products.take_stock(product.id, 1)
        ran = list(statements)

    assert len(ran) == 1 and ran[0].lstrip().upper().startswith("UPDATE PRODUCTS")


def test_stock_moves_leave_updated_at_alone(database: Database, account: int, catalog: int) -> None:
    """Taking and restoring stock does not touch updated_at."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=5))

    _take(database, account, product.id, 2)
    _restore(database, account, product.id, 1)

    found = _get(database, account, product.id)
    assert found is not None and (found.stock_quantity, found.updated_at) == (4, START)


def test_restore_stock_adds_to_tracked_stock(database: Database, account: int, catalog: int) -> None:
    """Restoring 4 to 1 on hand makes 5."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=1))

    _restore(database, account, product.id, 4)

    assert _stock(database, account, product.id) == 5


def test_restore_stock_past_the_maximum_is_refused(database: Database, account: int, catalog: int) -> None:
    """Adding 3 to STOCK_MAX - 2 is refused and leaves the stock as it was."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=STOCK_MAX - 2))

    assert _restore(database, account, product.id, 3) is False
    assert _stock(database, account, product.id) == STOCK_MAX - 2


def test_restore_stock_leaves_untracked_and_foreign_products_alone(
    database: Database, account: int, other: int, catalog: int
) -> None:
    """Untracked stock stays untracked; another account's stock does not move."""
    (untracked,) = _add(database, account, catalog, ProductDraft("Tea"))
    (theirs,) = _add(database, other, _catalog(database, other), ProductDraft("Theirs", stock_quantity=5))

    _restore(database, account, untracked.id, 3)
    _restore(database, account, theirs.id, 3)

    assert (_stock(database, account, untracked.id), _stock(database, other, theirs.id)) == (None, 5)


def test_schema_refuses_negative_stock(database: Database, account: int, catalog: int) -> None:
    """Even a statement that bypasses take_stock cannot drive tracked stock below zero."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=1))

    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(update(products).where(products.c.id == product.id).values(stock_quantity=-1))


def test_restock_through_the_service(services: Services, database: Database, account: int, catalog: int) -> None:
    """ProductService.restock adds to the stock and returns the product as stored."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=STOCK_MAX - 5))

    restocked = services.products.restock(account, product.id, 5)

    assert restocked.stock_quantity == STOCK_MAX == _stock(database, account, product.id)


def test_restock_of_another_accounts_product_is_not_found(
    services: Services, database: Database, account: int, other: int
) -> None:
    """The service reports another account's product as 404 and leaves its stock alone."""
    (theirs,) = _add(database, other, _catalog(database, other), ProductDraft("Theirs", stock_quantity=5))

    with pytest.raises(NotFound):
        services.products.restock(account, theirs.id, 1)
    assert _stock(database, other, theirs.id) == 5
