"""The AI agents' table. Which agent a contact is assigned to is on the contact
(`contacts.ai_agent_id`, `engage_sql.contacts.tables`)."""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, CheckConstraint, Column, Index, String, Table, Text, UniqueConstraint, text

from engage_sql.schema import account_id, metadata, timestamps
from engage_sql.types import Id

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
