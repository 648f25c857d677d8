"""Orders: the state machine, pricing, the duplicate window, and event payloads (SPEC 2, 3, 6).

States and moves (SPEC 3), the only ones there are::

    pending    -> confirmed | cancelled
    confirmed  -> processing | cancelled
    processing -> shipped | cancelled
    shipped    -> delivered
    delivered, cancelled: terminal, no outgoing move

Two pure functions make the moves; anything else raises ValidationFailed on `status` with a
message naming both states:

- `transition(order, to, now, reason)`: `PUT /orders/{id}` with a status. A move to `cancelled`
  needs a reason (`cancellation_reason`), whatever the state it leaves.
- `cancel(order, now, reason)`: `POST /orders/{id}/cancel`, from `pending` or `confirmed` only;
  the reason is optional.

Events, in the order they are emitted (payloads: `Order.event_payload()`, the SPEC 2 order fields
plus `cancelled_at`, `cancellation_reason` and `items`; `Order.cancelled_payload()`, SPEC 6's
shorter list):

- creating an order: `order.created`;
- every status move: `order.updated`, then `order.cancelled` when it moved to `cancelled` or
  `order.delivered` when it moved to `delivered`;
- a change of notes, shipping address or items without a move: `order.updated` alone;
- a request that changes nothing, and a duplicate create: no event.

Stock (see `engage_core.commerce.products` for tracked and untracked stock): placing an order takes the
stock of every item; cancelling from `pending` or `confirmed` restores it (`RESTORES_STOCK`: SPEC 3
says "stock restored" on those rows and not on `processing -> cancelled`, where the goods may be
picked already: they are restocked by hand); replacing the items of a pending order takes or
restores the difference. Orders from a store platform never move local stock: the store keeps its
own inventory.

Money: a line's `total_price` is `unit_price * quantity`, the `subtotal` their sum, exactly, in
`Decimal` (`engage_core.kernel.money`). `total` is the subtotal: there are no adjustments (shipping, tax,
discounts) yet; they would sit between the two. An order has one currency, its products'.

Duplicate window (SPEC 4, 8): an order for the same contact with the same products in the same
quantities (in any order), created less than five minutes ago and not cancelled, is returned
instead of placing a new one. Orders without a contact have no identity to compare and are never
duplicates (`duplicate_key` is None).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import attrs

from engage_core.commerce.products import Product
from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.money import TOTAL_MAX, as_number, quantize
from engage_core.kernel.pagination import PageLimits
from engage_core.kernel.validation import ErrorCollector, optional_text, required_text

ORDER_STATUSES: tuple[str, ...] = ("pending", "confirmed", "processing", "shipped", "delivered", "cancelled")
CREATED_BY: tuple[str, ...] = ("manual", "ai_agent", "api", "web_chat", "store_platform")
TRANSITIONS: Mapping[str, tuple[str, ...]] = {
    "pending": ("confirmed", "cancelled"),
    "confirmed": ("processing", "cancelled"),
    "processing": ("shipped", "cancelled"),
    "shipped": ("delivered",),
    "delivered": (),
    "cancelled": (),
}
"""SPEC 3, Order: every state's outgoing moves."""
TERMINAL = frozenset(s for s, moves in TRANSITIONS.items() if not moves)
CANCELLABLE = frozenset({"pending", "confirmed"})
"""States `POST /orders/{id}/cancel` applies to."""
RESTORES_STOCK = frozenset({"pending", "confirmed"})
"""States whose cancellation puts the order's stock back."""
EDITABLE_ITEMS = frozenset({"pending"})
"""States whose items can be replaced."""
STORE_SLUGS: Mapping[str, str] = {
    "pending": "pending",
    "confirmed": "confirmed",
    "processing": "processing",
    "shipped": "shipped",
    "delivered": "delivered",
    "cancelled": "canceled",
}
"""The status slug pushed to a store platform for each state (SPEC 3: cancelling pushes `canceled`)."""

DUPLICATE_WINDOW = timedelta(minutes=5)
ITEMS_MAX = 100
QUANTITY_MAX = 10_000
NAME_MAX = 255
ADDRESS_MAX = 1000
NOTES_MAX = 10_000
REASON_MAX = 1000
REFERENCE_MAX = 255
"""Characters of a store reference at most, after trimming."""


def parse_reference(field: str, value: str) -> str:
    """A store's order reference: trimmed, 1 to `REFERENCE_MAX` printable characters (letters,
    digits, punctuation, symbols and inner spaces; no control, format or line-separator
    characters), and not made of dots only. It names the order in the store connector's URL, where
    `.` or `..` would name another path."""
    cleaned = required_text(field, value, max_length=REFERENCE_MAX)
    if not cleaned.isprintable():
        raise ValidationFailed.on(field, f"The {field} may contain printable characters only.")
    if not cleaned.strip("."):
        raise ValidationFailed.on(field, f"The {field} may not be made of dots only.")
    return cleaned


ORDERS = PageLimits(default=15)
"""`GET /orders`: SPEC 8 caps `per_page` at 100 and names no default; 15 like contacts."""


class StoreRejected(Exception):
    """Raised by a `StorePlatform` adapter when the store refuses a status change. The services turn
    it into a 422 carrying `message`, before anything local has changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@attrs.frozen
class OrderItem:
    """A line of an order: the product as it was when the line was placed (name, SKU, unit price).
    `product_id` stays as it was even if the product is deleted later; it is None on a line of a
    store-sourced order whose product is not in the local catalogue."""

    id: int
    product_id: int | None
    product_name: str
    product_sku: str | None
    quantity: int
    unit_price: Decimal
    total_price: Decimal

    def payload(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "product_id": self.product_id,
            "product_name": self.product_name,
            "product_sku": self.product_sku,
            "quantity": self.quantity,
            "unit_price": as_number(self.unit_price),
            "total_price": as_number(self.total_price),
        }


@attrs.frozen
class OrderItemDraft:
    """A line before it is stored."""

    product_id: int | None
    product_name: str
    product_sku: str | None
    quantity: int
    unit_price: Decimal

    @property
    def total_price(self) -> Decimal:
        return quantize(self.unit_price * self.quantity)


@attrs.frozen
class Order:
    id: int
    contact_id: int | None
    customer_name: str
    customer_phone: str | None
    customer_email: str | None
    status: str
    subtotal: Decimal
    total: Decimal
    currency: str
    shipping_address: str | None
    notes: str | None
    created_by: str
    items: tuple[OrderItem, ...]
    cancelled_at: datetime | None
    cancellation_reason: str | None
    created_at: datetime
    updated_at: datetime
    external_reference: str | None = None
    """The store platform's id of a store-sourced order (unique per account); None otherwise."""
    duplicate_key: str | None = None
    """`duplicate_key(contact_id, items)` of the current items; None when the order has no contact."""

    @property
    def is_store_order(self) -> bool:
        return self.created_by == "store_platform"

    def event_payload(self) -> Mapping[str, Any]:
        """`order.created`, `order.updated` and `order.delivered` data (SPEC 6)."""
        return {
            "id": self.id,
            "contact_id": self.contact_id,
            "customer_name": self.customer_name,
            "customer_phone": self.customer_phone,
            "customer_email": self.customer_email,
            "status": self.status,
            "subtotal": as_number(self.subtotal),
            "total": as_number(self.total),
            "currency": self.currency,
            "shipping_address": self.shipping_address,
            "notes": self.notes,
            "created_by": self.created_by,
            "items": [item.payload() for item in self.items],
            "cancelled_at": format_optional(self.cancelled_at),
            "cancellation_reason": self.cancellation_reason,
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }

    def cancelled_payload(self) -> Mapping[str, Any]:
        """`order.cancelled` data (SPEC 6)."""
        return {
            "id": self.id,
            "status": self.status,
            "customer_name": self.customer_name,
            "customer_phone": self.customer_phone,
            "total": as_number(self.total),
            "currency": self.currency,
            "cancelled_at": format_optional(self.cancelled_at),
            "cancellation_reason": self.cancellation_reason,
            "items": [item.payload() for item in self.items],
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }


@attrs.frozen
class OrderDraft:
    """A validated new order, priced, before it has ids."""

    contact_id: int | None
    customer_name: str
    customer_phone: str | None
    customer_email: str | None
    currency: str
    items: tuple[OrderItemDraft, ...]
    subtotal: Decimal
    total: Decimal
    created_by: str
    status: str = "pending"
    shipping_address: str | None = None
    notes: str | None = None
    cancelled_at: datetime | None = None
    cancellation_reason: str | None = None
    external_reference: str | None = None
    duplicate_key: str | None = None


@attrs.frozen
class ItemRequest:
    """One line asked for: `{"product_id": 3, "quantity": 2}`."""

    product_id: int
    quantity: int


@attrs.frozen
class PricedItems:
    """Lines priced from the catalogue, in the one currency they share."""

    items: tuple[OrderItemDraft, ...]
    currency: str
    subtotal: Decimal


@attrs.frozen
class OrderFilter:
    """Filters of `GET /orders`. Dates are calendar days of `created_at` in UTC, both inclusive."""

    status: str | None = None
    contact_id: int | None = None
    created_by: str | None = None
    date_from: date | None = None
    date_to: date | None = None

    def matches(self, order: Order) -> bool:
        """The reference semantics of the filter (the in-memory store uses it)."""
        day = order.created_at.date()
        return (
            (self.status is None or order.status == self.status)
            and (self.contact_id is None or order.contact_id == self.contact_id)
            and (self.created_by is None or order.created_by == self.created_by)
            and (self.date_from is None or day >= self.date_from)
            and (self.date_to is None or day <= self.date_to)
        )


# -- the state machine -----------------------------------------------------------------------------


def check_move(current: str, to: str) -> None:
    """Raise ValidationFailed on `status` unless `current -> to` is a move of SPEC 3."""
    if to not in ORDER_STATUSES:
        raise ValidationFailed.on("status", "The status must be one of: " + ", ".join(ORDER_STATUSES) + ".")
    allowed = TRANSITIONS[current]
    if to in allowed:
        return
    if not allowed:
        raise ValidationFailed.on("status", f"An order cannot move from {current} to {to}: {current} is final.")
    raise ValidationFailed.on(
        "status",
        f"An order cannot move from {current} to {to}; from {current} it can move to " + " or ".join(allowed) + ".",
    )


def transition(order: Order, to: str, now: datetime, reason: str | None = None) -> tuple[Order, list[DomainEvent]]:
    """The move of `PUT /orders/{id}`: the order in state `to`, and the events the move emits.

    A move to `cancelled` records `cancelled_at` and needs `reason` (`cancellation_reason`)."""
    check_move(order.status, to)
    if to == "cancelled":
        reason = required_text("cancellation_reason", reason or "", max_length=REASON_MAX)
    return _moved(order, to, now, reason)


def cancel(order: Order, now: datetime, reason: str | None = None) -> tuple[Order, list[DomainEvent]]:
    """The move of `POST /orders/{id}/cancel`: pending or confirmed orders only; `reason` optional."""
    if order.status not in CANCELLABLE:
        check_move(order.status, "cancelled")  # a terminal or shipped order: the ordinary message
        raise ValidationFailed.on(
            "status",
            f"An order cannot move from {order.status} to cancelled with the cancel endpoint, which applies "
            "to pending and confirmed orders; change the status with a cancellation_reason instead.",
        )
    return _moved(order, "cancelled", now, optional_text("reason", reason, max_length=REASON_MAX))


def _moved(order: Order, to: str, now: datetime, reason: str | None) -> tuple[Order, list[DomainEvent]]:
    moved = attrs.evolve(order, status=to, updated_at=now)
    if to == "cancelled":
        moved = attrs.evolve(moved, cancelled_at=now, cancellation_reason=reason)
    events = [DomainEvent("order.updated", moved.event_payload(), now)]
    if to == "cancelled":
        events.append(DomainEvent("order.cancelled", moved.cancelled_payload(), now))
    elif to == "delivered":
        events.append(DomainEvent("order.delivered", moved.event_payload(), now))
    return moved, events


# -- items, prices and the duplicate window --------------------------------------------------------


def check_item_requests(items: Sequence[ItemRequest]) -> None:
    """The shape of an `items` array: 1 to `ITEMS_MAX` lines, positive ids, quantities from 1 to
    `QUANTITY_MAX`, each product once (give one line with the total quantity)."""
    if not items:
        raise ValidationFailed.on("items", "The items field is required: an order needs at least one item.")
    if len(items) > ITEMS_MAX:
        raise ValidationFailed.on("items", f"An order may have at most {ITEMS_MAX} items.")
    errors = ErrorCollector()
    seen: set[int] = set()
    for index, item in enumerate(items):
        path = f"items.{index}"
        if not _whole(item.product_id) or item.product_id < 1:
            errors.errors[f"{path}.product_id"] = ["The product id must be a positive whole number."]
        elif item.product_id in seen:
            errors.errors[f"{path}.product_id"] = [
                "The product is listed more than once; give one line with the total quantity."
            ]
        else:
            seen.add(item.product_id)
        if not _whole(item.quantity) or not 1 <= item.quantity <= QUANTITY_MAX:
            errors.errors[f"{path}.quantity"] = [f"The quantity must be a whole number from 1 to {QUANTITY_MAX}."]
    errors.raise_if_any()


def price_items(
    items: Sequence[ItemRequest], products: Mapping[int, Product], held: Mapping[int, int] | None = None
) -> PricedItems:
    """Price each line from its product and check that it can be ordered: the product exists, is
    available, has a price, is in the order's one currency, and (tracked stock) has enough on hand,
    counting `held` (what this order already holds, when its items are replaced). Every problem is
    reported on `items.<n>.product_id` or `items.<n>.quantity`. The stock check here reads a
    snapshot; `ProductRepository.take_stock` is what makes it race-free."""
    held = held or {}
    errors = ErrorCollector()
    lines: list[OrderItemDraft] = []
    currency: str | None = None
    for index, item in enumerate(items):
        path = f"items.{index}"
        product = products.get(item.product_id)
        if product is None:
            errors.errors[f"{path}.product_id"] = ["The selected product does not exist."]
            continue
        problem = _unorderable(product)
        if problem is None and currency is not None and product.currency != currency:
            problem = (
                f"{product.name} is priced in {product.currency}, but this order is in {currency}: "
                "an order has one currency."
            )
        if problem is not None:
            errors.errors[f"{path}.product_id"] = [problem]
            continue
        assert product.price is not None
        currency = currency or product.currency
        on_hand = product.stock_quantity
        if on_hand is not None and item.quantity > on_hand + held.get(product.id, 0):
            errors.errors[f"{path}.quantity"] = [insufficient_stock(product, on_hand + held.get(product.id, 0))]
            continue
        lines.append(OrderItemDraft(product.id, product.name, product.sku, item.quantity, product.price))
    errors.raise_if_any()
    assert currency is not None
    subtotal = sum((line.total_price for line in lines), Decimal("0.00"))
    if subtotal > TOTAL_MAX:
        raise ValidationFailed.on("items", f"The order total may not be greater than {TOTAL_MAX}.")
    return PricedItems(tuple(lines), currency, subtotal)


def insufficient_stock(product: Product, available: int) -> str:
    return f"Only {available} of {product.name} in stock."


def _unorderable(product: Product) -> str | None:
    if not product.is_available:
        return f"{product.name} is not available."
    if product.price is None:
        return f"{product.name} has no price and cannot be ordered."
    return None


def duplicate_key(contact_id: int | None, items: Sequence[ItemRequest]) -> str | None:
    """What makes two orders identical for the duplicate window: the contact and the quantity of
    each product, in any order. None without a contact (such orders are never duplicates).
    A SHA-256 hex digest (64 characters), so storage can index it whatever the number of items."""
    if contact_id is None:
        return None
    quantities: Counter[int] = Counter()
    for item in items:
        quantities[item.product_id] += item.quantity
    canonical = f"contact:{contact_id};" + ",".join(f"{pid}x{qty}" for pid, qty in sorted(quantities.items()))
    return hashlib.sha256(canonical.encode()).hexdigest()


def duplicate_since(now: datetime) -> datetime:
    """Orders created after this instant (strictly) are inside the duplicate window."""
    return now - DUPLICATE_WINDOW


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
