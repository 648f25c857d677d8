"""Request and response bodies of orders (SPEC 2, Order, order item; SPEC 3, Order; SPEC 4, Orders).

Money is a JSON number that prints as its exact decimal (`19.99`); see `schemas/products.py`.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.commerce import orders as domain
from engage_core.commerce.order_service import OrderInput, OrderPatch, PlacedOrder
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import NOT_BLANK, Doc, Integer, Items, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Email, Id, Phone

OrderStatus = Literal["pending", "confirmed", "processing", "shipped", "delivered", "cancelled"]
CreatedBy = Literal["manual", "ai_agent", "api", "web_chat", "store_platform"]

CustomerName = Annotated[str, Text(max_length=domain.NAME_MAX)]
Address = Annotated[str, Text(max_length=domain.ADDRESS_MAX)]
Notes = Annotated[str, Text(max_length=domain.NOTES_MAX)]
Reason = Annotated[str, Text(max_length=domain.REASON_MAX)]
Quantity = Annotated[int, Integer(minimum=1, maximum=domain.QUANTITY_MAX)]

DATE_PATTERN = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
Day = Annotated[
    str,
    Text(pattern=DATE_PATTERN, format="date", message="The {field} must be a date in the form YYYY-MM-DD."),
    Doc(example="2026-01-31"),
]


@structures_into(domain.ItemRequest)
@attrs.frozen
class OrderLine:
    """A line asked for: a product and how many. Each product at most once per order."""

    product_id: Id
    quantity: Quantity


OrderLines = Annotated[tuple[OrderLine, ...], Items(min_items=1, max_items=domain.ITEMS_MAX)]


@structures_into(OrderInput)
@attrs.frozen
class OrderCreate:
    """A new order. `customer_name` may be left out when `contact_id` is given: the customer fields left
    out are then taken from the contact."""

    items: OrderLines
    customer_name: CustomerName | None = None
    contact_id: Id | None = None
    customer_phone: Phone | None = None
    customer_email: Email | None = None
    shipping_address: Address | None = None
    notes: Notes | None = None

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["anyOf"] = [
            {"required": ["contact_id"], "properties": {"contact_id": {"type": "integer"}}},
            {"required": ["customer_name"], "properties": {"customer_name": {"type": "string", "pattern": NOT_BLANK}}},
        ]
        return schema


@structures_into(OrderPatch)
@attrs.frozen
class OrderUpdate:
    """Any subset of the fields; fields left out keep their value. A `status` must be a move the order's
    current status allows; moving to `cancelled` needs a `cancellation_reason`."""

    status: OrderStatus | Unset = UNSET
    notes: Notes | Unset | None = UNSET
    shipping_address: Address | Unset | None = UNSET
    cancellation_reason: Reason | None = attrs.field(
        default=None, metadata={"description": "Required when `status` moves to `cancelled`; read only then."}
    )


@attrs.frozen
class OrderCancel:
    """Why the order is cancelled (optional). The body itself may be left out."""

    reason: Reason | None = None


@attrs.frozen
class OrderItemsReplace:
    """The order's new items, replacing all of them."""

    items: OrderLines


def _order_filter(query: OrderFilters) -> domain.OrderFilter:
    # The days are text on the wire: the pattern lets through dates the calendar has not (`2026-02-30`).
    errors: dict[str, list[str]] = {}
    date_from = _day("date_from", query.date_from, errors)
    date_to = _day("date_to", query.date_to, errors)
    if errors:
        raise ValidationFailed(errors)
    return domain.OrderFilter(
        status=query.status,
        contact_id=query.contact_id,
        created_by=query.created_by,
        date_from=date_from,
        date_to=date_to,
    )


@structures_into(domain.OrderFilter, _order_filter)
@attrs.frozen
class OrderFilters:
    """Query filters of `GET /orders`."""

    status: OrderStatus | None = None
    contact_id: Id | None = None
    created_by: CreatedBy | None = None
    date_from: Day | None = attrs.field(
        default=None, metadata={"description": "Created on or after this day (UTC), YYYY-MM-DD."}
    )
    date_to: Day | None = attrs.field(
        default=None, metadata={"description": "Created on or before this day (UTC), YYYY-MM-DD."}
    )


def _day(field: str, value: str | None, errors: dict[str, list[str]]) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        errors[field] = [f"The {field.replace('_', ' ')} is not a valid date."]
        return None


@renders(domain.OrderItem)
@attrs.frozen
class OrderItem:
    """A line of an order: the product as it was when the line was placed (SPEC 2, Order item)."""

    id: int
    product_id: int | None = attrs.field(
        metadata={"description": "Null on a line of a store-platform order whose product is not in the catalogue."}
    )
    product_name: str
    product_sku: str | None
    quantity: int
    unit_price: float
    total_price: float = attrs.field(metadata={"description": "`unit_price` × `quantity`."})


@renders(domain.Order)
@attrs.frozen
class Order:
    """An order (SPEC 2). `cancelled_at` and `cancellation_reason` are additions to the SPEC fields."""

    id: int
    contact_id: int | None
    customer_name: str
    customer_phone: str | None
    customer_email: str | None
    status: OrderStatus
    subtotal: float = attrs.field(metadata={"description": "The sum of the items' `total_price`."})
    total: float = attrs.field(metadata={"description": "The subtotal after adjustments (there are none yet)."})
    currency: str
    shipping_address: str | None
    notes: str | None
    created_by: CreatedBy
    items: tuple[OrderItem, ...]
    cancelled_at: datetime | None
    cancellation_reason: str | None
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class NewOrder(Order):
    """The answer to `POST /orders`: the order, and whether it is an identical order placed less than
    5 minutes ago, returned instead of placing a new one (`is_duplicate`)."""

    is_duplicate: bool

    # By hand: the wire lays `is_duplicate` beside the order's fields.
    @classmethod
    def from_placed(cls, placed: PlacedOrder) -> NewOrder:
        fields = {field.name: getattr(placed.order, field.name) for field in attrs.fields(Order)}
        return cls(**fields, is_duplicate=placed.is_duplicate)


__all__ = [
    "NewOrder",
    "Order",
    "OrderCancel",
    "OrderCreate",
    "OrderFilters",
    "OrderItem",
    "OrderItemsReplace",
    "OrderLine",
    "OrderUpdate",
]
