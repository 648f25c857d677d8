"""The LinkedIn campaigns' tables: each campaign's plan, and the follow-up steps of sequences."""

from __future__ import annotations

from sqlalchemy import JSON, CheckConstraint, Column, Index, Integer, String, Table, UniqueConstraint

from engage_sql.schema import metadata, owned_by_account
from engage_sql.types import Id, UTCDateTime

linkedin_campaigns = Table(
    "linkedin_campaigns",
    metadata,
    # What `POST /linkedin/sourcing/launch-campaign` adds to its campaign; deleted with it.
    Column("campaign_id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("campaign_type", String(16), nullable=False),
    Column("invite_note", String(200)),
    Column("steps", JSON(), nullable=False),  # LinkedInPlan.steps_json()
    CheckConstraint("campaign_type IN ('invite', 'sequence')", name="campaign_type"),
    owned_by_account("campaign_id", "campaigns"),
)


linkedin_follow_ups = Table(
    "linkedin_follow_ups",
    metadata,
    # The later steps of a sequence, one row per recipient and step, added when the step before it
    # went; deleted with the campaign.
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("campaign_id", Id, nullable=False),
    Column("recipient_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("step", Integer(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", String(32)),
    Column("error", String(1000)),
    Column("message_id", Id),
    Column("due_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    CheckConstraint("status IN ('pending', 'sending', 'sent', 'failed', 'skipped')", name="status"),
    owned_by_account("campaign_id", "campaigns"),
    UniqueConstraint("recipient_id", "step"),
    # The sender's next due follow-up, and the counts by status.
    Index(None, "campaign_id", "status", "due_at", "id"),
    sqlite_autoincrement=True,
)
