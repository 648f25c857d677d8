"""Commerce: products and their stock, orders with their items, store references and the duplicate
window, through the repositories and the product and order services, on every adapter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import attrs
import pytest
from support import NOW, MakeContact

from engage_core.commerce.order_service import OrderInput, OrderPatch, PlacedOrder, StoreOrderInput, StoreOrderItemInput
from engage_core.commerce.orders import ItemRequest, Order, OrderDraft, OrderFilter, OrderItemDraft, duplicate_key
from engage_core.commerce.products import STOCK_MAX, Product, ProductDraft, ProductFilter, ProductInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.money import PRICE_MAX, TOTAL_MAX
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _order_events(outbox_events: Callable[..., list[DomainEvent]], account: int) -> list[tuple[str, Any]]:
    return [(e.name, e.payload) for e in outbox_events(account) if e.name.startswith("order.")]


@pytest.fixture
def catalog(uow: UnitOfWorkFactory, account: int) -> int:
    """A product catalog entry of `account`."""
    return _catalog(uow, account)


def _catalog(uow: UnitOfWorkFactory, account: int) -> int:
    with uow.workspace(account) as unit:
        entry = unit.knowledge_base.add(KnowledgeBaseDraft("Menu", "product_catalog"), NOW)
        unit.commit()
    return entry.id


def _add_products(uow: UnitOfWorkFactory, account: int, catalog: int, *drafts: ProductDraft) -> Sequence[Product]:
    with uow.workspace(account) as unit:
        added = unit.products.add_many(catalog, drafts, NOW)
        unit.commit()
    return added


def _get_product(uow: UnitOfWorkFactory, account: int, product_id: int) -> Product | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.products.get(product_id)


def _stock_of(uow: UnitOfWorkFactory, account: int, product_id: int) -> int | None:
    product = _get_product(uow, account, product_id)
    assert product is not None
    return product.stock_quantity


def _product_names(
    uow: UnitOfWorkFactory, account: int, filters: ProductFilter, page: PageRequest | None = None
) -> list[str]:
    with uow.workspace(account, readonly=True) as unit:
        return [p.name for p in unit.products.find(filters, page or PageRequest(per_page=100)).items]


def _take(uow: UnitOfWorkFactory, account: int, product_id: int, quantity: int) -> bool:
    with uow.workspace(account) as unit:
        taken = unit.products.take_stock(product_id, quantity)
        unit.commit()
    return taken


def _restore(uow: UnitOfWorkFactory, account: int, product_id: int, quantity: int) -> bool:
    with uow.workspace(account) as unit:
        restored = unit.products.restore_stock(product_id, quantity)
        unit.commit()
    return restored


@pytest.fixture
def shelf(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Four products to search: names, SKUs and categories in mixed case, one with no category."""
    _add_products(
        uow,
        account,
        catalog,
        ProductDraft("Green Tea", sku="TEA-GRN", category="Drinks"),
        ProductDraft("Espresso", sku="COF-ESP", category="drinks"),
        ProductDraft("Croissant", sku="BAK-CRO", category="Bakery"),
        ProductDraft("Gift card", sku="GFT_10%"),
    )


def test_added_product_reads_back_equal(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
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

    (added,) = _add_products(uow, account, catalog, draft)

    assert _get_product(uow, account, added.id) == added
    assert (added.price, added.knowledge_base_id, added.media_file_ids) == (Decimal("12.34"), catalog, ())
    assert added.purchase_url == "https://shop.example.com/tea"


def test_optional_fields_read_back_as_none(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """A product with only a name has no price, untracked stock and empty attributes."""
    (added,) = _add_products(uow, account, catalog, ProductDraft("Menu card"))

    found = _get_product(uow, account, added.id)
    assert found is not None
    assert (found.price, found.stock_quantity, found.sku, found.category, found.product_attributes) == (
        None,
        None,
        None,
        None,
        {},
    )


@pytest.mark.parametrize("price", [Decimal("0.00"), Decimal("0.01"), Decimal("0.10"), Decimal("19.99"), PRICE_MAX])
def test_prices_are_exact_decimals(uow: UnitOfWorkFactory, account: int, catalog: int, price: Decimal) -> None:
    """Prices read back as the same two-place decimal, up to the largest allowed."""
    (added,) = _add_products(uow, account, catalog, ProductDraft("Item", price=price))

    found = _get_product(uow, account, added.id)
    assert found is not None and found.price is not None
    assert (found.price, found.price.as_tuple().exponent) == (price, -2)


def test_ids_ascend_in_the_order_given(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """add_many returns the products in the order given, with ascending ids."""
    added = _add_products(uow, account, catalog, *(ProductDraft(f"P{n}") for n in range(30)))

    assert [p.name for p in added] == [f"P{n}" for n in range(30)]
    assert [p.id for p in added] == sorted(p.id for p in added)
    assert [p.name for p in added] == _product_names(uow, account, ProductFilter())


def test_get_many_returns_only_existing_own_products(
    uow: UnitOfWorkFactory, account: int, other: int, catalog: int
) -> None:
    """Unknown ids and another account's ids are left out of get_many."""
    mine = _add_products(uow, account, catalog, ProductDraft("A"), ProductDraft("B"))
    (theirs,) = _add_products(uow, other, _catalog(uow, other), ProductDraft("Theirs"))

    with uow.workspace(account, readonly=True) as unit:
        found = unit.products.get_many([mine[1].id, theirs.id, 987654, mine[0].id])

    assert found == {mine[0].id: mine[0], mine[1].id: mine[1]}


def test_get_many_of_nothing_is_empty(uow: UnitOfWorkFactory, account: int) -> None:
    """No ids, no products (and no query with an empty IN list)."""
    with uow.workspace(account, readonly=True) as unit:
        assert unit.products.get_many([]) == {}


def test_other_accounts_product_is_none(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's product id reads as None."""
    (theirs,) = _add_products(uow, other, _catalog(uow, other), ProductDraft("Theirs"))

    assert _get_product(uow, account, theirs.id) is None


def test_for_catalog_lists_one_catalogs_products(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """for_catalog gives the products of that entry only, ascending id."""
    first = _add_products(uow, account, catalog, ProductDraft("A"), ProductDraft("B"))
    _add_products(uow, account, _catalog(uow, account), ProductDraft("Elsewhere"))
    later = _add_products(uow, account, catalog, ProductDraft("C"))

    with uow.workspace(account, readonly=True) as unit:
        assert list(unit.products.for_catalog(catalog)) == [*first, *later]


def test_delete_removes_only_that_product(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """delete() removes the product; its neighbours stay."""
    gone, kept = _add_products(uow, account, catalog, ProductDraft("Gone"), ProductDraft("Kept"))

    with uow.workspace(account) as unit:
        unit.products.delete(gone.id)
        unit.commit()

    assert (_get_product(uow, account, gone.id), _get_product(uow, account, kept.id)) == (None, kept)


def test_deleting_another_accounts_product_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """delete() with another account's id leaves their product alone."""
    (theirs,) = _add_products(uow, other, _catalog(uow, other), ProductDraft("Theirs"))

    with uow.workspace(account) as unit:
        unit.products.delete(theirs.id)
        unit.commit()

    assert _get_product(uow, other, theirs.id) == theirs


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
    uow: UnitOfWorkFactory, account: int, search: str, expected: list[str]
) -> None:
    """search is a case-insensitive substring of the name, SKU or category, in catalogue order."""
    assert _product_names(uow, account, ProductFilter(search=search)) == expected


def test_search_folds_case_beyond_ascii(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Searching folds case as Python's casefold does, on both engines (`ß` matches `SS`)."""
    _add_products(uow, account, catalog, ProductDraft("STRASSE map"), ProductDraft("ÉCLAIR"), ProductDraft("Bread"))

    assert (
        _product_names(uow, account, ProductFilter(search="straße")),
        _product_names(uow, account, ProductFilter(search="éclair")),
    ) == (["STRASSE map"], ["ÉCLAIR"])


@pytest.mark.usefixtures("shelf")
def test_category_filter_is_exact_and_case_insensitive(uow: UnitOfWorkFactory, account: int) -> None:
    """category matches the whole category, in any case; a prefix is no match."""
    assert (
        _product_names(uow, account, ProductFilter(category="DRINKS")),
        _product_names(uow, account, ProductFilter(category="drin")),
    ) == (["Green Tea", "Espresso"], [])


@pytest.mark.usefixtures("shelf")
def test_search_and_category_combine(uow: UnitOfWorkFactory, account: int) -> None:
    """Both filters must hold."""
    assert _product_names(uow, account, ProductFilter(search="e", category="drinks")) == ["Green Tea", "Espresso"]
    assert _product_names(uow, account, ProductFilter(search="croissant", category="drinks")) == []


def test_find_pages_in_catalogue_order(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Pages slice the ascending-id order; the total counts every match; past the end is empty."""
    _add_products(uow, account, catalog, *(ProductDraft(f"P{n}") for n in range(7)))

    with uow.workspace(account, readonly=True) as unit:
        second = unit.products.find(ProductFilter(), PageRequest(page=2, per_page=3))
        beyond = unit.products.find(ProductFilter(), PageRequest(page=4, per_page=3))

    assert ([p.name for p in second.items], second.total) == (["P3", "P4", "P5"], 7)
    assert (list(beyond.items), beyond.total) == ([], 7)


def test_find_sees_only_the_accounts_products(uow: UnitOfWorkFactory, account: int, other: int, catalog: int) -> None:
    """Listing products never shows another account's."""
    _add_products(uow, other, _catalog(uow, other), ProductDraft("Theirs"))
    _add_products(uow, account, catalog, ProductDraft("Mine"))

    assert _product_names(uow, account, ProductFilter()) == ["Mine"]


def test_take_stock_takes_when_enough_is_on_hand(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Taking 3 of 5 leaves 2; taking the last 2 leaves 0."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea", stock_quantity=5))

    assert (_take(uow, account, product.id, 3), _stock_of(uow, account, product.id)) == (True, 2)
    assert (_take(uow, account, product.id, 2), _stock_of(uow, account, product.id)) == (True, 0)


def test_take_stock_refuses_more_than_on_hand(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Asking for more than is on hand takes nothing."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea", stock_quantity=2))

    assert (_take(uow, account, product.id, 3), _stock_of(uow, account, product.id)) == (False, 2)


def test_take_stock_of_untracked_product_succeeds_and_changes_nothing(
    uow: UnitOfWorkFactory, account: int, catalog: int
) -> None:
    """Untracked stock is never short and stays untracked."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea"))

    assert (_take(uow, account, product.id, 1000), _stock_of(uow, account, product.id)) == (True, None)


def test_take_stock_of_missing_or_foreign_product_is_false(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """An unknown id, or another account's product, has nothing to take, and theirs is untouched."""
    (theirs,) = _add_products(uow, other, _catalog(uow, other), ProductDraft("Theirs", stock_quantity=5))

    assert (_take(uow, account, 987654, 1), _take(uow, account, theirs.id, 1)) == (False, False)
    assert _stock_of(uow, other, theirs.id) == 5


def test_stock_moves_leave_updated_at_alone(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Taking and restoring stock does not touch updated_at."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea", stock_quantity=5))

    _take(uow, account, product.id, 2)
    _restore(uow, account, product.id, 1)

    found = _get_product(uow, account, product.id)
    assert found is not None and (found.stock_quantity, found.updated_at) == (4, NOW)


def test_restore_stock_adds_to_tracked_stock(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Restoring 4 to 1 on hand makes 5."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea", stock_quantity=1))

    _restore(uow, account, product.id, 4)

    assert _stock_of(uow, account, product.id) == 5


def test_restore_stock_past_the_maximum_is_refused(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Adding 3 to STOCK_MAX - 2 is refused and leaves the stock as it was."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea", stock_quantity=STOCK_MAX - 2))

    assert _restore(uow, account, product.id, 3) is False
    assert _stock_of(uow, account, product.id) == STOCK_MAX - 2


def test_restore_stock_leaves_untracked_and_foreign_products_alone(
    uow: UnitOfWorkFactory, account: int, other: int, catalog: int
) -> None:
    """Untracked stock stays untracked; another account's stock does not move."""
    (untracked,) = _add_products(uow, account, catalog, ProductDraft("Tea"))
    (theirs,) = _add_products(uow, other, _catalog(uow, other), ProductDraft("Theirs", stock_quantity=5))

    _restore(uow, account, untracked.id, 3)
    _restore(uow, account, theirs.id, 3)

    assert (_stock_of(uow, account, untracked.id), _stock_of(uow, other, theirs.id)) == (None, 5)


def test_restock_through_the_service(services: Services, uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """ProductService.restock adds to the stock and returns the product as stored."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea", stock_quantity=STOCK_MAX - 5))

    restocked = services.products.restock(account, product.id, 5)

    assert restocked.stock_quantity == STOCK_MAX == _stock_of(uow, account, product.id)


def test_restock_of_another_accounts_product_is_not_found(
    services: Services, uow: UnitOfWorkFactory, account: int, other: int
) -> None:
    """The service reports another account's product as 404 and leaves its stock alone."""
    (theirs,) = _add_products(uow, other, _catalog(uow, other), ProductDraft("Theirs", stock_quantity=5))

    with pytest.raises(NotFound):
        services.products.restock(account, theirs.id, 1)
    assert _stock_of(uow, other, theirs.id) == 5


@pytest.fixture
def make_product(services: Services, account: int) -> Callable[..., Product]:
    """`make_product(name="Tea", price="3.50", stock_quantity=10, account_id=account) -> Product`."""

    def make(
        name: str = "Tea", price: Any = "3.50", stock_quantity: Any = 10, account_id: int | None = None
    ) -> Product:
        data = CatalogInput(
            f"{name} catalog", products=[ProductInput(name, price=price, stock_quantity=stock_quantity)]
        )
        return services.knowledge_base.create_catalog(account if account_id is None else account_id, data).products[0]

    return make


def _place(services: Services, account: int, *lines: tuple[Product, int], **fields: Any) -> PlacedOrder:
    data = OrderInput(items=[ItemRequest(p.id, q) for p, q in lines], **({"customer_name": "Ada"} | fields))
    return services.orders.create(account, data)


def _stock(services: Services, account: int, product: Product) -> int | None:
    return services.products.get(account, product.id).stock_quantity


def _line(name: str = "Tea", quantity: int = 1, price: str = "3.50", product_id: int | None = None) -> OrderItemDraft:
    return OrderItemDraft(product_id, name, f"SKU-{name}", quantity, Decimal(price))


def _draft(*items: OrderItemDraft, **fields: Any) -> OrderDraft:
    lines = items or (_line(),)
    subtotal = sum((i.total_price for i in lines), Decimal("0.00"))
    defaults: dict[str, Any] = {
        "contact_id": None,
        "customer_name": "Ada",
        "customer_phone": None,
        "customer_email": None,
        "currency": "USD",
        "items": lines,
        "subtotal": subtotal,
        "total": subtotal,
        "created_by": "api",
    }
    return OrderDraft(**(defaults | fields))


def _add(uow: UnitOfWorkFactory, account: int, draft: OrderDraft, now: datetime = NOW) -> Order:
    with uow.workspace(account) as unit:
        order = unit.orders.add(draft, now)
        unit.commit()
    return order


def _get(uow: UnitOfWorkFactory, account: int, order_id: int) -> Order | None:
    with uow.workspace(account, readonly=True) as unit:
        return unit.orders.get(order_id)


def _names(uow: UnitOfWorkFactory, account: int, filters: OrderFilter, page: PageRequest | None = None) -> list[str]:
    with uow.workspace(account, readonly=True) as unit:
        return [o.customer_name for o in unit.orders.find(filters, page or PageRequest(per_page=100)).items]


def _duplicate(uow: UnitOfWorkFactory, account: int, key: str, since: datetime) -> Order | None:
    with uow.workspace(account) as unit:
        return unit.orders.find_duplicate(key, since)


@pytest.fixture
def ledger(uow: UnitOfWorkFactory, account: int) -> None:
    """Orders differing in status, contact and source."""
    _add(uow, account, _draft(customer_name="pending api"))
    _add(uow, account, _draft(customer_name="shipped manual", status="shipped", created_by="manual"))
    _add(uow, account, _draft(customer_name="pending contact 5", contact_id=5, created_by="ai_agent"))
    _add(uow, account, _draft(customer_name="shipped contact 5", contact_id=5, status="shipped"))


def test_added_order_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of an order and its items survives the round trip, amounts exact."""
    draft = _draft(
        _line("Tea", 3, "3.35", product_id=41),
        _line("Store-only mug", 1, "12.00"),
        contact_id=77,
        customer_name="Ada Lovelace",
        customer_phone="+966501234567",
        customer_email="ada@example.com",
        currency="SAR",
        created_by="store_platform",
        status="cancelled",
        shipping_address="12 St James's Square",
        notes="Leave at the door",
        cancelled_at=NOW,
        cancellation_reason="Changed her mind",
        external_reference="shop-1001",
        duplicate_key="d" * 64,
    )

    added = _add(uow, account, draft)

    assert _get(uow, account, added.id) == added
    assert (added.subtotal, [i.total_price for i in added.items]) == (
        Decimal("22.05"),
        [Decimal("10.05"), Decimal("12.00")],
    )
    assert attrs.evolve(added, id=0, items=()) == Order(
        0, 77, "Ada Lovelace", "+966501234567", "ada@example.com", "cancelled", Decimal("22.05"), Decimal("22.05"),
        "SAR", "12 St James's Square", "Leave at the door", "store_platform", (), NOW, "Changed her mind", NOW,
        NOW, "shop-1001", "d" * 64,
    )  # fmt: skip


def test_largest_amounts_are_exact(uow: UnitOfWorkFactory, account: int) -> None:
    """The largest unit price and order total read back to the cent."""
    line = OrderItemDraft(None, "Yacht", None, 1, PRICE_MAX)
    draft = _draft(line, subtotal=TOTAL_MAX, total=TOTAL_MAX)

    found = _get(uow, account, _add(uow, account, draft).id)

    assert found is not None
    assert (found.items[0].unit_price, found.subtotal, found.total) == (PRICE_MAX, TOTAL_MAX, TOTAL_MAX)


def test_item_ids_ascend_in_the_order_given(uow: UnitOfWorkFactory, account: int) -> None:
    """Items come back in the order given, with ascending ids."""
    names = [f"Line {n}" for n in range(12)]

    order = _add(uow, account, _draft(*(_line(name) for name in names)))

    found = _get(uow, account, order.id)
    assert found is not None and [i.product_name for i in found.items] == names
    assert [i.id for i in found.items] == sorted(i.id for i in found.items)


def test_missing_and_foreign_orders_are_none(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """An unknown id and another account's order both read as None."""
    theirs = _add(uow, other, _draft())

    assert (_get(uow, account, theirs.id), _get(uow, account, 987654)) == (None, None)


def test_update_stores_the_scalar_fields_and_keeps_the_items(uow: UnitOfWorkFactory, account: int) -> None:
    """update() writes every scalar field; items change only through replace_items."""
    order = _add(uow, account, _draft(_line("Tea", 2)))
    later = NOW + timedelta(hours=2)
    changed = attrs.evolve(
        order,
        status="cancelled",
        notes="Out of town",
        shipping_address="Elsewhere 1",
        cancelled_at=later,
        cancellation_reason="Too late",
        subtotal=Decimal("1.10"),
        total=Decimal("1.10"),
        duplicate_key="e" * 64,
        updated_at=later,
        items=(),
    )

    with uow.workspace(account) as unit:
        unit.orders.update(changed)
        unit.commit()

    assert _get(uow, account, order.id) == attrs.evolve(changed, items=order.items)


def test_updating_another_accounts_order_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """update() with another account's order id leaves their order alone."""
    theirs = _add(uow, other, _draft())

    with uow.workspace(account) as unit:
        unit.orders.update(attrs.evolve(theirs, status="cancelled", notes="mine now"))
        unit.commit()

    assert _get(uow, other, theirs.id) == theirs


def test_replace_items_stores_new_rows(uow: UnitOfWorkFactory, account: int) -> None:
    """replace_items drops the old rows and stores the new ones with new, ascending ids."""
    order = _add(uow, account, _draft(_line("Old A"), _line("Old B")))

    with uow.workspace(account) as unit:
        stored = unit.orders.replace_items(order.id, [_line("New A", 2), _line("New B"), _line("New C")])
        unit.commit()

    found = _get(uow, account, order.id)
    assert found is not None and found.items == stored
    assert [i.product_name for i in stored] == ["New A", "New B", "New C"]
    assert min(i.id for i in stored) > max(i.id for i in order.items)
    assert [i.id for i in stored] == sorted(i.id for i in stored)


def test_replace_items_of_another_accounts_order_does_nothing(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """replace_items returns nothing for another account's order and leaves its items alone."""
    theirs = _add(uow, other, _draft(_line("Theirs")))

    with uow.workspace(account) as unit:
        stored = unit.orders.replace_items(theirs.id, [_line("Mine")])
        unit.commit()

    assert (stored, _get(uow, other, theirs.id)) == ((), theirs)


def test_items_keep_their_snapshot_when_the_product_is_deleted(
    services: Services, account: int, make_product: Callable[..., Product]
) -> None:
    """Deleting a product leaves the order's line, product_id included, as it was."""
    product = make_product("Tea")
    order = _place(services, account, (product, 2)).order

    services.knowledge_base.delete_product(account, product.knowledge_base_id, product.id)

    assert services.orders.get(account, order.id) == order


def test_by_external_reference_finds_the_store_order(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """The reference finds the account's own store order only."""
    mine = _add(uow, account, _draft(external_reference="shop-7", created_by="store_platform"))
    _add(uow, other, _draft(external_reference="shop-8", created_by="store_platform"))

    with uow.workspace(account, readonly=True) as unit:
        found = (unit.orders.by_external_reference("shop-7"), unit.orders.by_external_reference("shop-8"))

    assert found == (mine, None)


def test_a_reference_is_unique_per_account(uow: UnitOfWorkFactory, account: int) -> None:
    """A second order with a taken reference is refused, and the transaction remains usable."""
    _add(uow, account, _draft(external_reference="shop-7", created_by="store_platform"))

    with uow.workspace(account) as unit:
        with pytest.raises(ValidationFailed) as refused:
            unit.orders.add(_draft(external_reference="shop-7", created_by="store_platform"), NOW)
        kept = unit.orders.add(_draft(customer_name="After"), NOW)
        unit.commit()

    assert list(refused.value.errors) == ["external_reference"]
    assert _get(uow, account, kept.id) == kept


def test_the_same_reference_in_two_accounts_is_two_orders(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Store references are unique within an account only."""
    mine = _add(uow, account, _draft(external_reference="shop-7", created_by="store_platform"))
    theirs = _add(uow, other, _draft(external_reference="shop-7", created_by="store_platform"))

    assert mine.id != theirs.id


def test_find_duplicate_returns_the_newest_inside_the_window(uow: UnitOfWorkFactory, account: int) -> None:
    """The newest order with the key created strictly after `since` is the duplicate."""
    key = "k" * 64
    _add(uow, account, _draft(customer_name="At the edge", duplicate_key=key), NOW)
    newest = _add(uow, account, _draft(customer_name="Newest", duplicate_key=key), NOW + timedelta(seconds=2))
    _add(uow, account, _draft(customer_name="Older", duplicate_key=key), NOW + timedelta(seconds=1))

    assert _duplicate(uow, account, key, NOW) == newest
    assert _duplicate(uow, account, key, NOW + timedelta(seconds=2)) is None


def test_find_duplicate_ignores_cancelled_orders_other_keys_and_accounts(
    uow: UnitOfWorkFactory, account: int, other: int
) -> None:
    """Cancelled orders, orders with another key and another account's orders are never duplicates."""
    key = "k" * 64
    _add(uow, account, _draft(duplicate_key=key, status="cancelled", cancelled_at=NOW))
    _add(uow, account, _draft(duplicate_key="x" * 64))
    _add(uow, other, _draft(duplicate_key=key))

    assert _duplicate(uow, account, key, NOW - timedelta(minutes=5)) is None


def test_find_lists_newest_first(uow: UnitOfWorkFactory, account: int) -> None:
    """Orders come newest first; orders of the same instant, highest id first."""
    _add(uow, account, _draft(customer_name="old"), NOW)
    _add(uow, account, _draft(customer_name="tie 1"), NOW + timedelta(seconds=1))
    _add(uow, account, _draft(customer_name="tie 2"), NOW + timedelta(seconds=1))
    _add(uow, account, _draft(customer_name="new"), NOW + timedelta(seconds=1, microseconds=1))

    assert _names(uow, account, OrderFilter()) == ["new", "tie 2", "tie 1", "old"]


@pytest.mark.usefixtures("ledger")
@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (OrderFilter(status="shipped"), ["shipped contact 5", "shipped manual"]),
        (OrderFilter(contact_id=5), ["shipped contact 5", "pending contact 5"]),
        (OrderFilter(created_by="manual"), ["shipped manual"]),
        (OrderFilter(status="pending", contact_id=5), ["pending contact 5"]),
        (OrderFilter(status="delivered"), []),
    ],
)
def test_find_filters_by_status_contact_and_source(
    uow: UnitOfWorkFactory, account: int, filters: OrderFilter, expected: list[str]
) -> None:
    """Each filter narrows the list as `OrderFilter.matches` does; filters combine."""
    assert _names(uow, account, filters) == expected


def test_date_filters_are_whole_utc_days(uow: UnitOfWorkFactory, account: int) -> None:
    """date_from and date_to include the whole of their UTC day, to the last microsecond."""
    midnight = datetime(2026, 3, 2, tzinfo=UTC)
    _add(uow, account, _draft(customer_name="last of 1st"), midnight - timedelta(microseconds=1))
    _add(uow, account, _draft(customer_name="first of 2nd"), midnight)
    _add(uow, account, _draft(customer_name="last of 2nd"), midnight + timedelta(days=1, microseconds=-1))
    _add(uow, account, _draft(customer_name="first of 3rd"), midnight + timedelta(days=1))

    assert _names(uow, account, OrderFilter(date_from=date(2026, 3, 2), date_to=date(2026, 3, 2))) == [
        "last of 2nd",
        "first of 2nd",
    ]
    assert _names(uow, account, OrderFilter(date_to=date(2026, 3, 1))) == ["last of 1st"]
    assert _names(uow, account, OrderFilter(date_from=date(2026, 3, 3))) == ["first of 3rd"]


def test_date_filters_accept_the_extreme_days(uow: UnitOfWorkFactory, account: int) -> None:
    """The first and last representable days are valid bounds, not overflows."""
    _add(uow, account, _draft(customer_name="any"))

    assert _names(uow, account, OrderFilter(date_from=date.min, date_to=date.max)) == ["any"]


def test_find_pages_newest_first(uow: UnitOfWorkFactory, account: int) -> None:
    """Pages slice the newest-first order; the total counts every match; past the end is empty."""
    for n in range(7):
        _add(uow, account, _draft(customer_name=f"O{n}"), NOW + timedelta(seconds=n))

    with uow.workspace(account, readonly=True) as unit:
        second = unit.orders.find(OrderFilter(), PageRequest(page=2, per_page=3))
        beyond = unit.orders.find(OrderFilter(), PageRequest(page=4, per_page=3))

    assert ([o.customer_name for o in second.items], second.total) == (["O3", "O2", "O1"], 7)
    assert (list(beyond.items), beyond.total) == ([], 7)


def test_found_orders_carry_their_items(uow: UnitOfWorkFactory, account: int) -> None:
    """Each listed order has its own items, in order."""
    first = _add(uow, account, _draft(_line("A"), _line("B")), NOW)
    second = _add(uow, account, _draft(_line("C")), NOW + timedelta(seconds=1))

    with uow.workspace(account, readonly=True) as unit:
        assert list(unit.orders.find(OrderFilter(), PageRequest()).items) == [second, first]


def test_find_sees_only_the_accounts_orders(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Listing orders never shows another account's."""
    _add(uow, other, _draft(customer_name="theirs", contact_id=5))
    _add(uow, account, _draft(customer_name="mine", contact_id=5))

    assert _names(uow, account, OrderFilter(contact_id=5)) == ["mine"]


def test_placing_takes_stock_and_records_order_created(
    services: Services,
    account: int,
    make_product: Callable[..., Product],
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """An order takes its stock and commits `order.created` with the order's payload."""
    tea, cake = make_product("Tea", stock_quantity=5), make_product("Cake", price="2.25", stock_quantity=None)

    order = _place(services, account, (tea, 2), (cake, 3)).order

    assert services.orders.get(account, order.id) == order
    assert (_stock(services, account, tea), _stock(services, account, cake), order.subtotal) == (
        3,
        None,
        Decimal("13.75"),
    )
    assert _order_events(outbox_events, account) == [("order.created", order.event_payload())]


def test_a_refused_order_writes_nothing(
    services: Services,
    account: int,
    make_product: Callable[..., Product],
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Too little stock of one line: no order, no stock taken from the others, no event."""
    tea, cake = make_product("Tea", stock_quantity=5), make_product("Cake", stock_quantity=1)

    with pytest.raises(ValidationFailed) as refused:
        _place(services, account, (tea, 2), (cake, 2))

    assert list(refused.value.errors) == ["items.1.quantity"]
    assert (_stock(services, account, tea), _stock(services, account, cake)) == (5, 1)
    assert services.orders.find(account, OrderFilter(), PageRequest()).total == 0
    assert _order_events(outbox_events, account) == []


def test_an_identical_order_is_the_same_order(
    services: Services, account: int, make_product: Callable[..., Product], make_contact: MakeContact
) -> None:
    """The same contact, products and quantities within five minutes return the first order, taking no stock."""
    tea, cake = make_product("Tea"), make_product("Cake")
    contact = make_contact()
    first = _place(services, account, (tea, 1), (cake, 2), contact_id=contact.id)

    again = _place(services, account, (cake, 2), (tea, 1), contact_id=contact.id)

    assert (again.order, again.is_duplicate) == (first.order, True)
    assert (_stock(services, account, tea), _stock(services, account, cake)) == (9, 8)


def test_five_minutes_later_it_is_a_new_order(
    services: Services,
    account: int,
    clock: FakeClock,
    make_product: Callable[..., Product],
    make_contact: MakeContact,
) -> None:
    """The window is open for less than five minutes: at five minutes the same order is new."""
    tea = make_product("Tea")
    contact = make_contact()
    first = _place(services, account, (tea, 1), contact_id=contact.id)

    clock.advance(minutes=5)
    again = _place(services, account, (tea, 1), contact_id=contact.id)

    assert (again.is_duplicate, again.order.id != first.order.id) == (False, True)


def test_a_cancelled_order_has_no_duplicate(
    services: Services, account: int, make_product: Callable[..., Product], make_contact: MakeContact
) -> None:
    """Once cancelled, the same order can be placed again at once."""
    tea = make_product("Tea")
    contact = make_contact()
    first = _place(services, account, (tea, 1), contact_id=contact.id).order
    services.orders.cancel(account, first.id)

    assert _place(services, account, (tea, 1), contact_id=contact.id).is_duplicate is False


def test_the_stored_duplicate_key_is_the_cores(
    services: Services, account: int, make_product: Callable[..., Product], make_contact: MakeContact
) -> None:
    """The order stores `duplicate_key(contact, items)`, the value the window looks up."""
    tea = make_product("Tea")
    contact = make_contact()

    order = _place(services, account, (tea, 2), contact_id=contact.id).order

    assert order.duplicate_key == duplicate_key(contact.id, [ItemRequest(tea.id, 2)])
    assert services.orders.get(account, order.id).duplicate_key == order.duplicate_key


def test_cancel_restores_stock_and_records_both_events(
    services: Services,
    account: int,
    make_product: Callable[..., Product],
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Cancelling a pending order puts its stock back and commits order.updated then order.cancelled."""
    tea = make_product("Tea", stock_quantity=5)
    order = _place(services, account, (tea, 3)).order

    cancelled = services.orders.cancel(account, order.id, "Changed my mind")

    assert (_stock(services, account, tea), services.orders.get(account, order.id)) == (5, cancelled)
    assert _order_events(outbox_events, account)[1:] == [
        ("order.updated", cancelled.event_payload()),
        ("order.cancelled", cancelled.cancelled_payload()),
    ]


def test_cancelling_a_processing_order_keeps_the_stock_out(
    services: Services, account: int, make_product: Callable[..., Product]
) -> None:
    """A cancellation from processing restores nothing (the goods may be picked already)."""
    tea = make_product("Tea", stock_quantity=5)
    order = _place(services, account, (tea, 3)).order
    services.orders.update(account, order.id, OrderPatch(status="confirmed"))
    services.orders.update(account, order.id, OrderPatch(status="processing"))

    services.orders.update(account, order.id, OrderPatch(status="cancelled", cancellation_reason="Lost parcel"))

    assert _stock(services, account, tea) == 2


def test_replacing_items_moves_stock_by_the_difference(
    services: Services,
    account: int,
    make_product: Callable[..., Product],
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """More of a product takes the extra, less or none gives back the rest, a new one takes its own."""
    tea, cake, jam = (make_product(name, stock_quantity=10) for name in ("Tea", "Cake", "Jam"))
    order = _place(services, account, (tea, 3), (cake, 4)).order

    changed = services.orders.replace_items(account, order.id, [ItemRequest(tea.id, 5), ItemRequest(jam.id, 2)])

    assert [_stock(services, account, p) for p in (tea, cake, jam)] == [5, 10, 8]
    assert services.orders.get(account, order.id) == changed
    assert _order_events(outbox_events, account)[-1] == ("order.updated", changed.event_payload())


def test_replacing_beyond_the_stock_changes_nothing(
    services: Services, account: int, make_product: Callable[..., Product]
) -> None:
    """Asking for more than is on hand plus what the order holds is refused; nothing moves."""
    tea = make_product("Tea", stock_quantity=4)
    order = _place(services, account, (tea, 3)).order

    with pytest.raises(ValidationFailed):
        services.orders.replace_items(account, order.id, [ItemRequest(tea.id, 5)])

    assert (_stock(services, account, tea), services.orders.get(account, order.id)) == (1, order)


def test_status_moves_record_their_events(
    services: Services,
    account: int,
    make_product: Callable[..., Product],
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Each move commits order.updated; delivery adds order.delivered."""
    order = _place(services, account, (make_product(), 1)).order
    for status in ("confirmed", "processing", "shipped", "delivered"):
        services.orders.update(account, order.id, OrderPatch(status=status))

    assert [name for name, _ in _order_events(outbox_events, account)] == [
        "order.created",
        "order.updated",
        "order.updated",
        "order.updated",
        "order.updated",
        "order.delivered",
    ]


def test_store_orders_are_imported_once(
    services: Services,
    account: int,
    make_product: Callable[..., Product],
    outbox_events: Callable[..., list[DomainEvent]],
) -> None:
    """Importing a store reference again returns the stored order; local stock never moves."""
    tea = make_product("Tea", stock_quantity=5)
    data = StoreOrderInput(
        "shop-1001", "Ada", [StoreOrderItemInput("Tea", 2, "4.10", product_id=tea.id)], currency="eur"
    )

    first = services.orders.import_store_order(account, data)
    again = services.orders.import_store_order(account, data)

    assert (again.order, again.is_duplicate, first.is_duplicate) == (first.order, True, False)
    assert (first.order.external_reference, first.order.subtotal, _stock(services, account, tea)) == (
        "shop-1001",
        Decimal("8.20"),
        5,
    )
    assert [name for name, _ in _order_events(outbox_events, account)] == ["order.created"]


def test_another_accounts_order_is_not_found_through_the_service(
    services: Services, account: int, other: int, make_product: Callable[..., Product]
) -> None:
    """Reading, changing, cancelling or re-itemising another account's order is 404."""
    theirs_product = make_product("Theirs", account_id=other)
    theirs = _place(services, other, (theirs_product, 1)).order

    attempts: Sequence[Callable[[], object]] = (
        lambda: services.orders.get(account, theirs.id),
        lambda: services.orders.update(account, theirs.id, OrderPatch(notes="mine")),
        lambda: services.orders.cancel(account, theirs.id),
        lambda: services.orders.replace_items(account, theirs.id, [ItemRequest(theirs_product.id, 1)]),
    )
    for attempt in attempts:
        with pytest.raises(NotFound):
            attempt()
    assert services.orders.get(other, theirs.id) == theirs


def test_another_accounts_product_cannot_be_ordered(
    services: Services, account: int, other: int, make_product: Callable[..., Product]
) -> None:
    """A product id of another account is an unknown product, and its stock does not move."""
    theirs = make_product("Theirs", stock_quantity=3, account_id=other)

    with pytest.raises(ValidationFailed) as refused:
        _place(services, account, (theirs, 1))

    assert list(refused.value.errors) == ["items.0.product_id"]
    assert _stock(services, other, theirs) == 3


def test_restore_stock_of_a_missing_product_is_false(uow: UnitOfWorkFactory, account: int) -> None:
    """An unknown product id has no stock to restore."""
    assert _restore(uow, account, 987654, 1) is False


def test_restore_stock_up_to_the_maximum_is_accepted(uow: UnitOfWorkFactory, account: int, catalog: int) -> None:
    """Restoring exactly up to STOCK_MAX is allowed."""
    (product,) = _add_products(uow, account, catalog, ProductDraft("Tea", stock_quantity=STOCK_MAX - 3))

    assert (_restore(uow, account, product.id, 3), _stock_of(uow, account, product.id)) == (True, STOCK_MAX)


def test_for_catalog_of_another_account_is_empty(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """for_catalog() of another account's catalog entry lists none of its products."""
    theirs = _catalog(uow, other)
    _add_products(uow, other, theirs, ProductDraft("Theirs"))

    with uow.workspace(account, readonly=True) as unit:
        assert list(unit.products.for_catalog(theirs)) == []


def test_replace_items_with_none_empties_the_order(uow: UnitOfWorkFactory, account: int) -> None:
    """replace_items() with no items leaves the order without any."""
    order = _add(uow, account, _draft(_line("Tea"), _line("Cake")))

    with uow.workspace(account) as unit:
        stored = unit.orders.replace_items(order.id, [])
        unit.commit()

    assert (stored, _get(uow, account, order.id)) == ((), attrs.evolve(order, items=()))


def test_by_external_reference_of_an_unknown_reference_is_none(uow: UnitOfWorkFactory, account: int) -> None:
    """A reference no order has finds nothing."""
    _add(uow, account, _draft(external_reference="shop-7", created_by="store_platform"))

    with uow.workspace(account, readonly=True) as unit:
        assert unit.orders.by_external_reference("shop-8") is None
