"""Request and response bodies of the store-platform inbound path (`POST /store/orders`, and the
same objects in the files of `engage orders import`).

A connected store pushes an order as it knows it: its own reference, the customer, and the lines at
the store's prices (`engage_core.commerce.order_service.StoreOrderInput`). Prices are JSON numbers read as
the decimals they spell, as everywhere in the API (`schemas/products.py`).
"""

from __future__ import annotations

from typing import Annotated, Any

import attrs

from engage_core.commerce import orders as domain
from engage_core.commerce.order_service import PlacedOrder, StoreOrderInput, StoreOrderItemInput
from engage_core.kernel.money import DEFAULT_CURRENCY, PRICE_MAX
from engage_http.commerce.product_schemas import Currency, price_bounds
from engage_http.commerce.schemas import Address, Notes, Order, OrderStatus, Quantity
from engage_http.constraints import Doc, Items, Text
from engage_http.converter import structures_into, to_core
from engage_http.fields import Email, Id, Name, Phone

Reference = Annotated[
    str,
    Text(max_length=domain.REFERENCE_MAX, blank=False),
    Doc(
        description=(
            "The store's own id of the order; one order per reference in a workspace. Printable characters "
            "only, and not made of dots only."
        ),
        example="wc-1001",
    ),
]
UnitPrice = Annotated[
    float,
    Doc(description=f"The store's price of one unit, from 0 to {PRICE_MAX}, rounded half up to cents.", example=19.99),
]
Sku = Annotated[str, Text(max_length=100)]


@structures_into(StoreOrderItemInput)
@attrs.frozen
class StoreOrderItem:
    """A line as the store sold it, at the store's price. `product_id` links it to a product of the
    local catalogue (it must exist); lines without one are kept by name and SKU."""

    product_name: Name
    quantity: Quantity
    unit_price: UnitPrice
    product_sku: Sku | None = None
    product_id: Id | None = None

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["properties"]["unit_price"] = price_bounds(schema["properties"]["unit_price"])
        return schema


def _store_order(body: StoreOrderImport) -> StoreOrderInput:
    # A currency left out or null is the core's default: its field is never None.
    return StoreOrderInput(
        external_reference=body.external_reference,
        customer_name=body.customer_name,
        items=to_core(body.items),
        currency=body.currency or DEFAULT_CURRENCY,
        status=body.status,
        contact_id=body.contact_id,
        customer_phone=body.customer_phone,
        customer_email=body.customer_email,
        shipping_address=body.shipping_address,
        notes=body.notes,
    )


@structures_into(StoreOrderInput, _store_order)
@attrs.frozen
class StoreOrderImport:
    """An order from the connected store. Pushing a reference the workspace already has returns the
    stored order unchanged (`is_duplicate` true, status 200)."""

    external_reference: Reference
    customer_name: Name
    items: Annotated[tuple[StoreOrderItem, ...], Items(min_items=1, max_items=domain.ITEMS_MAX)]
    currency: Currency | None = None
    status: OrderStatus = attrs.field(
        default="pending", metadata={"description": "The order's status at the store when it was pushed."}
    )
    contact_id: Id | None = None
    customer_phone: Phone | None = None
    customer_email: Email | None = None
    shipping_address: Address | None = None
    notes: Notes | None = None


@attrs.frozen
class ImportedOrder(Order):
    """The answer to `POST /store/orders`: the stored order with its store reference, and whether
    that reference had been imported before (`is_duplicate`: then nothing changed and the status is 200)."""

    external_reference: str
    is_duplicate: bool

    # By hand: the wire lays the reference and `is_duplicate` beside the order's fields.
    @classmethod
    def from_placed(cls, placed: PlacedOrder) -> ImportedOrder:
        order = placed.order
        assert order.external_reference is not None  # every store-sourced order has one
        fields = {field.name: getattr(order, field.name) for field in attrs.fields(Order)}
        return cls(**fields, external_reference=order.external_reference, is_duplicate=placed.is_duplicate)


__all__ = ["ImportedOrder", "StoreOrderImport", "StoreOrderItem"]
