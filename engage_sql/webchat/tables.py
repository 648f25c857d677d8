"""Web chat's tables: sessions, their message logs, and each workspace's widget."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, owned_by_account
from engage_sql.types import Id, UTCDateTime

web_chat_sessions = Table(
    "web_chat_sessions",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("session_id", String(64), nullable=False),  # public, random
    Column("token_hash", String(64), nullable=False),  # SHA-256 of the visitor's token
    Column("status", String(16), nullable=False),
    Column("handled_by", String(16), nullable=False),
    Column("visitor_name", String(255)),
    Column("visitor_email", String(255)),
    Column("visitor_phone", String(32)),
    Column("visitor_ip", String(64)),
    Column("visitor_page_url", Text()),
    Column("visitor_referrer", Text()),
    Column("has_visitor_messages", Boolean(), nullable=False),
    Column("human_requested_at", UTCDateTime()),
    Column("human_took_over_at", UTCDateTime()),
    Column("ended_at", UTCDateTime()),
    Column("last_seq", Integer(), nullable=False),
    Column("last_activity_at", UTCDateTime(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    CheckConstraint("status IN ('active', 'ended')", name="status"),
    CheckConstraint("handled_by IN ('ai', 'human', 'pending')", name="handled_by"),
    UniqueConstraint("session_id"),
    UniqueConstraint("token_hash"),
    UniqueConstraint("account_id", "id"),
    # The list, most recently active first, unfiltered and by each filter; analytics by creation.
    Index(None, "account_id", "last_activity_at", "id"),
    Index(None, "account_id", "status", "last_activity_at", "id"),
    Index(None, "account_id", "handled_by", "last_activity_at", "id"),
    Index(None, "account_id", "created_at"),
    sqlite_autoincrement=True,
)

web_chat_messages = Table(
    "web_chat_messages",
    metadata,
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("session_id", Id, nullable=False),  # the session's `id`
    Column("seq", Integer(), nullable=False),
    Column("sender_type", String(16), nullable=False),
    Column("message_text", Text(), nullable=False),
    Column("message_type", String(16), nullable=False),
    Column("media_url", Text()),
    Column("is_read", Boolean(), nullable=False),
    Column("reply_to", Id),  # a bot message's visitor message: at most one answer each
    Column("created_at", UTCDateTime(), nullable=False),
    CheckConstraint("sender_type IN ('visitor', 'bot', 'agent', 'system')", name="sender_type"),
    owned_by_account("session_id", "web_chat_sessions"),
    UniqueConstraint("session_id", "seq"),  # the log's order, and what a reconnecting client resumes from
    UniqueConstraint("reply_to"),
    sqlite_autoincrement=True,
)

web_chat_widgets = Table(
    "web_chat_widgets",
    metadata,
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("widget_key", String(64), nullable=False),  # public: it sits in the pages' script tag
    Column("allowed_origins", JSON(), nullable=False),
    Column("color", String(7), nullable=False),
    Column("greeting", Text(), nullable=False),
    Column("language", String(8), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    UniqueConstraint("widget_key"),
)
