"""Order rules, free of storage: the SPEC 3 moves, their events and payloads, pricing, the
duplicate key and the list filter."""

from __future__ import annotations

import itertools
import json
from datetime import date, timedelta
from decimal import Decimal

import pytest

from engage_core.commerce.orders import (
    ITEMS_MAX,
    QUANTITY_MAX,
    ItemRequest,
    OrderFilter,
    cancel,
    check_item_requests,
    duplicate_key,
    price_items,
    transition,
)
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.money import TOTAL_MAX

from ..factories import START, order_entity, product_entity

STATUSES = ("pending", "confirmed", "processing", "shipped", "delivered", "cancelled")
MOVES = {
    ("pending", "confirmed"),
    ("pending", "cancelled"),
    ("confirmed", "processing"),
    ("confirmed", "cancelled"),
    ("processing", "shipped"),
    ("processing", "cancelled"),
    ("shipped", "delivered"),
}
"""SPEC 3, Order, written out here rather than imported, so the test checks the code against the spec."""
NOT_MOVES = [(a, b) for a, b in itertools.product(STATUSES, STATUSES) if (a, b) not in MOVES]

ORDER_FIELDS = {
    "id", "contact_id", "customer_name", "customer_phone", "customer_email", "status", "subtotal", "total",
    "currency", "shipping_address", "notes", "created_by", "items", "created_at", "updated_at",
    "cancelled_at", "cancellation_reason",
}  # fmt: skip
"""order.created / updated / delivered data: the SPEC 2 order fields plus cancelled_at, cancellation_reason."""
CANCELLED_FIELDS = {
    "id", "status", "customer_name", "customer_phone", "total", "currency", "cancelled_at", "cancellation_reason",
    "items", "created_at", "updated_at",
}  # fmt: skip
ITEM_FIELDS = {"id", "product_id", "product_name", "product_sku", "quantity", "unit_price", "total_price"}
LATER = START + timedelta(hours=1)


def errors_of(call: object) -> dict[str, list[str]]:
    assert callable(call)
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


# -- moves -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("current", "to"), sorted(MOVES))
def test_every_spec_move_is_allowed(current: str, to: str) -> None:
    """Each move of the SPEC 3 table takes the order to its target state."""
    moved, _ = transition(order_entity(status=current), to, LATER, "Customer asked")
    assert (moved.status, moved.updated_at) == (to, LATER)


@pytest.mark.parametrize(("current", "to"), NOT_MOVES)
def test_every_other_move_is_refused_naming_both_states(current: str, to: str) -> None:
    """Any pair outside the table is a 422 on status whose message names both states."""
    with pytest.raises(ValidationFailed) as caught:
        transition(order_entity(status=current), to, LATER, "Customer asked")
    assert list(caught.value.errors) == ["status"]
    assert f"from {current} to {to}" in caught.value.message


@pytest.mark.parametrize("terminal", ["delivered", "cancelled"])
def test_terminal_states_say_they_are_final(terminal: str) -> None:
    """A move out of delivered or cancelled explains that the state is final."""
    with pytest.raises(ValidationFailed, match="is final"):
        transition(order_entity(status=terminal), "pending", LATER)


def test_an_unknown_status_is_refused() -> None:
    """A status outside SPEC 2's list is refused with the list."""
    assert "must be one of" in errors_of(lambda: transition(order_entity(), "lost", LATER))["status"][0]


@pytest.mark.parametrize("current", ["pending", "confirmed", "processing"])
@pytest.mark.parametrize("reason", [None, "", "   "])
def test_a_move_to_cancelled_needs_a_reason(current: str, reason: str | None) -> None:
    """PUT to cancelled without cancellation_reason is refused on that field."""
    errors = errors_of(lambda: transition(order_entity(status=current), "cancelled", LATER, reason))
    assert list(errors) == ["cancellation_reason"]


def test_a_cancellation_records_when_and_why() -> None:
    """cancelled_at is the time of the move; cancellation_reason is kept, trimmed."""
    moved, _ = transition(order_entity(), "cancelled", LATER, "  Out of budget ")
    assert (moved.cancelled_at, moved.cancellation_reason) == (LATER, "Out of budget")


@pytest.mark.parametrize(
    ("current", "to", "names"),
    [
        ("pending", "confirmed", ["order.updated"]),
        ("confirmed", "processing", ["order.updated"]),
        ("processing", "shipped", ["order.updated"]),
        ("shipped", "delivered", ["order.updated", "order.delivered"]),
        ("pending", "cancelled", ["order.updated", "order.cancelled"]),
        ("processing", "cancelled", ["order.updated", "order.cancelled"]),
    ],
)
def test_each_move_emits_its_events(current: str, to: str, names: list[str]) -> None:
    """order.updated on every move, then order.delivered or order.cancelled on those moves."""
    _, events = transition(order_entity(status=current), to, LATER, "Customer asked")
    assert [e.name for e in events] == names
    assert all(e.occurred_at == LATER and e.payload["status"] == to for e in events)


# -- the cancel endpoint ---------------------------------------------------------------------------


@pytest.mark.parametrize("current", ["pending", "confirmed"])
def test_the_cancel_endpoint_cancels_pending_and_confirmed(current: str) -> None:
    """POST cancel moves pending and confirmed orders to cancelled, emitting updated and cancelled."""
    moved, events = cancel(order_entity(status=current), LATER, "Duplicate")
    assert (moved.status, moved.cancellation_reason, moved.cancelled_at) == ("cancelled", "Duplicate", LATER)
    assert [e.name for e in events] == ["order.updated", "order.cancelled"]


def test_the_cancel_endpoint_reason_is_optional() -> None:
    """Without a reason the order is cancelled with cancellation_reason null."""
    moved, _ = cancel(order_entity(), LATER)
    assert (moved.status, moved.cancellation_reason) == ("cancelled", None)


@pytest.mark.parametrize("current", ["processing", "shipped", "delivered", "cancelled"])
def test_the_cancel_endpoint_refuses_other_states_naming_both(current: str) -> None:
    """Processing, shipped and terminal orders cannot be cancelled there; the message names both states."""
    with pytest.raises(ValidationFailed) as caught:
        cancel(order_entity(status=current), LATER, "Too late")
    assert list(caught.value.errors) == ["status"]
    assert f"from {current} to cancelled" in caught.value.message


# -- payloads --------------------------------------------------------------------------------------


def test_the_order_payload_has_exactly_the_spec_fields() -> None:
    """order.created/updated/delivered data: SPEC 2 order fields plus cancelled_at, cancellation_reason."""
    assert set(order_entity().event_payload()) == ORDER_FIELDS


def test_the_cancelled_payload_has_exactly_its_spec_fields() -> None:
    """order.cancelled data is SPEC 6's shorter list."""
    assert set(order_entity(status="cancelled").cancelled_payload()) == CANCELLED_FIELDS


def test_payload_items_have_the_order_item_fields() -> None:
    """Each item carries the SPEC 2 order item fields."""
    assert [set(item) for item in order_entity().event_payload()["items"]] == [ITEM_FIELDS]


def test_payload_amounts_are_json_numbers_with_exact_text() -> None:
    """Money goes out as JSON numbers that read back as the exact decimal."""
    order = order_entity(subtotal=Decimal("1234567.89"), total=Decimal("1234567.89"))
    text = json.dumps(order.event_payload())
    assert '"total": 1234567.89' in text
    assert json.loads(text, parse_float=Decimal)["items"][0]["unit_price"] == Decimal("3.50")


def test_payload_timestamps_are_iso_utc() -> None:
    """cancelled_at is null until cancelled, then ISO 8601 with Z like created_at."""
    moved, _ = cancel(order_entity(), LATER)
    assert order_entity().event_payload()["cancelled_at"] is None
    assert moved.event_payload()["cancelled_at"] == "2026-01-01T13:00:00.000000Z"


# -- items and pricing -----------------------------------------------------------------------------


def test_an_order_needs_items() -> None:
    """No items is refused on items."""
    assert list(errors_of(lambda: check_item_requests([]))) == ["items"]


def test_an_order_has_at_most_items_max_lines() -> None:
    """More than ITEMS_MAX lines is refused on items."""
    lines = [ItemRequest(i, 1) for i in range(1, ITEMS_MAX + 2)]
    assert list(errors_of(lambda: check_item_requests(lines))) == ["items"]


@pytest.mark.parametrize("quantity", [0, -1, QUANTITY_MAX + 1, True])
def test_a_quantity_is_a_whole_number_from_one(quantity: int) -> None:
    """Zero, negative, too large or boolean quantities are refused on the line."""
    assert list(errors_of(lambda: check_item_requests([ItemRequest(1, quantity)]))) == ["items.0.quantity"]


def test_a_product_may_appear_once() -> None:
    """A second line for the same product is refused on that line."""
    errors = errors_of(lambda: check_item_requests([ItemRequest(1, 1), ItemRequest(2, 1), ItemRequest(1, 2)]))
    assert list(errors) == ["items.2.product_id"]


def test_lines_are_priced_exactly() -> None:
    """0.10 x 3 is 0.30 and 0.20 x 1 is 0.20: the subtotal is exactly 0.50."""
    products = {1: product_entity(id=1, price=Decimal("0.10")), 2: product_entity(id=2, price=Decimal("0.20"))}
    priced = price_items([ItemRequest(1, 3), ItemRequest(2, 1)], products)
    assert [line.total_price for line in priced.items] == [Decimal("0.30"), Decimal("0.20")]
    assert (priced.subtotal, priced.currency) == (Decimal("0.50"), "USD")


def test_lines_snapshot_the_product() -> None:
    """Each line copies the product's name, SKU and price."""
    [line] = price_items([ItemRequest(1, 2)], {1: product_entity()}).items
    assert (line.product_id, line.product_name, line.product_sku, line.unit_price) == (
        1,
        "Tea",
        "TEA-1",
        Decimal("3.50"),
    )


def test_unknown_products_are_refused_on_their_line() -> None:
    """A product id that does not exist is refused on items.<n>.product_id."""
    errors = errors_of(lambda: price_items([ItemRequest(1, 1), ItemRequest(9, 1)], {1: product_entity()}))
    assert list(errors) == ["items.1.product_id"]


def test_unavailable_products_cannot_be_ordered() -> None:
    """is_available false is refused on the line."""
    errors = errors_of(lambda: price_items([ItemRequest(1, 1)], {1: product_entity(is_available=False)}))
    assert "not available" in errors["items.0.product_id"][0]


def test_unpriced_products_cannot_be_ordered() -> None:
    """A product without a price is refused on the line."""
    errors = errors_of(lambda: price_items([ItemRequest(1, 1)], {1: product_entity(price=None)}))
    assert "no price" in errors["items.0.product_id"][0]


def test_an_order_has_one_currency() -> None:
    """A EUR product in a USD order is refused on its line, naming both currencies."""
    products = {1: product_entity(id=1), 2: product_entity(id=2, currency="EUR")}
    errors = errors_of(lambda: price_items([ItemRequest(1, 1), ItemRequest(2, 1)], products))
    assert list(errors) == ["items.1.product_id"]
    assert "EUR" in errors["items.1.product_id"][0] and "USD" in errors["items.1.product_id"][0]


def test_the_currency_is_the_products() -> None:
    """An order of SAR products is in SAR."""
    assert price_items([ItemRequest(1, 1)], {1: product_entity(currency="SAR")}).currency == "SAR"


def test_too_little_stock_is_refused_on_the_quantity() -> None:
    """Three of a product with two on hand is refused on items.<n>.quantity, saying how many are left."""
    errors = errors_of(lambda: price_items([ItemRequest(1, 3)], {1: product_entity(stock_quantity=2)}))
    assert errors == {"items.0.quantity": ["Only 2 of Tea in stock."]}


def test_stock_this_order_holds_counts_as_available() -> None:
    """Replacing 2 held units by 3 needs only one more on hand."""
    priced = price_items([ItemRequest(1, 3)], {1: product_entity(stock_quantity=1)}, held={1: 2})
    assert priced.items[0].quantity == 3


def test_untracked_stock_is_never_short() -> None:
    """A product whose stock is not tracked can be ordered in any quantity."""
    assert price_items([ItemRequest(1, QUANTITY_MAX)], {1: product_entity(stock_quantity=None)}).items


def test_the_order_total_has_a_ceiling() -> None:
    """A subtotal above TOTAL_MAX is refused on items."""
    products = {i: product_entity(id=i, price=Decimal("999999999.99"), stock_quantity=None) for i in range(1, 3)}
    lines = [ItemRequest(1, QUANTITY_MAX), ItemRequest(2, QUANTITY_MAX)]
    assert Decimal("999999999.99") * QUANTITY_MAX * 2 > TOTAL_MAX
    assert list(errors_of(lambda: price_items(lines, products))) == ["items"]


# -- the duplicate key -----------------------------------------------------------------------------


def test_the_duplicate_key_ignores_line_order() -> None:
    """The same products and quantities in another order give the same key."""
    assert duplicate_key(5, [ItemRequest(1, 2), ItemRequest(3, 1)]) == duplicate_key(
        5, [ItemRequest(3, 1), ItemRequest(1, 2)]
    )


@pytest.mark.parametrize(
    ("contact", "lines"),
    [
        (6, [ItemRequest(1, 2)]),
        (5, [ItemRequest(1, 3)]),
        (5, [ItemRequest(2, 2)]),
        (5, [ItemRequest(1, 2), ItemRequest(2, 1)]),
    ],
)
def test_the_duplicate_key_tells_orders_apart(contact: int, lines: list[ItemRequest]) -> None:
    """Another contact, quantity, product, or an extra line gives another key."""
    assert duplicate_key(contact, lines) != duplicate_key(5, [ItemRequest(1, 2)])


def test_orders_without_a_contact_have_no_duplicate_key() -> None:
    """No contact, no identity to compare: never a duplicate."""
    assert duplicate_key(None, [ItemRequest(1, 1)]) is None


def test_the_duplicate_key_is_fixed_length() -> None:
    """A SHA-256 hex digest, whatever the number of lines."""
    key = duplicate_key(5, [ItemRequest(i, 1) for i in range(1, ITEMS_MAX + 1)])
    assert key is not None and len(key) == 64


# -- the list filter -------------------------------------------------------------------------------


def test_date_filters_include_both_days() -> None:
    """date_from and date_to are inclusive calendar days of created_at (UTC)."""
    order = order_entity(created_at=START)
    day = START.date()
    assert OrderFilter(date_from=day, date_to=day).matches(order)
    assert not OrderFilter(date_from=date(2026, 1, 2)).matches(order)
    assert not OrderFilter(date_to=date(2025, 12, 31)).matches(order)


def test_filters_combine() -> None:
    """status, contact_id and created_by must all match."""
    order = order_entity(status="confirmed", contact_id=5, created_by="ai_agent")
    assert OrderFilter(status="confirmed", contact_id=5, created_by="ai_agent").matches(order)
    assert not OrderFilter(status="confirmed", contact_id=5, created_by="api").matches(order)
