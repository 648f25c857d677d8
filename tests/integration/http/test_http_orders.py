"""Orders (SPEC 3, 4): placing, the duplicate window, listing and filters, status moves, cancelling,
replacing items, stock, and orders from a store platform."""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime

import pytest
from http_support import Api, Tenant

from engage_core.commerce.order_service import OrderPatch, StoreOrderInput, StoreOrderItemInput
from engage_core.commerce.orders import Order
from engage_core.commerce.products import Product
from engage_core.contacts.model import Contact
from engage_core.services import Services
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeStorePlatform,
    InMemoryUnitOfWorkFactory,
    StorePush,
)
from engage_http.areas import OPERATIONS
from engage_http.openapi import build_document
from engage_http.routing import API_PREFIX

DOCUMENT = build_document(OPERATIONS, prefix=API_PREFIX)


@pytest.fixture
def store() -> FakeStorePlatform:
    return FakeStorePlatform()


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, store: FakeStorePlatform) -> Services:
    """The services of `conftest.py`, with a connected store platform."""
    return Services.build(uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), store=store)


@pytest.fixture
def make_store_order(services: Services) -> Callable[..., Order]:
    """`make_store_order(tenant, status="pending")`: an order imported from the store platform."""

    def make(tenant: Tenant, status: str = "pending") -> Order:
        data = StoreOrderInput(
            external_reference="shop-1001",
            customer_name="Grace Hopper",
            items=[StoreOrderItemInput(product_name="Lamp", quantity=1, unit_price="40.00")],
            status=status,
        )
        return services.orders.import_store_order(tenant.account_id, data).order

    return make


def stock_of(api: Api, product: Product) -> int | None:
    [found] = [p for p in api.get("/products", params={"per_page": 100}).json()["data"] if p["id"] == product.id]
    return found["stock_quantity"]


def move(services: Services, tenant: Tenant, order: Order, *statuses: str) -> None:
    """Move the order through `statuses` with the service, as `PUT /orders/{id}` would."""
    for status in statuses:
        services.orders.update(tenant.account_id, order.id, OrderPatch(status=status, cancellation_reason="Test"))


# -- placing -----------------------------------------------------------------------------------------


def test_placing_an_order_answers_201_with_the_order(
    api: Api, tenant: Tenant, make_product: Callable[..., Product]
) -> None:
    """`POST /orders` answers 201 with every order field, its items and `is_duplicate` false."""
    product = make_product(tenant, product_name="Beans", sku="B-1", price=19.99)

    response = api.post(
        "/orders",
        json={
            "customer_name": "Ada Lovelace",
            "customer_phone": "+442079460018",
            "customer_email": "ada@example.com",
            "shipping_address": "12 St James's Square",
            "notes": "Ring twice",
            "items": [{"product_id": product.id, "quantity": 2}],
        },
    )

    body = response.json()
    order = body["data"]
    assert (response.status_code, body["message"]) == (201, "Order placed.")
    assert order == {
        "id": order["id"],
        "contact_id": None,
        "customer_name": "Ada Lovelace",
        "customer_phone": "+442079460018",
        "customer_email": "ada@example.com",
        "status": "pending",
        "subtotal": 39.98,
        "total": 39.98,
        "currency": "USD",
        "shipping_address": "12 St James's Square",
        "notes": "Ring twice",
        "created_by": "api",
        "items": [
            {
                "id": order["items"][0]["id"],
                "product_id": product.id,
                "product_name": "Beans",
                "product_sku": "B-1",
                "quantity": 2,
                "unit_price": 19.99,
                "total_price": 39.98,
            }
        ],
        "cancelled_at": None,
        "cancellation_reason": None,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
        "is_duplicate": False,
    }


def test_totals_are_exact_decimals(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """Three items at 0.10 and 0.20 total 0.70 exactly, where binary floats would give 0.7000000000000001."""
    dime, two_dimes = make_product(tenant, price="0.10"), make_product(tenant, price="0.20")
    items = [{"product_id": dime.id, "quantity": 3}, {"product_id": two_dimes.id, "quantity": 2}]

    response = api.post("/orders", json={"customer_name": "Ada", "items": items})

    assert '"subtotal":0.7,"total":0.7,' in response.text


def test_placing_an_order_takes_its_stock(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """The ordered quantity leaves the product's stock."""
    product = make_product(tenant, stock_quantity=5)

    api.post("/orders", json={"customer_name": "Ada", "items": [{"product_id": product.id, "quantity": 2}]})

    assert stock_of(api, product) == 3


def test_placing_an_order_emits_order_created(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], uow: InMemoryUnitOfWorkFactory
) -> None:
    """A new order is announced with `order.created`."""
    product = make_product(tenant)
    before = len(uow.store.events(tenant.account_id))

    api.post("/orders", json={"customer_name": "Ada", "items": [{"product_id": product.id, "quantity": 1}]})

    assert [e.name for e in uow.store.events(tenant.account_id)[before:]] == ["order.created"]


def test_the_customer_is_taken_from_the_contact(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], make_contact: Callable[..., Contact]
) -> None:
    """With `contact_id` and no `customer_name`, the customer fields come from the contact."""
    contact = make_contact(tenant, name="Grace", type="whatsapp", phone="+14155552671", email="grace@example.com")
    product = make_product(tenant)

    order = api.post("/orders", json={"contact_id": contact.id, "items": [{"product_id": product.id, "quantity": 1}]})

    data = order.json()["data"]
    assert (data["contact_id"], data["customer_name"], data["customer_phone"], data["customer_email"]) == (
        contact.id,
        "Grace",
        "+14155552671",
        "grace@example.com",
    )


def test_a_customer_name_is_needed_without_a_contact(
    api: Api, tenant: Tenant, make_product: Callable[..., Product]
) -> None:
    """Without `contact_id`, a missing `customer_name` is a 422 naming it."""
    product = make_product(tenant)

    response = api.post("/orders", json={"items": [{"product_id": product.id, "quantity": 1}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["customer_name"]


def test_an_unknown_contact_is_a_422(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """A `contact_id` naming no contact is a 422 on `contact_id`."""
    product = make_product(tenant)

    response = api.post("/orders", json={"contact_id": 999, "items": [{"product_id": product.id, "quantity": 1}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["contact_id"]


def test_an_unknown_product_is_a_422(api: Api) -> None:
    """A `product_id` naming no product is a 422 on that item."""
    response = api.post("/orders", json={"customer_name": "Ada", "items": [{"product_id": 999, "quantity": 1}]})

    assert response.status_code == 422
    assert response.json()["errors"] == {"items.0.product_id": ["The selected product does not exist."]}


def test_another_accounts_product_cannot_be_ordered(
    api: Api,
    make_tenant: Callable[..., Tenant],
    make_product: Callable[..., Product],
    uow: InMemoryUnitOfWorkFactory,
) -> None:
    """A product of another account is unknown here: a 422, and its stock is untouched."""
    theirs = make_product(make_tenant("Other"), stock_quantity=5)
    before = copy.deepcopy(uow.store.state)

    response = api.post("/orders", json={"customer_name": "Ada", "items": [{"product_id": theirs.id, "quantity": 1}]})

    assert response.status_code == 422
    assert uow.store.state == before


def test_too_little_stock_is_a_422_on_the_quantity(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], uow: InMemoryUnitOfWorkFactory
) -> None:
    """Asking for more than is on hand is a 422 on that item's quantity, and nothing is written."""
    product = make_product(tenant, product_name="Kettle", stock_quantity=2)
    before = copy.deepcopy(uow.store.state)

    response = api.post("/orders", json={"customer_name": "Ada", "items": [{"product_id": product.id, "quantity": 3}]})

    assert response.status_code == 422
    assert response.json()["errors"] == {"items.0.quantity": ["Only 2 of Kettle in stock."]}
    assert uow.store.state == before


def test_mixed_currencies_are_a_422(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """An order has one currency: a product priced in another is a 422 on that item."""
    dollars, euros = make_product(tenant, currency="USD"), make_product(tenant, currency="EUR")
    items = [{"product_id": dollars.id, "quantity": 1}, {"product_id": euros.id, "quantity": 1}]

    response = api.post("/orders", json={"customer_name": "Ada", "items": items})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["items.1.product_id"]


def test_an_unavailable_product_is_a_422(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """A product that is not available cannot be ordered."""
    product = make_product(tenant, is_available=False)

    response = api.post("/orders", json={"customer_name": "Ada", "items": [{"product_id": product.id, "quantity": 1}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["items.0.product_id"]


def test_a_product_without_a_price_is_a_422(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """A product with no price cannot be ordered."""
    product = make_product(tenant, price=None)

    response = api.post("/orders", json={"customer_name": "Ada", "items": [{"product_id": product.id, "quantity": 1}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["items.0.product_id"]


@pytest.mark.parametrize(
    ("items", "field"),
    [
        ([], "items"),
        ([{"product_id": 1, "quantity": 0}], "items.0.quantity"),
        ([{"product_id": 1, "quantity": "2"}], "items.0.quantity"),
        ([{"product_id": 1}], "items.0.quantity"),
    ],
)
def test_malformed_items_are_a_422(api: Api, items: list[dict[str, object]], field: str) -> None:
    """No items, a quantity below 1, a quantity as text and a missing quantity are each a 422 naming the field."""
    response = api.post("/orders", json={"customer_name": "Ada", "items": items})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == [field]


def test_a_product_listed_twice_is_a_422(api: Api, tenant: Tenant, make_product: Callable[..., Product]) -> None:
    """Each product appears once in `items`."""
    product = make_product(tenant)
    items = [{"product_id": product.id, "quantity": 1}, {"product_id": product.id, "quantity": 1}]

    response = api.post("/orders", json={"customer_name": "Ada", "items": items})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["items.1.product_id"]


# -- the duplicate window ----------------------------------------------------------------------------


def test_a_repeated_order_within_5_minutes_returns_the_first_with_200(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], make_contact: Callable[..., Contact]
) -> None:
    """The same contact, products and quantities within 5 minutes answer 200 with the first order and `is_duplicate`."""
    contact, product = make_contact(tenant), make_product(tenant)
    request = {"contact_id": contact.id, "items": [{"product_id": product.id, "quantity": 1}]}
    first = api.post("/orders", json=request).json()["data"]

    response = api.post("/orders", json=request)

    body = response.json()
    assert response.status_code == 200
    assert (body["data"]["id"], body["data"]["is_duplicate"]) == (first["id"], True)
    assert body["message"] == "An identical order was placed less than 5 minutes ago; it is returned instead."


def test_a_duplicate_takes_no_more_stock(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], make_contact: Callable[..., Contact]
) -> None:
    """The repeated request writes nothing: the stock is taken once."""
    contact, product = make_contact(tenant), make_product(tenant, stock_quantity=10)
    request = {"contact_id": contact.id, "items": [{"product_id": product.id, "quantity": 4}]}

    api.post("/orders", json=request)
    api.post("/orders", json=request)

    assert stock_of(api, product) == 6


def test_the_same_order_after_5_minutes_is_new(
    api: Api,
    tenant: Tenant,
    make_product: Callable[..., Product],
    make_contact: Callable[..., Contact],
    clock: FakeClock,
) -> None:
    """Once the window has passed, the same request places a new order (201)."""
    contact, product = make_contact(tenant), make_product(tenant)
    request = {"contact_id": contact.id, "items": [{"product_id": product.id, "quantity": 1}]}
    first = api.post("/orders", json=request).json()["data"]
    clock.advance(minutes=5)

    response = api.post("/orders", json=request)

    assert response.status_code == 201
    assert response.json()["data"]["id"] != first["id"]


def test_the_document_lists_200_for_a_duplicate() -> None:
    """`POST /orders` documents 201 and 200 with the same body."""
    responses = DOCUMENT["paths"][API_PREFIX + "/orders"]["post"]["responses"]

    assert responses["200"] == responses["201"]


# -- reading -----------------------------------------------------------------------------------------


def test_an_order_is_read_by_id(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], make_order: Callable[..., Order]
) -> None:
    """`GET /orders/{id}` answers the order with its items."""
    product = make_product(tenant)
    order = make_order(tenant, [(product.id, 2)])

    data = api.get(f"/orders/{order.id}").json()["data"]

    assert (data["id"], data["items"][0]["quantity"], "is_duplicate" in data) == (order.id, 2, False)


def test_an_unknown_order_is_404(api: Api) -> None:
    """An id that names no order answers 404."""
    response = api.get("/orders/999")

    assert (response.status_code, response.json()["message"]) == (404, "Order not found.")


def test_orders_are_listed_newest_first_with_meta(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], make_order: Callable[..., Order], clock: FakeClock
) -> None:
    """`GET /orders` lists the newest order first, with `meta` and a message."""
    product = make_product(tenant)
    older = make_order(tenant, [(product.id, 1)])
    clock.advance(minutes=1)
    newer = make_order(tenant, [(product.id, 1)])

    body = api.get("/orders").json()

    assert [o["id"] for o in body["data"]] == [newer.id, older.id]
    assert body["meta"] == {"current_page": 1, "per_page": 15, "total": 2, "last_page": 1}
    assert body["message"] == "Orders retrieved."


def test_per_page_of_orders_is_clamped_to_100(api: Api) -> None:
    """`per_page=1000` is served as 100."""
    assert api.get("/orders", params={"per_page": 1000}).json()["meta"]["per_page"] == 100


def test_orders_are_filtered_by_status(
    api: Api,
    tenant: Tenant,
    services: Services,
    make_product: Callable[..., Product],
    make_order: Callable[..., Order],
) -> None:
    """`status` keeps the orders in that state."""
    product = make_product(tenant)
    confirmed = make_order(tenant, [(product.id, 1)])
    make_order(tenant, [(product.id, 1)])
    move(services, tenant, confirmed, "confirmed")

    found = api.get("/orders", params={"status": "confirmed"}).json()["data"]

    assert [o["id"] for o in found] == [confirmed.id]


def test_orders_are_filtered_by_contact(
    api: Api,
    tenant: Tenant,
    make_product: Callable[..., Product],
    make_order: Callable[..., Order],
    make_contact: Callable[..., Contact],
) -> None:
    """`contact_id` keeps that contact's orders."""
    contact, product = make_contact(tenant), make_product(tenant)
    theirs = make_order(tenant, [(product.id, 1)], contact_id=contact.id)
    make_order(tenant, [(product.id, 1)])

    found = api.get("/orders", params={"contact_id": contact.id}).json()["data"]

    assert [o["id"] for o in found] == [theirs.id]


def test_orders_are_filtered_by_creator(
    api: Api,
    tenant: Tenant,
    make_product: Callable[..., Product],
    make_order: Callable[..., Order],
    make_store_order: Callable[..., Order],
) -> None:
    """`created_by` keeps the orders from that source."""
    make_order(tenant, [(make_product(tenant).id, 1)])
    from_store = make_store_order(tenant)

    found = api.get("/orders", params={"created_by": "store_platform"}).json()["data"]

    assert [o["id"] for o in found] == [from_store.id]


def test_orders_are_filtered_by_days_both_included(
    api: Api,
    tenant: Tenant,
    make_product: Callable[..., Product],
    make_order: Callable[..., Order],
    clock: FakeClock,
) -> None:
    """`date_from` and `date_to` keep orders created on those days and between them."""
    product = make_product(tenant)
    placed = {}
    for day in (1, 2, 3, 4):
        clock.set(datetime.fromisoformat(f"2026-03-0{day}T23:59:59+00:00"))
        placed[day] = make_order(tenant, [(product.id, 1)]).id

    found = api.get("/orders", params={"date_from": "2026-03-02", "date_to": "2026-03-03"}).json()["data"]

    assert [o["id"] for o in found] == [placed[3], placed[2]]


@pytest.mark.parametrize("value", ["03/02/2026", "2026-3-2", "2026-02-30", "yesterday"])
def test_a_bad_date_is_a_422(api: Api, value: str) -> None:
    """A `date_from` that is not a real YYYY-MM-DD day is a 422 naming it."""
    response = api.get("/orders", params={"date_from": value})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["date_from"]


def test_a_date_range_ending_before_it_starts_is_a_422(api: Api) -> None:
    """`date_to` before `date_from` is a 422 on `date_to`."""
    response = api.get("/orders", params={"date_from": "2026-03-02", "date_to": "2026-03-01"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["date_to"]


@pytest.mark.parametrize(("name", "value"), [("status", "lost"), ("created_by", "robot"), ("contact_id", "x")])
def test_an_unknown_filter_value_is_a_422(api: Api, name: str, value: str) -> None:
    """A status or source outside its list, or a contact id that is no integer, is a 422 naming it."""
    response = api.get("/orders", params={name: value})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == [name]


def test_another_accounts_orders_are_not_listed(
    api: Api, make_tenant: Callable[..., Tenant], make_product: Callable[..., Product], make_order: Callable[..., Order]
) -> None:
    """Orders of another account never appear."""
    other = make_tenant("Other")
    make_order(other, [(make_product(other).id, 1)])

    assert api.get("/orders").json()["data"] == []


# -- status moves ------------------------------------------------------------------------------------


@pytest.fixture
def order(tenant: Tenant, make_product: Callable[..., Product], make_order: Callable[..., Order]) -> Order:
    """A pending order of 2 units of a product with 10 in stock (8 left)."""
    return make_order(tenant, [(make_product(tenant, stock_quantity=10).id, 2)])


def test_a_pending_order_is_confirmed(api: Api, order: Order) -> None:
    """`PUT /orders/{id}` with `status` confirmed moves a pending order."""
    response = api.put(f"/orders/{order.id}", json={"status": "confirmed"})

    assert (response.status_code, response.json()["data"]["status"]) == (200, "confirmed")


def test_an_order_moves_through_to_delivered(api: Api, order: Order) -> None:
    """pending, confirmed, processing, shipped, delivered: each move is allowed in turn."""
    statuses = [
        api.put(f"/orders/{order.id}", json={"status": s}).json()["data"]["status"]
        for s in (
            "confirmed",
            "processing",
            "shipped",
            "delivered",
        )
    ]

    assert statuses == ["confirmed", "processing", "shipped", "delivered"]


def test_delivery_emits_order_delivered(
    api: Api, tenant: Tenant, services: Services, order: Order, uow: InMemoryUnitOfWorkFactory
) -> None:
    """Moving to delivered emits `order.updated` then `order.delivered`."""
    move(services, tenant, order, "confirmed", "processing", "shipped")
    before = len(uow.store.events(tenant.account_id))

    api.put(f"/orders/{order.id}", json={"status": "delivered"})

    assert [e.name for e in uow.store.events(tenant.account_id)[before:]] == ["order.updated", "order.delivered"]


def test_a_move_that_skips_a_state_names_both_states(api: Api, order: Order) -> None:
    """pending to shipped is a 422 whose message names both statuses."""
    response = api.put(f"/orders/{order.id}", json={"status": "shipped"})

    assert response.status_code == 422
    assert response.json()["errors"] == {
        "status": ["An order cannot move from pending to shipped; from pending it can move to confirmed or cancelled."]
    }


def test_a_delivered_order_is_final(api: Api, tenant: Tenant, services: Services, order: Order) -> None:
    """No move leaves delivered."""
    move(services, tenant, order, "confirmed", "processing", "shipped", "delivered")

    response = api.put(f"/orders/{order.id}", json={"status": "processing"})

    assert response.status_code == 422
    assert response.json()["errors"]["status"] == [
        "An order cannot move from delivered to processing: delivered is final."
    ]


def test_an_unknown_status_is_a_422(api: Api, order: Order) -> None:
    """A status outside the six is refused by the schema."""
    response = api.put(f"/orders/{order.id}", json={"status": "lost"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["status"]


def test_cancelling_by_status_needs_a_reason(api: Api, order: Order) -> None:
    """Moving to cancelled without `cancellation_reason` is a 422 naming it."""
    response = api.put(f"/orders/{order.id}", json={"status": "cancelled"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["cancellation_reason"]


def test_cancelling_by_status_records_the_reason(api: Api, order: Order) -> None:
    """A pending order cancelled with a reason keeps the reason and gets `cancelled_at`."""
    response = api.put(f"/orders/{order.id}", json={"status": "cancelled", "cancellation_reason": "Changed mind"})

    data = response.json()["data"]
    assert (data["status"], data["cancellation_reason"], data["cancelled_at"]) == (
        "cancelled",
        "Changed mind",
        "2026-01-01T12:00:00.000000Z",
    )


def test_cancelling_a_pending_order_by_status_restores_stock(api: Api, order: Order) -> None:
    """The units a pending order held go back to the product."""
    api.put(f"/orders/{order.id}", json={"status": "cancelled", "cancellation_reason": "Changed mind"})

    assert api.get("/products").json()["data"][0]["stock_quantity"] == 10


def test_cancelling_a_processing_order_keeps_the_stock_out(
    api: Api, tenant: Tenant, services: Services, order: Order
) -> None:
    """From processing the goods may be picked already: cancelling does not restock."""
    move(services, tenant, order, "confirmed", "processing")

    api.put(f"/orders/{order.id}", json={"status": "cancelled", "cancellation_reason": "Lost in transit"})

    assert api.get("/products").json()["data"][0]["stock_quantity"] == 8


def test_notes_and_shipping_address_are_updated(api: Api, order: Order) -> None:
    """`notes` and `shipping_address` change without a status move; `null` clears."""
    response = api.put(f"/orders/{order.id}", json={"notes": "Gift wrap", "shipping_address": None})

    data = response.json()["data"]
    assert (data["status"], data["notes"], data["shipping_address"]) == ("pending", "Gift wrap", None)


def test_updating_another_accounts_order_is_404(
    api: Api, make_tenant: Callable[..., Tenant], make_product: Callable[..., Product], make_order: Callable[..., Order]
) -> None:
    """An order of another account is 404 for every write."""
    other = make_tenant("Other")
    theirs = make_order(other, [(make_product(other).id, 1)])

    assert api.put(f"/orders/{theirs.id}", json={"status": "confirmed"}).status_code == 404


# -- cancelling --------------------------------------------------------------------------------------


def test_the_cancel_endpoint_cancels_with_the_reason(api: Api, order: Order) -> None:
    """`POST /orders/{id}/cancel` cancels a pending order and records the reason."""
    response = api.post(f"/orders/{order.id}/cancel", json={"reason": "Out of budget"})

    data = response.json()["data"]
    assert (response.status_code, data["status"], data["cancellation_reason"]) == (200, "cancelled", "Out of budget")


def test_the_cancel_endpoint_restores_stock(api: Api, tenant: Tenant, services: Services, order: Order) -> None:
    """Cancelling a confirmed order puts its units back."""
    move(services, tenant, order, "confirmed")

    api.post(f"/orders/{order.id}/cancel")

    assert api.get("/products").json()["data"][0]["stock_quantity"] == 10


def test_the_cancel_endpoint_needs_no_body(api: Api, order: Order) -> None:
    """A cancel without a body is accepted; the reason is then null."""
    response = api.post(f"/orders/{order.id}/cancel")

    assert (response.status_code, response.json()["data"]["cancellation_reason"]) == (200, None)


def test_the_cancel_endpoint_emits_order_cancelled(
    api: Api, tenant: Tenant, order: Order, uow: InMemoryUnitOfWorkFactory
) -> None:
    """Cancelling emits `order.updated` then `order.cancelled`."""
    before = len(uow.store.events(tenant.account_id))

    api.post(f"/orders/{order.id}/cancel")

    assert [e.name for e in uow.store.events(tenant.account_id)[before:]] == ["order.updated", "order.cancelled"]


def test_the_cancel_endpoint_refuses_a_processing_order(
    api: Api, tenant: Tenant, services: Services, order: Order
) -> None:
    """The cancel endpoint applies to pending and confirmed orders only."""
    move(services, tenant, order, "confirmed", "processing")

    response = api.post(f"/orders/{order.id}/cancel")

    assert response.status_code == 422
    assert "processing" in response.json()["errors"]["status"][0]


def test_the_cancel_body_is_optional_in_the_document() -> None:
    """The document says the cancel body may be left out."""
    assert DOCUMENT["paths"][API_PREFIX + "/orders/{id}/cancel"]["post"]["requestBody"]["required"] is False


# -- replacing items ---------------------------------------------------------------------------------


def test_items_are_replaced_and_totals_recomputed(
    api: Api, tenant: Tenant, order: Order, make_product: Callable[..., Product]
) -> None:
    """`PUT /orders/{id}/items` replaces every item and prices the order again."""
    other = make_product(tenant, product_name="Filter", price="2.50")

    response = api.put(f"/orders/{order.id}/items", json={"items": [{"product_id": other.id, "quantity": 3}]})

    data = response.json()["data"]
    assert [(i["product_name"], i["quantity"], i["total_price"]) for i in data["items"]] == [("Filter", 3, 7.5)]
    assert data["total"] == 7.5


def test_replacing_items_moves_stock_by_the_difference(
    api: Api, tenant: Tenant, order: Order, make_product: Callable[..., Product]
) -> None:
    """Raising a quantity from 2 to 5 takes 3 more units."""
    [item] = order.items
    assert item.product_id is not None

    api.put(f"/orders/{order.id}/items", json={"items": [{"product_id": item.product_id, "quantity": 5}]})

    assert api.get("/products").json()["data"][0]["stock_quantity"] == 5


def test_replacing_items_with_too_little_stock_changes_nothing(
    api: Api, order: Order, uow: InMemoryUnitOfWorkFactory
) -> None:
    """Asking for more than the stock and what the order holds is a 422, and nothing is written."""
    [item] = order.items
    before = copy.deepcopy(uow.store.state)

    response = api.put(f"/orders/{order.id}/items", json={"items": [{"product_id": item.product_id, "quantity": 11}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["items.0.quantity"]
    assert uow.store.state == before


def test_items_of_a_confirmed_order_cannot_be_replaced(
    api: Api, tenant: Tenant, services: Services, order: Order
) -> None:
    """Items can be replaced only while the order is pending."""
    move(services, tenant, order, "confirmed")
    [item] = order.items

    response = api.put(f"/orders/{order.id}/items", json={"items": [{"product_id": item.product_id, "quantity": 1}]})

    assert response.status_code == 422
    assert response.json()["errors"] == {
        "items": ["Items can be replaced only while the order is pending; this order is confirmed."]
    }


def test_replacing_items_needs_at_least_one(api: Api, order: Order) -> None:
    """An empty `items` array is a 422."""
    response = api.put(f"/orders/{order.id}/items", json={"items": []})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["items"]


# -- orders from a store platform --------------------------------------------------------------------


def test_a_store_order_is_moved_at_the_store_first(
    api: Api, tenant: Tenant, make_store_order: Callable[..., Order], store: FakeStorePlatform
) -> None:
    """A status change of a store-sourced order is pushed to the store, then applied."""
    order = make_store_order(tenant)

    response = api.put(f"/orders/{order.id}", json={"status": "confirmed"})

    assert response.json()["data"]["status"] == "confirmed"
    assert store.pushes == [StorePush(order.id, "shop-1001", "confirmed")]


def test_a_store_refusal_is_a_422_and_changes_nothing(
    api: Api,
    tenant: Tenant,
    make_store_order: Callable[..., Order],
    store: FakeStorePlatform,
    uow: InMemoryUnitOfWorkFactory,
) -> None:
    """When the store refuses the change, the answer is a 422 with its message and the order stays as it was."""
    order = make_store_order(tenant)
    store.reject("The store says no.")
    before = copy.deepcopy(uow.store.state)

    response = api.put(f"/orders/{order.id}", json={"status": "confirmed"})

    assert response.status_code == 422
    assert response.json()["errors"] == {"status": ["The store says no."]}
    assert uow.store.state == before


def test_cancelling_a_store_order_pushes_canceled(
    api: Api, tenant: Tenant, make_store_order: Callable[..., Order], store: FakeStorePlatform
) -> None:
    """The cancel endpoint pushes the store's slug `canceled` before cancelling locally."""
    order = make_store_order(tenant)

    response = api.post(f"/orders/{order.id}/cancel")

    assert response.json()["data"]["status"] == "cancelled"
    assert [p.slug for p in store.pushes] == ["canceled"]


def test_items_of_a_store_order_cannot_be_replaced(
    api: Api, tenant: Tenant, make_store_order: Callable[..., Order], make_product: Callable[..., Product]
) -> None:
    """Item edits on store-sourced orders are refused with a 422."""
    order = make_store_order(tenant)
    product = make_product(tenant)

    response = api.put(f"/orders/{order.id}/items", json={"items": [{"product_id": product.id, "quantity": 1}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["items"]
