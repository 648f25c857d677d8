"""Commerce's tables: products, orders and their items."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    Index,
    Integer,
    Numeric,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

products = Table(
    "products",
    metadata,
    # The products of `product_catalog` entries, deleted with their entry. Prices are exact
    # decimals (`engage_core.kernel.money`): on SQLite a NUMERIC column keeps them as 8-byte floats, exact
    # for the 15 significant digits the money bounds allow, and read back quantized to two places.
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("knowledge_base_id", Id, nullable=False),
    Column("name", String(255), nullable=False),
    # Casefolded copies for `search` and the `category` filter (`str.casefold` on both engines).
    Column("name_key", Text(), nullable=False),
    Column("description", Text()),
    Column("sku", String(100)),
    Column("sku_key", Text()),
    Column("category", String(255)),
    Column("category_key", Text()),
    Column("price", Numeric(12, 2)),
    Column("currency", String(3), nullable=False),
    Column("stock_quantity", Integer()),  # NULL: stock not tracked
    Column("image_url", String(2048)),
    Column("is_available", Boolean(), nullable=False),
    Column("product_attributes", JSON(), nullable=False),
    Column("media_file_ids", JSON(), nullable=False),
    *timestamps(),
    # Tracked stock never goes below zero, whatever a statement tries (`take_stock` checks it too).
    CheckConstraint("stock_quantity IS NULL OR stock_quantity >= 0", name="stock_quantity"),
    CheckConstraint("price IS NULL OR price >= 0", name="price"),
    UniqueConstraint("account_id", "id"),
    owned_by_account("knowledge_base_id", "knowledge_base_entries"),
    # A catalog's products, ascending id (and the cascade from its entry).
    Index(None, "account_id", "knowledge_base_id", "id"),
    # `GET /products?category=`: WHERE account_id = ? AND category_key = ? ORDER BY id.
    Index(None, "account_id", "category_key", "id"),
    sqlite_autoincrement=True,
)


orders = Table(
    "orders",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    # No foreign key: like an item's `product_id`, the contact id stays on the order as history
    # when the contact is deleted (the service checks it belongs to the account when it is set).
    Column("contact_id", Id),
    Column("customer_name", String(255), nullable=False),
    Column("customer_phone", String(32)),
    Column("customer_email", String(255)),
    Column("status", String(16), nullable=False),
    Column("subtotal", Numeric(15, 2), nullable=False),
    Column("total", Numeric(15, 2), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("shipping_address", String(1000)),
    Column("notes", Text()),
    Column("created_by", String(16), nullable=False),
    Column("external_reference", String(255)),  # the store's id of a store-sourced order
    Column("duplicate_key", String(64)),  # engage_core.commerce.orders.duplicate_key(): SHA-256 hex
    Column("cancelled_at", UTCDateTime()),
    Column("cancellation_reason", String(1000)),
    *timestamps(),
    CheckConstraint(
        "status IN ('pending', 'confirmed', 'processing', 'shipped', 'delivered', 'cancelled')", name="status"
    ),
    CheckConstraint("created_by IN ('manual', 'ai_agent', 'api', 'web_chat', 'store_platform')", name="created_by"),
    UniqueConstraint("account_id", "id"),
    # One order per store order, however many imports race (NULLs, local orders, never collide).
    UniqueConstraint("account_id", "external_reference"),
    # `GET /orders`, newest first, unfiltered or by date range (created_at), and by each filter.
    Index(None, "account_id", "created_at", "id"),
    Index(None, "account_id", "status", "created_at", "id"),
    Index(None, "account_id", "contact_id", "created_at", "id"),
    Index(None, "account_id", "created_by", "created_at", "id"),
    # The duplicate window: WHERE account_id = ? AND duplicate_key = ? AND created_at > ?.
    Index(None, "account_id", "duplicate_key", "created_at"),
    sqlite_autoincrement=True,
)


order_items = Table(
    "order_items",
    metadata,
    # A line as it was placed: name, SKU and price are copies. `product_id` has no foreign key:
    # it stays when the product is deleted (and is NULL on store lines of unknown products).
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("order_id", Id, nullable=False),
    Column("product_id", Id),
    Column("product_name", String(255), nullable=False),
    Column("product_sku", String(100)),
    Column("quantity", Integer(), nullable=False),
    Column("unit_price", Numeric(12, 2), nullable=False),
    Column("total_price", Numeric(15, 2), nullable=False),
    CheckConstraint("quantity >= 1", name="quantity"),
    owned_by_account("order_id", "orders"),
    # An order's lines in the order they were given (ids ascend).
    Index(None, "order_id", "id"),
    sqlite_autoincrement=True,
)
