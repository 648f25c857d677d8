"""The campaigns' tables: campaigns, their recipients, and the send counts the quotas read."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    Date,
    ForeignKey,
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

campaigns = Table(
    "campaigns",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("channel", String(16), nullable=False),
    Column("message", Text(), nullable=False),
    Column("audience", JSON(), nullable=False),  # Audience.to_json()
    Column("starts_at", UTCDateTime()),
    Column("send_rate", Integer(), nullable=False),
    Column("status", String(16), nullable=False),
    # The counters (`engage_core.campaigns.model.Counters`), changed by increments in the
    # transaction of the recipient moves they count.
    Column("total", Integer(), nullable=False),
    Column("sent", Integer(), nullable=False),
    Column("delivered", Integer(), nullable=False),
    Column("read", Integer(), nullable=False),
    Column("failed", Integer(), nullable=False),
    Column("skipped", Integer(), nullable=False),
    Column("error", String(1000)),
    Column("started_at", UTCDateTime()),
    Column("completed_at", UTCDateTime()),
    *timestamps(),
    CheckConstraint(
        "status IN ('draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled', 'failed')", name="status"
    ),
    CheckConstraint("channel IN ('whatsapp', 'telegram', 'instagram', 'linkedin')", name="channel"),
    UniqueConstraint("account_id", "id"),
    # `GET /campaigns`: newest first.
    Index(None, "account_id", "created_at", "id"),
    # The channel guard: a running or paused campaign on a channel.
    Index(None, "account_id", "channel", "status"),
    sqlite_autoincrement=True,
)


campaign_recipients = Table(
    "campaign_recipients",
    metadata,
    # A campaign's snapshot: each contact once. No foreign key to the contact: a contact deleted
    # after the start stays a recipient (skipped `contact_deleted` if it was pending), so the
    # counters keep adding up to the total.
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("campaign_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("status", String(16), nullable=False),
    Column("reason", String(32)),
    Column("error", String(1000)),
    Column("message_id", Id),
    Column("attempts", Integer(), nullable=False),
    Column("sent_at", UTCDateTime()),
    Column("updated_at", UTCDateTime(), nullable=False),
    # Written just before the gateway gets the message: a `sending` row without it is a claim
    # that certainly did not go (see engage_core.campaigns.model).
    Column("handed_at", UTCDateTime()),
    CheckConstraint(
        "status IN ('pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped')", name="status"
    ),
    owned_by_account("campaign_id", "campaigns"),
    UniqueConstraint("campaign_id", "contact_id"),
    # The sender's next pending recipient, the counts by status, and a status filter, in snapshot order.
    Index(None, "campaign_id", "status", "id"),
    # A receipt finds its recipient by the message.
    Index(None, "account_id", "message_id"),
    sqlite_autoincrement=True,
)


campaign_send_counts = Table(
    "campaign_send_counts",
    metadata,
    # Campaign messages handed to the gateway per channel and UTC day: what the quotas count.
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("channel", String(16), nullable=False),
    Column("day", Date(), nullable=False),
    Column("sent", Integer(), nullable=False),
    PrimaryKeyConstraint("account_id", "channel", "day"),
)
