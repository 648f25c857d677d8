"""The AI agents' tables: the agents, and the automatic replies they sent. Which agent a contact is
assigned to is on the contact (`contacts.ai_agent_id`, `engage_sql.contacts.tables`)."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKey,
    Index,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

ai_agents = Table(
    "ai_agents",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("system_prompt", Text(), nullable=False),
    Column("instruction_prompt", Text()),
    Column("personality_prompt", Text()),
    Column("booking_agent_instructions", Text()),
    Column("memory_agent_instructions", Text()),
    Column("response_guidelines", JSON(), nullable=False),
    Column("is_active", Boolean(), nullable=False),
    Column("is_default", Boolean(), nullable=False),
    *timestamps(),
    # SPEC 3: the default agent is active (set-default activates it; deactivating it is refused).
    CheckConstraint("is_active OR NOT is_default", name="default_is_active"),
    # The target of `contacts (account_id, ai_agent_id)`.
    UniqueConstraint("account_id", "id"),
    # SPEC 3: at most one default agent per workspace, whatever runs at once.
    Index(
        "uq_ai_agents_default",
        "account_id",
        unique=True,
        sqlite_where=text("is_default"),
        postgresql_where=text("is_default"),
    ),
    # `GET /ai-agents`: most recently updated first.
    Index(None, "account_id", "updated_at", "id"),
    sqlite_autoincrement=True,
)


ai_replies = Table(
    "ai_replies",
    metadata,
    # What the AI answered to an inbound message (`engage_core.agents.replies`), stored with the
    # outbound message that answers it: at most one per inbound message, which makes the reply
    # job's retries send nothing twice. Deleted with the contact (and with either message).
    Column("id", Id, primary_key=True),
    account_id(),
    Column("contact_id", Id, nullable=False),
    Column("inbound_message_id", Id, ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
    Column("outbound_message_id", Id, ForeignKey("messages.id", ondelete="CASCADE"), nullable=False),
    Column("action", String(16), nullable=False),
    Column("citations", JSON(), nullable=False),  # chunk ids, in the order the reply cites them
    Column("confidence", Float(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    # The booking step: the slots offered (`engage_core.answering.booking.offer_document`), and
    # the booking made (no foreign key: a booking outlives nothing here but its contact).
    Column("offer", JSON()),
    Column("booking_id", Id),
    CheckConstraint("action IN ('continue', 'handoff', 'resolve')", name="action"),
    owned_by_account("contact_id", "contacts"),
    UniqueConstraint("inbound_message_id"),
    # Deleting an outbound message (with its contact) finds its reply without a scan.
    Index(None, "outbound_message_id"),
    # The usage report's `ai_agent_sessions`: one account's replies of a period, by contact.
    Index(None, "account_id", "created_at", "contact_id"),
    # The booking step: a contact's latest reply.
    Index(None, "account_id", "contact_id", "id"),
    sqlite_autoincrement=True,
)


contact_memories = Table(
    "contact_memories",
    metadata,
    # Short facts the AI agent keeps about a contact (`engage_core.agents.memories`): each once per
    # contact (the services compare without case first; the constraint refuses a racing exact
    # duplicate). Deleted with the contact; the source message may go first (SET NULL).
    Column("id", Id, primary_key=True),
    account_id(),
    Column("contact_id", Id, nullable=False),
    Column("fact", String(280), nullable=False),
    Column("source_message_id", Id, ForeignKey("messages.id", ondelete="SET NULL")),
    Column("created_at", UTCDateTime(), nullable=False),
    owned_by_account("contact_id", "contacts"),
    # A contact's facts, oldest first; and each fact once.
    Index(None, "account_id", "contact_id", "created_at", "id"),
    UniqueConstraint("account_id", "contact_id", "fact"),
    Index(None, "source_message_id"),
    sqlite_autoincrement=True,
)
