"""Orders (SPEC 3, 4): placing, reading, status moves, cancelling and replacing items.

Placing an order that repeats one placed less than 5 minutes ago (same contact, same products
and quantities) returns that order with `is_duplicate` true and status 200 instead of 201:
nothing new was created, and a client that retries a timed-out request sees it at once.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.commerce import orders as domain
from engage_core.commerce.order_service import OrderInput, OrderPatch
from engage_core.commerce.orders import ORDERS, ItemRequest, OrderFilter
from engage_core.kernel.pagination import Page
from engage_http.commerce.schemas import (
    NewOrder,
    Order,
    OrderCancel,
    OrderCreate,
    OrderFilters,
    OrderItemsReplace,
    OrderUpdate,
)
from engage_http.converter import to_core
from engage_http.operations import Call, Operation, Reply, Shape

TAG = "Orders"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (stock, currencies, existing products and contacts, status moves, date ranges)."""

DUPLICATE_MESSAGE = "An identical order was placed less than 5 minutes ago; it is returned instead."

_RULES = (
    "Every product must exist, be available and priced, be in the one currency of the order, and (when its "
    "stock is tracked) have enough stock; otherwise a 422 names the item (`items.0.quantity`)."
)


def index(call: Call[None, OrderFilter]) -> Page[domain.Order]:
    assert call.page is not None
    found = call.services.orders.find(call.account_id, call.query, call.page)
    return found


def store(call: Call[OrderInput, None]) -> NewOrder | Reply:
    placed = call.services.orders.create(call.account_id, call.body)
    if placed.is_duplicate:
        return Reply(NewOrder.from_placed(placed), DUPLICATE_MESSAGE, status=200)
    return NewOrder.from_placed(placed)


def show(call: Call[None, None]) -> domain.Order:
    return call.services.orders.get(call.account_id, call.path["id"])


def update(call: Call[OrderPatch, None]) -> domain.Order:
    return call.services.orders.update(call.account_id, call.path["id"], call.body)


def cancel(call: Call[OrderCancel, None]) -> domain.Order:
    return call.services.orders.cancel(call.account_id, call.path["id"], call.body.reason)


def replace_items(call: Call[OrderItemsReplace, None]) -> domain.Order:
    items: Sequence[ItemRequest] = to_core(call.body.items)  # the lines stand for core values, the body for none
    changed = call.services.orders.replace_items(call.account_id, call.path["id"], items)
    return changed


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/orders",
        index,
        "List orders",
        TAG,
        Order,
        Shape.PAGE,
        message="Orders retrieved.",
        query=OrderFilters,
        errors=RULES,
        page=ORDERS,
        description="Newest first. `date_from` and `date_to` are days of `created_at` in UTC, both included; "
        "`date_to` before `date_from` is a 422.",
    ),
    Operation(
        "POST",
        "/orders",
        store,
        "Place an order",
        TAG,
        NewOrder,
        status=201,
        message="Order placed.",
        body=OrderCreate,
        errors=RULES,
        alternate_statuses=frozenset({200}),
        description="The order starts `pending` and takes its items' stock. " + _RULES + " An identical order "
        "(same contact, same products and quantities) placed less than 5 minutes ago and not cancelled is "
        "returned instead, with `is_duplicate` true and status 200; nothing is written. An unknown "
        "`contact_id` is a 422.",
        write_lane=True,  # placing an order is database work only (status changes may call the store)
    ),
    Operation("GET", "/orders/{id:id}", show, "Get an order", TAG, Order),
    Operation(
        "PUT",
        "/orders/{id:id}",
        update,
        "Update an order",
        TAG,
        Order,
        message="Order updated.",
        body=OrderUpdate,
        errors=RULES,
        description="Moves: pending to confirmed or cancelled; confirmed to processing or cancelled; processing "
        "to shipped or cancelled; shipped to delivered. Delivered and cancelled are final. Any other move is a "
        "422 naming both statuses. Cancelling from pending or confirmed puts the stock back. An order from a "
        "store platform is changed at the store first; if the store refuses, the answer is a 422 and the order "
        "is unchanged.",
    ),
    Operation(
        "POST",
        "/orders/{id:id}/cancel",
        cancel,
        "Cancel an order",
        TAG,
        Order,
        message="Order cancelled.",
        body=OrderCancel,
        errors=RULES,
        body_optional=True,
        description="Pending and confirmed orders only (others: 422); puts the stock back. The body, and its "
        "`reason`, may be left out. An order from a store platform is cancelled at the store first.",
    ),
    Operation(
        "PUT",
        "/orders/{id:id}/items",
        replace_items,
        "Replace an order's items",
        TAG,
        Order,
        message="Order items updated.",
        body=OrderItemsReplace,
        errors=RULES,
        description="Pending orders only, and not orders from a store platform (others: 422). Prices are read "
        "again; stock moves by the difference. " + _RULES,
    ),
)
