"""The contacts area's tables: contacts, tags, lists, segments and notes."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    ForeignKeyConstraint,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

contacts = Table(
    "contacts",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    # Casefolded copies of the searchable text: `search` and segment `contains` follow Python's
    # `str.casefold` exactly on both engines (SQLite's LIKE and lower() only fold ASCII).
    Column("name_key", Text(), nullable=False),
    Column("email", String(255)),
    Column("email_key", Text()),
    Column("phone", String(32)),
    Column("type", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("blacklisted", Boolean(), nullable=False),
    Column("source", String(50), nullable=False),
    Column("company", String(255)),
    Column("address", String(1000)),
    Column("country_id", Integer()),
    Column("last_message_at", UTCDateTime()),
    *timestamps(),
    # The AI agent assigned to the contact, NULL for none, in the contact's own account. The key takes
    # no action: a composite key's SET NULL would null `account_id` too, so deleting an agent first
    # clears the column on its contacts (`SqlAiAgentRepository.delete`), and the key refuses any
    # delete that did not.
    Column("ai_agent_id", Id),
    # One contact per phone and channel type, so an inbound message finds exactly one contact.
    UniqueConstraint("account_id", "type", "phone"),
    UniqueConstraint("account_id", "id"),
    ForeignKeyConstraint(["account_id", "ai_agent_id"], ["ai_agents.account_id", "ai_agents.id"]),
    # Unassigning a deleted agent (and the key's checks).
    Index(None, "account_id", "ai_agent_id"),
    # `GET /contacts`: WHERE account_id = ? ORDER BY created_at DESC, id DESC (scanned backwards).
    Index(None, "account_id", "created_at", "id"),
    sqlite_autoincrement=True,
)


tags = Table(
    "tags",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("title", String(100), nullable=False),
    Column("title_key", Text(), nullable=False),  # engage_core.contacts.tags.title_key(title)
    *timestamps(),
    UniqueConstraint("account_id", "title_key"),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)


contact_tags = Table(
    "contact_tags",
    metadata,
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("tag_id", Id, nullable=False),
    PrimaryKeyConstraint("contact_id", "tag_id"),
    owned_by_account("contact_id", "contacts"),
    owned_by_account("tag_id", "tags"),
    Index(None, "tag_id"),
)


contact_lists = Table(
    "contact_lists",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("status", Integer(), nullable=False),  # 1 active, 0 inactive (SPEC 2)
    *timestamps(),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)


list_members = Table(
    "list_members",
    metadata,
    # A surrogate key records insertion order: `added_at` ties whenever two contacts are added
    # in the same microsecond (or under a clock that stands still).
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("list_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("added_at", UTCDateTime(), nullable=False),
    UniqueConstraint("list_id", "contact_id"),
    owned_by_account("list_id", "contact_lists"),
    owned_by_account("contact_id", "contacts"),
    Index(None, "list_id", "id"),
    Index(None, "contact_id"),
    sqlite_autoincrement=True,
)


segments = Table(
    "segments",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("description", String(1000)),
    Column("match", String(8), nullable=False),  # all | any
    Column("conditions", JSON(), nullable=False),  # [Condition.to_json(), ...]
    *timestamps(),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)


segment_overrides = Table(
    "segment_overrides",
    metadata,
    Column("account_id", Id, nullable=False),
    Column("segment_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("included", Boolean(), nullable=False),  # True: added by hand; False: removed by hand
    PrimaryKeyConstraint("segment_id", "contact_id"),
    owned_by_account("segment_id", "segments"),
    owned_by_account("contact_id", "contacts"),
    Index(None, "contact_id"),
)


contact_notes = Table(
    "contact_notes",
    metadata,
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("content", Text(), nullable=False),
    *timestamps(),
    owned_by_account("contact_id", "contacts"),
    Index(None, "account_id", "contact_id", "created_at"),
    sqlite_autoincrement=True,
)
