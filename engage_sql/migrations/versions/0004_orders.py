"""Knowledge-base entries, products, orders and order items.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types instead of importing the application's (which will change).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def _timestamps() -> list[sa.Column[object]]:
    return [sa.Column("created_at", _moment(), nullable=False), sa.Column("updated_at", _moment(), nullable=False)]


def _owned_fk(table: str, column: str, parent: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["account_id", column],
        [f"{parent}.account_id", f"{parent}.id"],
        name=op.f(f"fk_{table}_account_id_{column}"),
        ondelete="CASCADE",
    )


def _index(table: str, *columns: str) -> None:
    op.create_index(op.f(f"ix_{table}_{'_'.join(columns)}"), table, list(columns), unique=False)


def upgrade() -> None:
    op.create_table(
        "knowledge_base_entries",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("title", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=1000), nullable=True),
        sa.Column("business_description", sa.String(length=5000), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=True),
        sa.Column("embedding_updated_at", _moment(), nullable=True),
        *_timestamps(),
        sa.CheckConstraint(
            "type IN ('text', 'document', 'voice', 'product_catalog', 'website')",
            name=op.f("ck_knowledge_base_entries_type"),
        ),
        sa.CheckConstraint("status IN ('active', 'inactive')", name=op.f("ck_knowledge_base_entries_status")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_knowledge_base_entries_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_base_entries")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_knowledge_base_entries_account_id_id")),
        sqlite_autoincrement=True,
    )
    _index("knowledge_base_entries", "account_id", "type", "status")
    op.create_table(
        "products",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("knowledge_base_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("sku", sa.String(length=100), nullable=True),
        sa.Column("sku_key", sa.Text(), nullable=True),
        sa.Column("category", sa.String(length=255), nullable=True),
        sa.Column("category_key", sa.Text(), nullable=True),
        sa.Column("price", sa.Numeric(precision=12, scale=2), nullable=True),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("stock_quantity", sa.Integer(), nullable=True),
        sa.Column("image_url", sa.String(length=2048), nullable=True),
        sa.Column("is_available", sa.Boolean(), nullable=False),
        sa.Column("product_attributes", sa.JSON(), nullable=False),
        sa.Column("media_file_ids", sa.JSON(), nullable=False),
        *_timestamps(),
        sa.CheckConstraint("stock_quantity IS NULL OR stock_quantity >= 0", name=op.f("ck_products_stock_quantity")),
        sa.CheckConstraint("price IS NULL OR price >= 0", name=op.f("ck_products_price")),
        _owned_fk("products", "knowledge_base_id", "knowledge_base_entries"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_products")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_products_account_id_id")),
        sqlite_autoincrement=True,
    )
    _index("products", "account_id", "knowledge_base_id", "id")
    _index("products", "account_id", "category_key", "id")
    op.create_table(
        "orders",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=True),
        sa.Column("customer_name", sa.String(length=255), nullable=False),
        sa.Column("customer_phone", sa.String(length=32), nullable=True),
        sa.Column("customer_email", sa.String(length=255), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("subtotal", sa.Numeric(precision=15, scale=2), nullable=False),
        sa.Column("total", sa.Numeric(precision=15, scale=2), nullable=False),
        sa.Column("currency", sa.String(length=3), nullable=False),
        sa.Column("shipping_address", sa.String(length=1000), nullable=True),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("created_by", sa.String(length=16), nullable=False),
        sa.Column("external_reference", sa.String(length=255), nullable=True),
        sa.Column("duplicate_key", sa.String(length=64), nullable=True),
        sa.Column("cancelled_at", _moment(), nullable=True),
        sa.Column("cancellation_reason", sa.String(length=1000), nullable=True),
        *_timestamps(),
        sa.CheckConstraint(
            "status IN ('pending', 'confirmed', 'processing', 'shipped', 'delivered', 'cancelled')",
            name=op.f("ck_orders_status"),
        ),
        sa.CheckConstraint(
            "created_by IN ('manual', 'ai_agent', 'api', 'web_chat', 'store_platform')",
            name=op.f("ck_orders_created_by"),
        ),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_orders_account_id"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_orders")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_orders_account_id_id")),
        sa.UniqueConstraint("account_id", "external_reference", name=op.f("uq_orders_account_id_external_reference")),
        sqlite_autoincrement=True,
    )
    _index("orders", "account_id", "created_at", "id")
    _index("orders", "account_id", "status", "created_at", "id")
    _index("orders", "account_id", "contact_id", "created_at", "id")
    _index("orders", "account_id", "created_by", "created_at", "id")
    _index("orders", "account_id", "duplicate_key", "created_at")
    op.create_table(
        "order_items",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("order_id", _id(), nullable=False),
        sa.Column("product_id", _id(), nullable=True),
        sa.Column("product_name", sa.String(length=255), nullable=False),
        sa.Column("product_sku", sa.String(length=100), nullable=True),
        sa.Column("quantity", sa.Integer(), nullable=False),
        sa.Column("unit_price", sa.Numeric(precision=12, scale=2), nullable=False),
        sa.Column("total_price", sa.Numeric(precision=15, scale=2), nullable=False),
        sa.CheckConstraint("quantity >= 1", name=op.f("ck_order_items_quantity")),
        _owned_fk("order_items", "order_id", "orders"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_order_items")),
        sqlite_autoincrement=True,
    )
    _index("order_items", "order_id", "id")


def downgrade() -> None:
    # Children before parents; dropping a table drops its indexes.
    for table in ("order_items", "orders", "products", "knowledge_base_entries"):
        op.drop_table(table)
