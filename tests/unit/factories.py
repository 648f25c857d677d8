"""Plain value factories for the pure rule tests (no storage, no services)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from engage_core.commerce.orders import Order, OrderItem
from engage_core.commerce.products import Product
from engage_core.contacts.model import Contact

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""Where every FakeClock of the unit tests starts."""


def contact_entity(**overrides: Any) -> Contact:
    """A Contact value with every field settable; defaults describe an ordinary whatsapp contact."""
    fields: dict[str, Any] = {
        "id": 1,
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "phone": "+966501234567",
        "type": "whatsapp",
        "status": "active",
        "blacklisted": False,
        "tags": (),
        "last_message_at": None,
        "created_at": START,
        "updated_at": START,
    }
    fields.update(overrides)
    return Contact(**fields)


def product_entity(**overrides: Any) -> Product:
    """A Product value; defaults describe an available, priced product with 10 on hand."""
    fields: dict[str, Any] = {
        "id": 1,
        "knowledge_base_id": 100,
        "name": "Tea",
        "description": None,
        "sku": "TEA-1",
        "category": "Drinks",
        "price": Decimal("3.50"),
        "currency": "USD",
        "stock_quantity": 10,
        "image_url": None,
        "is_available": True,
        "product_attributes": {},
        "media_file_ids": (),
        "created_at": START,
        "updated_at": START,
    }
    fields.update(overrides)
    return Product(**fields)


def item_entity(**overrides: Any) -> OrderItem:
    """An OrderItem value: two of product 1 at 3.50."""
    fields: dict[str, Any] = {
        "id": 11,
        "product_id": 1,
        "product_name": "Tea",
        "product_sku": "TEA-1",
        "quantity": 2,
        "unit_price": Decimal("3.50"),
        "total_price": Decimal("7.00"),
    }
    fields.update(overrides)
    return OrderItem(**fields)


def order_entity(**overrides: Any) -> Order:
    """An Order value; defaults describe a pending API order of one line."""
    fields: dict[str, Any] = {
        "id": 10,
        "contact_id": 5,
        "customer_name": "Ada Lovelace",
        "customer_phone": "+966501234567",
        "customer_email": "ada@example.com",
        "status": "pending",
        "subtotal": Decimal("7.00"),
        "total": Decimal("7.00"),
        "currency": "USD",
        "shipping_address": None,
        "notes": None,
        "created_by": "api",
        "items": (item_entity(),),
        "cancelled_at": None,
        "cancellation_reason": None,
        "created_at": START,
        "updated_at": START,
    }
    fields.update(overrides)
    return Order(**fields)
