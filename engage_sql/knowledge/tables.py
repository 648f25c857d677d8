"""The knowledge base's tables."""

from __future__ import annotations

from sqlalchemy import (
    CheckConstraint,
    Column,
    Index,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, timestamps
from engage_sql.types import Id, UTCDateTime

knowledge_base_entries = Table(
    "knowledge_base_entries",
    metadata,
    # What every entry type shares (SPEC 2, Knowledge base entry). A type's parts live in tables of
    # their own that point back here (`products` for `product_catalog`); `content` is the text of a
    # `text` entry, the one part small enough to sit on the entry itself.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("type", String(32), nullable=False),
    Column("title", String(255), nullable=False),
    Column("description", String(1000)),
    Column("business_description", String(5000)),
    Column("status", String(16), nullable=False),
    Column("content", Text()),
    Column("embedding_updated_at", UTCDateTime()),
    *timestamps(),
    CheckConstraint("type IN ('text', 'document', 'voice', 'product_catalog', 'website')", name="type"),
    CheckConstraint("status IN ('active', 'inactive')", name="status"),
    UniqueConstraint("account_id", "id"),
    # `GET /knowledge-base`: WHERE account_id = ? [AND type = ?] [AND status = ?].
    Index(None, "account_id", "type", "status"),
    sqlite_autoincrement=True,
)
