"""OrderService over the in-memory fakes: placing orders, stock, totals, the duplicate window,
status changes, the cancel endpoint, item replacement and listing (SPEC 3, 4 Orders)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from engage_core.commerce.order_service import OrderInput, OrderPatch, PlacedOrder
from engage_core.commerce.orders import ItemRequest, Order, OrderFilter
from engage_core.commerce.products import STOCK_MAX, Product
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryStore

NewProduct = Callable[..., Product]
NewOrder = Callable[..., Order]
NewContact = Callable[..., Contact]


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def events(store: InMemoryStore, name: str | None = None) -> list[DomainEvent]:
    return [e for e in store.events() if e.name.startswith("order.") and (name is None or e.name == name)]


def stock(services: Services, account_id: int, product: Product) -> int | None:
    return services.products.get(account_id, product.id).stock_quantity


def place(services: Services, account_id: int, *lines: tuple[Product, int], **fields: Any) -> PlacedOrder:
    items = [ItemRequest(product.id, quantity) for product, quantity in lines]
    return services.orders.create(account_id, OrderInput(items=items, **fields))


def order_count(services: Services, account_id: int) -> int:
    return services.orders.find(account_id, OrderFilter(), PageRequest(per_page=100)).total


# -- placing ---------------------------------------------------------------------------------------


def test_a_new_order_is_pending_and_made_by_the_api(
    services: Services, account_id: int, new_product: NewProduct
) -> None:
    """POST /orders creates a pending order with created_by api."""
    placed = place(services, account_id, (new_product(), 1), customer_name="Ada")
    assert (placed.order.status, placed.order.created_by, placed.is_duplicate) == ("pending", "api", False)


@pytest.mark.parametrize("source", ["manual", "ai_agent", "web_chat"])
def test_other_local_sources_are_recorded(new_order: NewOrder, source: str) -> None:
    """Orders placed by the dashboard, an AI agent or web chat say so in created_by."""
    assert new_order(created_by=source).created_by == source


def test_store_platform_orders_are_not_placed_through_create(
    services: Services, account_id: int, new_product: NewProduct
) -> None:
    """created_by store_platform is reserved for imports from the store."""
    product = new_product()
    with pytest.raises(ValidationFailed):
        services.orders.create(account_id, OrderInput([ItemRequest(product.id, 1)], "Ada"), created_by="store_platform")


def test_items_snapshot_the_product(services: Services, account_id: int, new_product: NewProduct) -> None:
    """Each item copies product name, SKU and unit price, and totals the line."""
    product = new_product("Tea", price="3.50", sku="TEA-1")
    [item] = place(services, account_id, (product, 3), customer_name="Ada").order.items
    assert (item.product_id, item.product_name, item.product_sku, item.quantity) == (product.id, "Tea", "TEA-1", 3)
    assert (item.unit_price, item.total_price) == (Decimal("3.50"), Decimal("10.50"))


def test_totals_are_exact(services: Services, account_id: int, new_product: NewProduct) -> None:
    """0.10 x 3 + 0.20 is exactly 0.50: subtotal and total."""
    dime, fifth = new_product("Dime", price="0.10"), new_product("Fifth", price="0.20")
    order = place(services, account_id, (dime, 3), (fifth, 1), customer_name="Ada").order
    assert (order.subtotal, order.total, order.currency) == (Decimal("0.50"), Decimal("0.50"), "USD")


def test_mixed_currencies_are_refused(services: Services, account_id: int, new_product: NewProduct) -> None:
    """A USD and a EUR product in one order is a 422 on the second line."""
    usd, eur = new_product("Tea"), new_product("Cake", currency="EUR")
    errors = errors_of(lambda: place(services, account_id, (usd, 1), (eur, 1), customer_name="Ada"))
    assert list(errors) == ["items.1.product_id"]


def test_the_order_is_in_its_products_currency(services: Services, account_id: int, new_product: NewProduct) -> None:
    """An order of SAR products is in SAR."""
    assert place(services, account_id, (new_product(currency="SAR"), 1), customer_name="Ada").order.currency == "SAR"


def test_unknown_products_are_refused(services: Services, account_id: int) -> None:
    """An item naming a product that does not exist is a 422 on its product_id."""
    errors = errors_of(lambda: services.orders.create(account_id, OrderInput([ItemRequest(999, 1)], "Ada")))
    assert list(errors) == ["items.0.product_id"]


def test_another_accounts_product_cannot_be_ordered(
    services: Services, account_id: int, new_product: NewProduct, new_account: Callable[..., int]
) -> None:
    """A product of another account behaves as nonexistent."""
    theirs = new_product(account=new_account("Other"))
    assert list(errors_of(lambda: place(services, account_id, (theirs, 1), customer_name="Ada"))) == [
        "items.0.product_id"
    ]


def test_an_order_needs_items(services: Services, account_id: int) -> None:
    """An empty items array is refused on items."""
    assert "items" in errors_of(lambda: services.orders.create(account_id, OrderInput([], "Ada")))


def test_placing_emits_order_created(
    services: Services, account_id: int, new_product: NewProduct, store: InMemoryStore
) -> None:
    """One order.created carrying the order with its items."""
    order = place(services, account_id, (new_product(), 2), customer_name="Ada").order
    [event] = events(store)
    assert (event.name, event.payload) == ("order.created", order.event_payload())


# -- customer fields -------------------------------------------------------------------------------


def test_customer_fields_default_from_the_contact(
    services: Services, account_id: int, new_product: NewProduct, new_contact: NewContact
) -> None:
    """With contact_id and no customer fields, name, phone and e-mail come from the contact."""
    contact = new_contact("Ada", type="whatsapp", phone="+966501234567", email="ada@example.com")
    order = place(services, account_id, (new_product(), 1), contact_id=contact.id).order
    assert (order.contact_id, order.customer_name, order.customer_phone, order.customer_email) == (
        contact.id,
        "Ada",
        "+966501234567",
        "ada@example.com",
    )


def test_given_customer_fields_win_over_the_contact(
    services: Services, account_id: int, new_product: NewProduct, new_contact: NewContact
) -> None:
    """A customer_name given with contact_id is kept."""
    contact = new_contact("Ada")
    order = place(services, account_id, (new_product(), 1), contact_id=contact.id, customer_name="Ada L.").order
    assert order.customer_name == "Ada L."


def test_customer_name_is_required_without_a_contact(
    services: Services, account_id: int, new_product: NewProduct
) -> None:
    """No contact_id and no customer_name is a 422 on customer_name."""
    assert list(errors_of(lambda: place(services, account_id, (new_product(), 1)))) == ["customer_name"]


def test_an_unknown_contact_is_refused(services: Services, account_id: int, new_product: NewProduct) -> None:
    """contact_id naming no contact of this account is a 422 on contact_id."""
    assert list(errors_of(lambda: place(services, account_id, (new_product(), 1), contact_id=999))) == ["contact_id"]


def test_customer_phone_and_email_are_checked(services: Services, account_id: int, new_product: NewProduct) -> None:
    """A bad phone and a bad e-mail are both reported."""
    errors = errors_of(
        lambda: place(
            services, account_id, (new_product(), 1), customer_name="Ada", customer_phone="12", customer_email="x@"
        )
    )
    assert set(errors) == {"customer_phone", "customer_email"}


def test_customer_phone_is_stored_in_e164(services: Services, account_id: int, new_product: NewProduct) -> None:
    """`00966 50 123 4567` is stored as +966501234567."""
    order = place(
        services, account_id, (new_product(), 1), customer_name="Ada", customer_phone="00966 50 123 4567"
    ).order
    assert order.customer_phone == "+966501234567"


# -- stock -----------------------------------------------------------------------------------------


def test_placing_takes_the_stock(services: Services, account_id: int, new_product: NewProduct) -> None:
    """Ordering 3 of 10 leaves 7."""
    product = new_product(stock_quantity=10)
    place(services, account_id, (product, 3), customer_name="Ada")
    assert stock(services, account_id, product) == 7


def test_the_last_units_can_be_ordered(services: Services, account_id: int, new_product: NewProduct) -> None:
    """Ordering exactly what is on hand leaves 0 and the product out of stock."""
    product = new_product(stock_quantity=2)
    place(services, account_id, (product, 2), customer_name="Ada")
    assert not services.products.get(account_id, product.id).in_stock


def test_untracked_stock_is_not_touched(services: Services, account_id: int, new_product: NewProduct) -> None:
    """A product without stock_quantity stays untracked."""
    product = new_product(stock_quantity=None)
    place(services, account_id, (product, 500), customer_name="Ada")
    assert stock(services, account_id, product) is None


def test_insufficient_stock_writes_nothing(
    services: Services, account_id: int, new_product: NewProduct, store: InMemoryStore
) -> None:
    """Short on the second line: a 422 on its quantity, no order, no event, no stock taken from the first."""
    plenty, scarce = new_product("Tea", stock_quantity=10), new_product("Cake", stock_quantity=1)
    errors = errors_of(lambda: place(services, account_id, (plenty, 2), (scarce, 2), customer_name="Ada"))
    assert errors == {"items.1.quantity": ["Only 1 of Cake in stock."]}
    assert (stock(services, account_id, plenty), order_count(services, account_id), events(store)) == (10, 0, [])


def test_unavailable_products_cannot_be_ordered(services: Services, account_id: int, new_product: NewProduct) -> None:
    """is_available false is a 422 on the line."""
    product = new_product(is_available=False)
    assert list(errors_of(lambda: place(services, account_id, (product, 1), customer_name="Ada"))) == [
        "items.0.product_id"
    ]


def test_unpriced_products_cannot_be_ordered(services: Services, account_id: int, new_product: NewProduct) -> None:
    """A catalog product without a price is a 422 on the line."""
    product = new_product(price=None)
    assert list(errors_of(lambda: place(services, account_id, (product, 1), customer_name="Ada"))) == [
        "items.0.product_id"
    ]


def test_stock_never_goes_negative_under_concurrency(
    services: Services, account_id: int, new_product: NewProduct
) -> None:
    """Twenty threads race for five units: exactly five orders, stock 0."""
    product = new_product(stock_quantity=5)
    outcomes: list[str] = []
    barrier = threading.Barrier(20)

    def buy(n: int) -> None:
        barrier.wait()
        try:
            place(services, account_id, (product, 1), customer_name=f"Buyer {n}")
            outcomes.append("ok")
        except ValidationFailed:
            outcomes.append("short")

    threads = [threading.Thread(target=buy, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (outcomes.count("ok"), stock(services, account_id, product)) == (5, 0)


# -- the duplicate window --------------------------------------------------------------------------


@pytest.fixture
def ada(new_contact: NewContact) -> Contact:
    return new_contact("Ada")


def test_an_identical_order_within_five_minutes_is_the_same_order(
    services: Services, account_id: int, new_product: NewProduct, ada: Contact, clock: FakeClock
) -> None:
    """Same contact, products and quantities 4m59s later: the first order, is_duplicate true."""
    product = new_product()
    first = place(services, account_id, (product, 2), contact_id=ada.id).order
    clock.advance(minutes=4, seconds=59)
    again = place(services, account_id, (product, 2), contact_id=ada.id)
    assert (again.order, again.is_duplicate) == (first, True)


def test_a_duplicate_takes_no_stock_and_emits_nothing(
    services: Services, account_id: int, new_product: NewProduct, ada: Contact, store: InMemoryStore
) -> None:
    """The duplicate leaves stock, orders and the outbox as they were."""
    product = new_product(stock_quantity=10)
    place(services, account_id, (product, 2), contact_id=ada.id)
    place(services, account_id, (product, 2), contact_id=ada.id)
    assert (stock(services, account_id, product), order_count(services, account_id), len(events(store))) == (8, 1, 1)


def test_line_order_does_not_matter(services: Services, account_id: int, new_product: NewProduct, ada: Contact) -> None:
    """The same lines listed the other way round are still a duplicate."""
    tea, cake = new_product("Tea"), new_product("Cake")
    first = place(services, account_id, (tea, 1), (cake, 2), contact_id=ada.id).order
    assert place(services, account_id, (cake, 2), (tea, 1), contact_id=ada.id).order.id == first.id


def test_a_duplicate_wins_over_stock_that_has_run_out(
    services: Services, account_id: int, new_product: NewProduct, ada: Contact
) -> None:
    """Resending an order that took the last units returns it instead of a stock error."""
    product = new_product(stock_quantity=2)
    first = place(services, account_id, (product, 2), contact_id=ada.id).order
    assert place(services, account_id, (product, 2), contact_id=ada.id).order.id == first.id


def test_five_minutes_later_it_is_a_new_order(
    services: Services, account_id: int, new_product: NewProduct, ada: Contact, clock: FakeClock
) -> None:
    """At exactly five minutes the window has closed."""
    product = new_product()
    first = place(services, account_id, (product, 2), contact_id=ada.id).order
    clock.advance(minutes=5)
    again = place(services, account_id, (product, 2), contact_id=ada.id)
    assert (again.is_duplicate, again.order.id != first.id) == (False, True)


@pytest.mark.parametrize("change", ["quantity", "product", "contact"])
def test_a_different_order_is_not_a_duplicate(
    services: Services, account_id: int, new_product: NewProduct, new_contact: NewContact, ada: Contact, change: str
) -> None:
    """Another quantity, product or contact within the window places a new order."""
    tea, cake = new_product("Tea"), new_product("Cake")
    place(services, account_id, (tea, 1), contact_id=ada.id)
    line = {"quantity": (tea, 2), "product": (cake, 1), "contact": (tea, 1)}[change]
    contact = new_contact("Bob") if change == "contact" else ada
    assert not place(services, account_id, line, contact_id=contact.id).is_duplicate


def test_a_cancelled_order_is_not_a_duplicate(
    services: Services, account_id: int, new_product: NewProduct, ada: Contact
) -> None:
    """Cancel, then order the same again at once: a new order."""
    product = new_product()
    first = place(services, account_id, (product, 1), contact_id=ada.id).order
    services.orders.cancel(account_id, first.id, "Wrong size")
    assert not place(services, account_id, (product, 1), contact_id=ada.id).is_duplicate


def test_orders_without_a_contact_are_never_duplicates(
    services: Services, account_id: int, new_product: NewProduct
) -> None:
    """Two identical orders by name only are two orders."""
    product = new_product()
    place(services, account_id, (product, 1), customer_name="Walk-in")
    assert not place(services, account_id, (product, 1), customer_name="Walk-in").is_duplicate


def test_concurrent_identical_orders_create_one(
    services: Services, account_id: int, new_product: NewProduct, ada: Contact
) -> None:
    """Ten threads send the same order at once: one order, nine duplicates of it, stock taken once."""
    product = new_product(stock_quantity=100)
    results: list[PlacedOrder] = []
    barrier = threading.Barrier(10)

    def send() -> None:
        barrier.wait()
        results.append(place(services, account_id, (product, 3), contact_id=ada.id))

    threads = [threading.Thread(target=send) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({r.order.id for r in results}) == 1
    assert sorted(r.is_duplicate for r in results) == [False] + [True] * 9
    assert stock(services, account_id, product) == 97


# -- status changes --------------------------------------------------------------------------------


def advance(services: Services, account_id: int, order: Order, *statuses: str) -> Order:
    for status in statuses:
        order = services.orders.update(account_id, order.id, OrderPatch(status=status, cancellation_reason="Asked"))
    return order


def test_an_order_walks_to_delivered(
    services: Services, account_id: int, new_order: NewOrder, store: InMemoryStore
) -> None:
    """pending, confirmed, processing, shipped, delivered; order.delivered after the last order.updated."""
    order = advance(services, account_id, new_order(), "confirmed", "processing", "shipped", "delivered")
    assert order.status == "delivered"
    assert [e.name for e in events(store)][-2:] == ["order.updated", "order.delivered"]


def test_an_invalid_move_is_refused_and_changes_nothing(
    services: Services, account_id: int, new_order: NewOrder, store: InMemoryStore
) -> None:
    """pending to shipped: a 422 naming both states; the order and the outbox are as they were."""
    order = new_order()
    with pytest.raises(ValidationFailed, match="from pending to shipped"):
        services.orders.update(account_id, order.id, OrderPatch(status="shipped", notes="Rush"))
    assert services.orders.get(account_id, order.id) == order
    assert [e.name for e in events(store)] == ["order.created"]


def test_a_put_cancellation_needs_a_reason(services: Services, account_id: int, new_order: NewOrder) -> None:
    """status cancelled without cancellation_reason is a 422 on cancellation_reason."""
    order = new_order()
    errors = errors_of(lambda: services.orders.update(account_id, order.id, OrderPatch(status="cancelled")))
    assert list(errors) == ["cancellation_reason"]


@pytest.mark.parametrize("path", [[], ["confirmed"]])
def test_a_put_cancellation_before_processing_restores_stock(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder, path: list[str]
) -> None:
    """Cancelling a pending or confirmed order by PUT puts its stock back."""
    product = new_product(stock_quantity=5)
    order = advance(services, account_id, new_order((product, 2)), *path)
    services.orders.update(account_id, order.id, OrderPatch(status="cancelled", cancellation_reason="Changed mind"))
    assert stock(services, account_id, product) == 5


def test_a_processing_cancellation_keeps_the_stock_out(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """SPEC 3 restores stock only for pending and confirmed cancellations."""
    product = new_product(stock_quantity=5)
    order = advance(services, account_id, new_order((product, 2)), "confirmed", "processing")
    services.orders.update(account_id, order.id, OrderPatch(status="cancelled", cancellation_reason="Damaged"))
    assert stock(services, account_id, product) == 3


def test_a_put_cancellation_records_when_and_why(
    services: Services, account_id: int, new_order: NewOrder, clock: FakeClock, store: InMemoryStore
) -> None:
    """cancelled_at and cancellation_reason are stored and sent in order.cancelled."""
    order = new_order()
    now = clock.advance(minutes=3)
    cancelled = services.orders.update(
        account_id, order.id, OrderPatch(status="cancelled", cancellation_reason="Changed mind")
    )
    assert (cancelled.cancelled_at, cancelled.cancellation_reason) == (now, "Changed mind")
    assert events(store, "order.cancelled")[0].payload["cancellation_reason"] == "Changed mind"


def test_notes_and_address_can_change(
    services: Services, account_id: int, new_order: NewOrder, store: InMemoryStore, clock: FakeClock
) -> None:
    """A PUT of notes and shipping_address stores them and emits order.updated alone."""
    order = new_order()
    now = clock.advance(minutes=1)
    changed = services.orders.update(account_id, order.id, OrderPatch(notes="Ring twice", shipping_address="1 Main St"))
    assert (changed.notes, changed.shipping_address, changed.updated_at, changed.status) == (
        "Ring twice",
        "1 Main St",
        now,
        "pending",
    )
    assert [e.name for e in events(store)] == ["order.created", "order.updated"]


def test_a_put_that_changes_nothing_emits_nothing(
    services: Services, account_id: int, new_order: NewOrder, store: InMemoryStore
) -> None:
    """The status it already has and the notes it already has: no write, no event."""
    order = new_order(notes="Ring twice")
    assert services.orders.update(account_id, order.id, OrderPatch(status="pending", notes="Ring twice")) == order
    assert [e.name for e in events(store)] == ["order.created"]


def test_notes_can_change_on_a_terminal_order(services: Services, account_id: int, new_order: NewOrder) -> None:
    """Notes are not a move: a delivered order can still be annotated."""
    order = advance(services, account_id, new_order(), "confirmed", "processing", "shipped", "delivered")
    assert services.orders.update(account_id, order.id, OrderPatch(notes="Left at door")).notes == "Left at door"


def test_a_move_and_a_note_make_one_order_updated(
    services: Services, account_id: int, new_order: NewOrder, store: InMemoryStore
) -> None:
    """status and notes in one PUT: one order.updated carrying both."""
    order = new_order()
    services.orders.update(account_id, order.id, OrderPatch(status="confirmed", notes="Paid"))
    [updated] = events(store, "order.updated")
    assert (updated.payload["status"], updated.payload["notes"]) == ("confirmed", "Paid")


def test_an_unknown_order_is_not_found(services: Services, account_id: int) -> None:
    """PUT on an order id that does not exist is a 404."""
    with pytest.raises(NotFound):
        services.orders.update(account_id, 999, OrderPatch(status="confirmed"))


def test_another_accounts_order_is_not_found(
    services: Services, new_order: NewOrder, new_account: Callable[..., int]
) -> None:
    """An order of another account behaves as nonexistent."""
    order = new_order()
    with pytest.raises(NotFound):
        services.orders.get(new_account("Other"), order.id)


# -- the cancel endpoint ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", [[], ["confirmed"]])
def test_cancel_restores_the_stock(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder, path: list[str]
) -> None:
    """POST cancel on a pending or confirmed order puts its stock back."""
    product = new_product(stock_quantity=5)
    order = advance(services, account_id, new_order((product, 4)), *path)
    cancelled = services.orders.cancel(account_id, order.id, "Changed mind")
    assert (cancelled.status, stock(services, account_id, product)) == ("cancelled", 5)


def test_cancel_refuses_to_put_the_stock_past_the_maximum(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """A cancellation whose stock no longer fits under STOCK_MAX is a 422 on status; nothing changes."""
    product = new_product(stock_quantity=STOCK_MAX)
    order = new_order((product, 4))
    services.products.restock(account_id, product.id, 4)

    assert list(errors_of(lambda: services.orders.cancel(account_id, order.id))) == ["status"]
    assert (services.orders.get(account_id, order.id).status, stock(services, account_id, product)) == (
        "pending",
        STOCK_MAX,
    )


def test_cancel_emits_updated_then_cancelled(
    services: Services, account_id: int, new_order: NewOrder, store: InMemoryStore
) -> None:
    """order.updated, then order.cancelled with its own shorter payload."""
    order = new_order()
    services.orders.cancel(account_id, order.id)
    assert [e.name for e in events(store)] == ["order.created", "order.updated", "order.cancelled"]
    assert "notes" not in events(store, "order.cancelled")[0].payload


@pytest.mark.parametrize("path", [["confirmed", "processing"], ["confirmed", "processing", "shipped"]])
def test_cancel_refuses_later_states(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder, path: list[str]
) -> None:
    """Processing and shipped orders: a 422 naming both states, stock unchanged."""
    product = new_product(stock_quantity=5)
    order = advance(services, account_id, new_order((product, 1)), *path)
    with pytest.raises(ValidationFailed, match=f"from {path[-1]} to cancelled"):
        services.orders.cancel(account_id, order.id, "Too late")
    assert stock(services, account_id, product) == 4


def test_cancelling_twice_is_refused(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """A cancelled order is final: a second cancel is a 422 and restores nothing twice."""
    product = new_product(stock_quantity=5)
    order = new_order((product, 2))
    services.orders.cancel(account_id, order.id)
    with pytest.raises(ValidationFailed, match="is final"):
        services.orders.cancel(account_id, order.id)
    assert stock(services, account_id, product) == 5


# -- replacing items -------------------------------------------------------------------------------


def replace(services: Services, account_id: int, order: Order, *lines: tuple[Product, int]) -> Order:
    return services.orders.replace_items(account_id, order.id, [ItemRequest(p.id, q) for p, q in lines])


def test_replacing_items_adjusts_stock_by_the_difference(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """2 tea + 1 cake becomes 5 tea + 1 coffee: tea -3, cake +1, coffee -1."""
    tea, cake, coffee = (new_product(n, stock_quantity=10) for n in ("Tea", "Cake", "Coffee"))
    order = new_order((tea, 2), (cake, 1))
    replace(services, account_id, order, (tea, 5), (coffee, 1))
    assert [stock(services, account_id, p) for p in (tea, cake, coffee)] == [5, 10, 9]


def test_replaced_items_are_priced_and_totalled(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """The new lines and the new totals are returned and stored."""
    tea, cake = new_product("Tea", price="3.50"), new_product("Cake", price="4.25")
    order = replace(services, account_id, new_order((tea, 1)), (cake, 2))
    assert ([i.product_name for i in order.items], order.total) == (["Cake"], Decimal("8.50"))
    assert services.orders.get(account_id, order.id) == order


def test_replacing_items_emits_order_updated(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder, store: InMemoryStore
) -> None:
    """One order.updated carrying the new items."""
    tea = new_product("Tea")
    order = replace(services, account_id, new_order((tea, 1)), (tea, 3))
    assert events(store)[-1].name == "order.updated"
    assert events(store)[-1].payload["items"][0]["quantity"] == order.items[0].quantity == 3


def test_held_stock_counts_when_replacing(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """Holding 2 of 3, raising to 3 takes the last unit."""
    tea = new_product(stock_quantity=3)
    replace(services, account_id, new_order((tea, 2)), (tea, 3))
    assert stock(services, account_id, tea) == 0


def test_replacing_beyond_the_stock_changes_nothing(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """Short on one product: a 422, the order and every stock as they were."""
    tea, cake = new_product("Tea", stock_quantity=10), new_product("Cake", stock_quantity=1)
    order = new_order((tea, 2))
    with pytest.raises(ValidationFailed):
        replace(services, account_id, order, (tea, 1), (cake, 5))
    assert services.orders.get(account_id, order.id) == order
    assert [stock(services, account_id, p) for p in (tea, cake)] == [8, 1]


@pytest.mark.parametrize("path", [["confirmed"], ["confirmed", "processing"], ["cancelled"]])
def test_items_can_be_replaced_only_while_pending(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder, path: list[str]
) -> None:
    """Any other state is a 422 on items that names the state."""
    tea = new_product()
    order = advance(services, account_id, new_order((tea, 1)), *path)
    with pytest.raises(ValidationFailed, match=f"this order is {path[-1]}"):
        replace(services, account_id, order, (tea, 2))


def test_replacing_with_mixed_currencies_is_refused(
    services: Services, account_id: int, new_product: NewProduct, new_order: NewOrder
) -> None:
    """One order, one currency, also when replacing."""
    usd, eur = new_product("Tea"), new_product("Cake", currency="EUR")
    errors = errors_of(lambda: replace(services, account_id, new_order((usd, 1)), (usd, 1), (eur, 1)))
    assert list(errors) == ["items.1.product_id"]


def test_a_replaced_order_is_the_duplicate_of_its_new_items(
    services: Services, account_id: int, new_product: NewProduct, ada: Contact
) -> None:
    """After replacing, an identical order of the new items within the window returns it."""
    tea, cake = new_product("Tea"), new_product("Cake")
    order = place(services, account_id, (tea, 1), contact_id=ada.id).order
    replace(services, account_id, order, (cake, 2))
    assert place(services, account_id, (cake, 2), contact_id=ada.id).order.id == order.id
    assert not place(services, account_id, (tea, 1), contact_id=ada.id).is_duplicate


# -- listing ---------------------------------------------------------------------------------------


def listed(services: Services, account_id: int, **filters: Any) -> list[int]:
    return [o.id for o in services.orders.find(account_id, OrderFilter(**filters), PageRequest(per_page=100)).items]


def test_orders_are_listed_newest_first(
    services: Services, account_id: int, new_order: NewOrder, clock: FakeClock
) -> None:
    """The later order comes first."""
    first = new_order()
    clock.advance(minutes=1)
    second = new_order()
    assert listed(services, account_id) == [second.id, first.id]


def test_orders_filter_by_status_contact_and_source(
    services: Services, account_id: int, new_order: NewOrder, ada: Contact
) -> None:
    """status, contact_id and created_by each narrow the list."""
    mine = new_order(contact_id=ada.id)
    bot = new_order(created_by="ai_agent")
    confirmed = advance(services, account_id, new_order(), "confirmed")
    assert listed(services, account_id, contact_id=ada.id) == [mine.id]
    assert listed(services, account_id, created_by="ai_agent") == [bot.id]
    assert listed(services, account_id, status="confirmed") == [confirmed.id]


def test_orders_filter_by_day(services: Services, account_id: int, new_order: NewOrder, clock: FakeClock) -> None:
    """date_from and date_to select calendar days, inclusive."""
    first = new_order()
    clock.advance(days=2)
    second = new_order()
    day_one, day_three = first.created_at.date(), second.created_at.date()
    assert listed(services, account_id, date_from=day_one, date_to=day_one) == [first.id]
    assert listed(services, account_id, date_from=day_one + timedelta(days=1)) == [second.id]
    assert listed(services, account_id, date_to=day_three) == [second.id, first.id]


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        ({"status": "lost"}, "status"),
        ({"created_by": "robot"}, "created_by"),
        ({"date_from": date(2026, 1, 2), "date_to": date(2026, 1, 1)}, "date_to"),
    ],
)
def test_bad_filters_are_refused(services: Services, account_id: int, filters: dict[str, Any], field: str) -> None:
    """An unknown status or source, or a reversed date range, is a 422 on the field."""
    assert list(errors_of(lambda: listed(services, account_id, **filters))) == [field]


def test_orders_are_scoped_to_the_account(
    services: Services, new_order: NewOrder, new_account: Callable[..., int]
) -> None:
    """Another account lists none of them."""
    new_order()
    assert listed(services, new_account("Other")) == []
