"""Store-sourced orders (`created_by` `store_platform`): importing them, and pushing status
changes to the store before anything local changes (SPEC 3, Order; SPEC 7: 422 on rejection)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest

from engage_core.commerce.order_service import OrderInput, OrderPatch, StoreOrderInput, StoreOrderItemInput
from engage_core.commerce.orders import ItemRequest, Order
from engage_core.commerce.products import Product
from engage_core.kernel.errors import Conflict, ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeStorePlatform, InMemoryStore, InMemoryUnitOfWorkFactory, StorePush

NewProduct = Callable[..., Product]


def store_order(**fields: Any) -> StoreOrderInput:
    data: dict[str, Any] = {
        "external_reference": "shop-1001",
        "customer_name": "Ada",
        "items": [StoreOrderItemInput("Tea", 2, "3.50", product_sku="TEA-1")],
        "currency": "SAR",
    }
    data.update(fields)
    return StoreOrderInput(**data)


@pytest.fixture
def imported(services: Services, account_id: int) -> Order:
    return services.orders.import_store_order(account_id, store_order()).order


def order_events(store: InMemoryStore) -> list[str]:
    return [e.name for e in store.events() if e.name.startswith("order.")]


# -- importing -------------------------------------------------------------------------------------


def test_an_imported_order_comes_from_the_store(imported: Order) -> None:
    """created_by store_platform, the store's reference, the store's prices and currency."""
    assert (imported.created_by, imported.external_reference, imported.currency) == (
        "store_platform",
        "shop-1001",
        "SAR",
    )
    assert (imported.items[0].product_id, imported.items[0].total_price, imported.total) == (
        None,
        Decimal("7.00"),
        Decimal("7.00"),
    )


def test_importing_emits_order_created(imported: Order, store: InMemoryStore) -> None:
    """One order.created, like any new order."""
    assert order_events(store) == ["order.created"]


def test_importing_is_idempotent_on_the_reference(
    services: Services, account_id: int, imported: Order, store: InMemoryStore
) -> None:
    """The same reference again returns the stored order, is_duplicate true, and emits nothing."""
    again = services.orders.import_store_order(account_id, store_order(customer_name="Someone else"))
    assert (again.order, again.is_duplicate, order_events(store)) == (imported, True, ["order.created"])


def test_importing_never_moves_local_stock(services: Services, account_id: int, new_product: NewProduct) -> None:
    """A store line linked to a local product leaves its stock alone: the store keeps inventory."""
    product = new_product(stock_quantity=1)
    items = [StoreOrderItemInput("Tea", 5, "3.50", product_id=product.id)]
    order = services.orders.import_store_order(account_id, store_order(items=items)).order
    assert order.items[0].product_id == product.id
    assert services.products.get(account_id, product.id).stock_quantity == 1


def test_a_linked_product_must_exist(services: Services, account_id: int) -> None:
    """A product_id that names no local product is a 422 on the line."""
    items = [StoreOrderItemInput("Tea", 1, "3.50"), StoreOrderItemInput("Cake", 1, "2", product_id=999)]
    with pytest.raises(ValidationFailed) as caught:
        services.orders.import_store_order(account_id, store_order(items=items))
    assert list(caught.value.errors) == ["items.1.product_id"]


@pytest.mark.parametrize("reference", [".", "..", " ... ", "wc\n1001", "wc\x001001", "x" * 256])
def test_a_reference_outside_the_documented_set_is_refused(services: Services, account_id: int, reference: str) -> None:
    """Dots only, control characters or more than 255 characters: a 422 on external_reference."""
    with pytest.raises(ValidationFailed) as caught:
        services.orders.import_store_order(account_id, store_order(external_reference=reference))
    assert list(caught.value.errors) == ["external_reference"]


@pytest.mark.parametrize("reference", ["wc-1001", "#1001", "shop/#10 01", "a..b", "Zoë-7"])
def test_a_reference_of_printable_characters_is_kept(services: Services, account_id: int, reference: str) -> None:
    """Letters, digits, punctuation, symbols and inner spaces are a reference as given."""
    placed = services.orders.import_store_order(account_id, store_order(external_reference=reference))
    assert placed.order.external_reference == reference


def test_every_bad_store_field_is_reported(services: Services, account_id: int) -> None:
    """Reference, name, currency, status and a bad line, all at once."""
    items = [StoreOrderItemInput("", 0, "x")]
    data = store_order(external_reference=" ", customer_name="", currency="riyal", status="lost", items=items)
    with pytest.raises(ValidationFailed) as caught:
        services.orders.import_store_order(account_id, data)
    assert set(caught.value.errors) == {
        "external_reference", "customer_name", "currency", "status",
        "items.0.product_name", "items.0.quantity", "items.0.unit_price",
    }  # fmt: skip


def test_an_order_can_arrive_in_a_later_state(services: Services, account_id: int) -> None:
    """The store's order may already be confirmed."""
    assert services.orders.import_store_order(account_id, store_order(status="confirmed")).order.status == "confirmed"


# -- status changes go to the store first ----------------------------------------------------------


def test_a_status_change_is_pushed_to_the_store(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """PUT confirmed pushes `confirmed` with the store's reference, then changes the order."""
    changed = services.orders.update(account_id, imported.id, OrderPatch(status="confirmed"))
    assert store_platform.pushes == [StorePush(imported.id, "shop-1001", "confirmed")]
    assert changed.status == "confirmed"


def test_a_rejected_change_is_a_422_with_the_stores_message(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform, store: InMemoryStore
) -> None:
    """The store refuses: 422 carrying its message, the local order and the outbox unchanged."""
    store_platform.reject("Order shop-1001 is locked.")
    with pytest.raises(ValidationFailed) as caught:
        services.orders.update(account_id, imported.id, OrderPatch(status="confirmed", notes="x"))
    assert (caught.value.message, caught.value.errors) == (
        "Order shop-1001 is locked.",
        {"status": ["Order shop-1001 is locked."]},
    )
    assert services.orders.get(account_id, imported.id) == imported
    assert order_events(store) == ["order.created"]


def test_the_cancel_endpoint_pushes_canceled(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """Cancelling pushes the slug `canceled` before the local status changes."""
    cancelled = services.orders.cancel(account_id, imported.id, "Customer called")
    assert [p.slug for p in store_platform.pushes] == ["canceled"]
    assert cancelled.status == "cancelled"


def test_a_put_cancellation_pushes_canceled(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """PUT status cancelled pushes `canceled` too."""
    services.orders.update(account_id, imported.id, OrderPatch(status="cancelled", cancellation_reason="Fraud"))
    assert [p.slug for p in store_platform.pushes] == ["canceled"]


def test_a_rejected_cancellation_keeps_the_order(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """The store refuses the cancellation: 422, still pending."""
    store_platform.reject("Already shipped at the store.")
    with pytest.raises(ValidationFailed, match=r"Already shipped at the store\."):
        services.orders.cancel(account_id, imported.id)
    assert services.orders.get(account_id, imported.id).status == "pending"


def test_an_invalid_move_is_not_pushed(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """pending to delivered is refused locally; the store never hears of it."""
    with pytest.raises(ValidationFailed, match="from pending to delivered"):
        services.orders.update(account_id, imported.id, OrderPatch(status="delivered"))
    assert store_platform.pushes == []


def test_a_cancellation_without_reason_is_not_pushed(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """A PUT to cancelled without cancellation_reason fails before the store is asked."""
    with pytest.raises(ValidationFailed):
        services.orders.update(account_id, imported.id, OrderPatch(status="cancelled"))
    assert store_platform.pushes == []


def test_a_notes_change_is_not_pushed(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """Only status changes go to the store."""
    services.orders.update(account_id, imported.id, OrderPatch(notes="Gift wrap"))
    assert store_platform.pushes == []


def test_every_move_is_pushed_with_its_slug(
    services: Services, account_id: int, imported: Order, store_platform: FakeStorePlatform
) -> None:
    """confirmed, processing, shipped, delivered, each pushed once, in order."""
    for status in ("confirmed", "processing", "shipped", "delivered"):
        services.orders.update(account_id, imported.id, OrderPatch(status=status))
    assert [p.slug for p in store_platform.pushes] == ["confirmed", "processing", "shipped", "delivered"]


def test_local_orders_are_never_pushed(
    services: Services, account_id: int, new_product: NewProduct, store_platform: FakeStorePlatform
) -> None:
    """An API order's status changes stay local."""
    order = services.orders.create(account_id, OrderInput([ItemRequest(new_product().id, 1)], "Ada")).order
    services.orders.update(account_id, order.id, OrderPatch(status="confirmed"))
    assert store_platform.pushes == []


def test_item_edits_of_store_orders_are_refused(
    services: Services, account_id: int, imported: Order, new_product: NewProduct
) -> None:
    """PUT /orders/{id}/items on a store-sourced order is a 422 on items."""
    with pytest.raises(ValidationFailed) as caught:
        services.orders.replace_items(account_id, imported.id, [ItemRequest(new_product().id, 1)])
    assert list(caught.value.errors) == ["items"]


def test_cancelling_a_store_order_restores_no_local_stock(
    services: Services, account_id: int, new_product: NewProduct
) -> None:
    """The store keeps the inventory of its orders, in both directions."""
    product = new_product(stock_quantity=4)
    items = [StoreOrderItemInput("Tea", 2, "3.50", product_id=product.id)]
    order = services.orders.import_store_order(account_id, store_order(items=items)).order
    services.orders.cancel(account_id, order.id)
    assert services.products.get(account_id, product.id).stock_quantity == 4


def test_without_a_store_platform_only_store_pushes_fail(clock: FakeClock) -> None:
    """Services.build without store= works for everything but changing a store order's status."""
    services = Services.build(InMemoryUnitOfWorkFactory(), clock)
    account = services.accounts.create("Acme").account.id
    order = services.orders.import_store_order(account, store_order()).order
    with pytest.raises(RuntimeError, match="store=StorePlatform"):
        services.orders.update(account, order.id, OrderPatch(status="confirmed"))


class MeddlingStore(FakeStorePlatform):
    """A store that, while it is being asked, lets another request cancel the order locally."""

    def __init__(self) -> None:
        super().__init__()
        self.meddle: Callable[[], None] = lambda: None

    def push_status(self, account_id: int, order: Order, slug: str) -> None:
        super().push_status(account_id, order, slug)
        meddle, self.meddle = self.meddle, lambda: None
        meddle()


def test_a_move_that_raced_the_store_call_is_a_conflict(clock: FakeClock) -> None:
    """If the order moved while the store was asked, the change is refused rather than applied on top."""
    store_platform = MeddlingStore()
    services = Services.build(InMemoryUnitOfWorkFactory(), clock, store=store_platform)
    account = services.accounts.create("Acme").account.id
    order = services.orders.import_store_order(account, store_order()).order
    store_platform.meddle = lambda: services.orders.cancel(account, order.id, "Meanwhile")
    with pytest.raises(Conflict, match="from pending to cancelled"):
        services.orders.update(account, order.id, OrderPatch(status="confirmed"))
    assert services.orders.get(account, order.id).status == "cancelled"
