"""Orders placed at once by many threads, each through its own unit of work of the real factory.

On PostgreSQL the transactions really overlap: the conditional stock UPDATE and the advisory lock
of the duplicate window are what keep them apart. On SQLite the writers take turns (the group
commit's lock within the process, `BEGIN IMMEDIATE` across processes), and every turn sees what
the turns before it committed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from engage_core.commerce.order_service import OrderInput, StoreOrderInput, StoreOrderItemInput
from engage_core.commerce.orders import ItemRequest, OrderFilter
from engage_core.commerce.products import STOCK_MAX, Product, ProductInput
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_sql import Database

from .concurrency import at_once


def _product(services: Services, account: int, name: str, stock: int | None) -> Product:
    data = CatalogInput(f"{name} catalog", products=[ProductInput(name, price="9.99", stock_quantity=stock)])
    return services.knowledge_base.create_catalog(account, data).products[0]


def _stock(services: Services, account: int, product: Product) -> int | None:
    return services.products.get(account, product.id).stock_quantity


def _order_count(services: Services, account: int) -> int:
    return services.orders.find(account, OrderFilter(), PageRequest()).total


def _outcome(result: object) -> str:
    """`placed`, `duplicate`, the error keys of a ValidationFailed, or the type of any other error."""
    if isinstance(result, ValidationFailed):
        return "refused " + ",".join(sorted(result.errors))
    if isinstance(result, BaseException):
        return f"error {type(result).__name__}: {result}"
    return "duplicate" if getattr(result, "is_duplicate", False) else "placed"


def test_fifty_buyers_of_the_last_unit_make_one_order(services: Services, account: int) -> None:
    """Of 50 concurrent orders for the last unit, one is placed; the 49 others are refused for stock."""
    last = _product(services, account, "Last one", stock=1)

    results = at_once(
        50,
        lambda n: services.orders.create(account, OrderInput([ItemRequest(last.id, 1)], customer_name=f"Buyer {n}")),
    )

    assert Counter(_outcome(r) for r in results) == {"placed": 1, "refused items.0.quantity": 49}
    assert (_stock(services, account, last), _order_count(services, account)) == (0, 1)


def test_concurrent_buyers_never_oversell(services: Services, account: int) -> None:
    """30 buyers of two units each, from 25 on hand: exactly 12 orders, one unit left."""
    stocked = _product(services, account, "Stocked", stock=25)

    results = at_once(
        30,
        lambda n: services.orders.create(account, OrderInput([ItemRequest(stocked.id, 2)], customer_name=f"B{n}")),
    )

    assert Counter(_outcome(r) for r in results) == {"placed": 12, "refused items.0.quantity": 18}
    assert (_stock(services, account, stocked), _order_count(services, account)) == (1, 12)


def test_identical_concurrent_orders_make_one_order(
    services: Services, account: int, make_contact: Callable[..., Contact]
) -> None:
    """20 identical orders at once: one is placed, the 19 others return it as a duplicate; stock is taken once."""
    tea = _product(services, account, "Tea", stock=100)
    contact = make_contact()
    data = OrderInput([ItemRequest(tea.id, 3)], contact_id=contact.id)

    results: list[Any] = at_once(20, lambda _n: services.orders.create(account, data))

    assert Counter(_outcome(r) for r in results) == {"placed": 1, "duplicate": 19}
    assert len({r.order.id for r in results}) == 1
    assert (_stock(services, account, tea), _order_count(services, account)) == (97, 1)


def test_concurrent_imports_of_one_store_order_make_one_order(services: Services, account: int) -> None:
    """20 imports of the same store reference at once store it once; the others return it."""
    data = StoreOrderInput("shop-42", "Ada", [StoreOrderItemInput("Mug", 1, "12.00")])

    results: list[Any] = at_once(20, lambda _n: services.orders.import_store_order(account, data))

    assert Counter(_outcome(r) for r in results) == {"placed": 1, "duplicate": 19}
    assert len({r.order.id for r in results}) == 1
    assert _order_count(services, account) == 1


@pytest.mark.parametrize("threads", [16])
def test_orders_listing_products_in_opposite_orders_do_not_deadlock(
    services: Services, account: int, threads: int
) -> None:
    """Concurrent orders of the same two products, listed in either order, all succeed."""
    tea, cake = _product(services, account, "Tea", stock=1000), _product(services, account, "Cake", stock=1000)

    def place(n: int) -> object:
        lines = [ItemRequest(tea.id, 1), ItemRequest(cake.id, 1)]
        return services.orders.create(account, OrderInput(lines[:: 1 if n % 2 else -1], customer_name=f"C{n}"))

    results = at_once(threads, place)

    assert Counter(_outcome(r) for r in results) == {"placed": threads}
    assert (_stock(services, account, tea), _stock(services, account, cake)) == (1000 - threads, 1000 - threads)


def test_concurrent_cancellations_restore_stock_once(services: Services, account: int, database: Database) -> None:
    """Ten threads cancelling the same order at once restore its stock once; the others are refused."""
    tea = _product(services, account, "Tea", stock=10)
    order = services.orders.create(account, OrderInput([ItemRequest(tea.id, 4)], customer_name="Ada")).order

    results = at_once(10, lambda _n: services.orders.cancel(account, order.id))

    assert Counter(_outcome(r) for r in results) == {"placed": 1, "refused status": 9}
    assert _stock(services, account, tea) == 10
    assert [e.name for e in database.outbox_events(account)].count("order.cancelled") == 1


def test_concurrent_restocks_never_pass_the_maximum(services: Services, account: int) -> None:
    """Of eight concurrent restocks of 3 with room for 10, three are added; the others are a 422."""
    tea = _product(services, account, "Tea", stock=STOCK_MAX - 10)

    results = at_once(8, lambda _n: services.products.restock(account, tea.id, 3))

    assert Counter(_outcome(r) for r in results) == {"placed": 3, "refused quantity": 5}
    assert _stock(services, account, tea) == STOCK_MAX - 1


def test_concurrent_item_replacements_move_stock_once(services: Services, account: int) -> None:
    """Ten threads raising an order from 3 to 5 units at once take the 2 extra units once."""
    tea = _product(services, account, "Tea", stock=10)
    order = services.orders.create(account, OrderInput([ItemRequest(tea.id, 3)], customer_name="Ada")).order

    results = at_once(10, lambda _n: services.orders.replace_items(account, order.id, [ItemRequest(tea.id, 5)]))

    assert Counter(_outcome(r) for r in results) == {"placed": 10}
    assert (_stock(services, account, tea), services.orders.get(account, order.id).items[0].quantity) == (5, 5)
