"""The partners area's tables: partners, their clients, impersonation tokens, partner events."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
)

from engage_sql.schema import metadata, timestamps
from engage_sql.types import Id, UTCDateTime

partners = Table(
    "partners",
    metadata,
    Column("id", Id, primary_key=True),
    Column("company_name", String(255), nullable=False),
    Column("slug", String(60), nullable=False, unique=True),
    Column("email", String(255), nullable=False),
    Column("plan", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("client_seats_max", Integer(), nullable=False),
    Column("key_digest", String(64), nullable=False, unique=True),  # SHA-256 of the partner key
    Column("key_hint", String(16), nullable=False),
    # Advanced by every key rotation and suspension; impersonation links and sessions carry it.
    Column("key_generation", Integer(), nullable=False, server_default="1"),
    Column("logo_url", String(2048)),
    Column("primary_color", String(32)),
    Column("custom_domain", String(255)),
    *timestamps(),
    CheckConstraint("status IN ('active', 'suspended', 'pending')", name="status"),
    CheckConstraint("client_seats_max >= 0", name="client_seats_max"),
    sqlite_autoincrement=True,
)


partner_clients = Table(
    "partner_clients",
    metadata,
    # A partner's client: one per workspace, deleted with it. The plan in force is a pure function
    # of the row and the clock (`engage_core.plans.ScheduledPlan`).
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("partner_id", Id, ForeignKey("partners.id"), nullable=False),
    Column("company_name", String(255), nullable=False),
    Column("company_key", Text(), nullable=False),  # casefolded, for `search`
    Column("slug", String(60), nullable=False, unique=True),
    Column("status", String(16), nullable=False),
    Column("plan", String(32), ForeignKey("plans.slug"), nullable=False),
    Column("cycle_anchor", UTCDateTime(), nullable=False),
    Column("pending_plan", String(32), ForeignKey("plans.slug")),
    Column("pending_from", UTCDateTime()),
    Column("primary_user_id", Id),  # NULL while `pending_setup`
    Column("primary_first_name", String(100), nullable=False),
    Column("primary_last_name", String(100), nullable=False),
    Column("primary_email", String(255), nullable=False),
    Column("primary_email_key", String(255), nullable=False, unique=True),  # engage_core.partners.model.email_key
    Column("primary_phone", String(32)),
    Column("timezone", String(64), nullable=False),
    Column("country_id", Integer()),
    Column("suspended_at", UTCDateTime()),
    Column("suspension_reason", String(1000)),
    *timestamps(),
    CheckConstraint("status IN ('active', 'suspended', 'pending_setup')", name="status"),
    CheckConstraint("(pending_plan IS NULL) = (pending_from IS NULL)", name="pending"),
    # `GET /partner/clients`: WHERE partner_id = ? ORDER BY created_at DESC, account_id DESC.
    Index(None, "partner_id", "created_at", "account_id"),
)


impersonation_tokens = Table(
    "impersonation_tokens",
    metadata,
    # Single-use login links: only the SHA-256 of the token is kept. Redeeming is one UPDATE.
    Column("digest", String(64), primary_key=True),
    Column("partner_id", Id, ForeignKey("partners.id", ondelete="CASCADE"), nullable=False),
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("key_generation", Integer(), nullable=False, server_default="1"),  # the partner's, when minted
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("used_at", UTCDateTime()),
    Column("created_at", UTCDateTime(), nullable=False),
    Index(None, "account_id"),
    Index(None, "partner_id"),
)


partner_events = Table(
    "partner_events",
    metadata,
    # The partners' outbox (`partner.client.*`), written in the transaction of the change; the
    # deliveries go to `webhook_attempts` (kind `partner`) in the same transaction.
    Column("id", Id, primary_key=True),
    Column("partner_id", Id, ForeignKey("partners.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(100), nullable=False),
    Column("payload", JSON(), nullable=False),
    Column("occurred_at", UTCDateTime(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Index(None, "partner_id", "id"),
    sqlite_autoincrement=True,
)
