"""The webhooks area's tables: the outbox's events, subscriptions and the delivery log."""

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

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

events = Table(
    "events",
    metadata,
    # The transactional outbox: written by `commit()` in the transaction of the change itself.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(100), nullable=False),
    Column("payload", JSON(), nullable=False),
    Column("occurred_at", UTCDateTime(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Index(None, "account_id", "id"),
    sqlite_autoincrement=True,
)


webhooks = Table(
    "webhooks",
    metadata,
    # Subscriptions of one account, or of one partner (migration 0008): exactly one of `account_id`
    # and `partner_id` is set. Both kinds share the delivery log and the worker; a partner's
    # attempts are kind `partner` with no `account_id`. The signing secret is kept encrypted.
    Column("id", Id, primary_key=True),
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE")),
    Column("partner_id", Id, ForeignKey("partners.id", ondelete="CASCADE")),
    Column("name", String(255), nullable=False),
    Column("url", String(2048), nullable=False),
    Column("events", JSON(), nullable=False),  # event names; empty means every event
    Column("is_active", Boolean(), nullable=False),
    Column("secret_ciphertext", Text(), nullable=False),
    *timestamps(),
    CheckConstraint("(account_id IS NULL) <> (partner_id IS NULL)", name="owner"),
    UniqueConstraint("account_id", "id"),
    # A partner's subscriptions, oldest first; the outbox's look-up of them.
    Index(None, "partner_id", "id"),
    sqlite_autoincrement=True,
)


webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    # The delivery log, which is also the delivery queue: one row per attempt, written by the
    # outbox in the transaction of the change (attempt 1) and by the worker (the retries). A
    # delivery is the attempts sharing a `delivery_id`.
    #
    # `kind` and `owner_id` say whose subscription it is and so which envelope and signature to
    # use: ("workspace", account id) now, ("partner", partner id) once partner subscriptions
    # exist. Partner rows carry no `account_id`, so that kind needs no change to this table.
    Column("id", Id, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("owner_id", Id, nullable=False),
    Column("account_id", Id),
    Column("webhook_id", Id, ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    Column("delivery_id", String(36), nullable=False),  # a UUID, the same for every attempt
    Column("event_type", String(100), nullable=False),
    Column("payload", JSON(), nullable=False),
    Column("attempt_number", Integer(), nullable=False),
    Column("status", String(16), nullable=False),  # pending | delivered | failed
    Column("response_status_code", Integer()),
    Column("response_body", Text()),  # engage_core.webhooks.model.excerpt(): bounded
    Column("error", Text()),
    Column("due_at", UTCDateTime(), nullable=False),
    Column("leased_until", UTCDateTime()),  # the claim of a worker; free again once passed
    Column("lease_token", String(64)),  # proves a completion comes from the current claim
    Column("created_at", UTCDateTime(), nullable=False),
    Column("completed_at", UTCDateTime()),
    CheckConstraint(
        "(kind = 'workspace' AND account_id IS NOT NULL AND owner_id = account_id)"
        " OR (kind = 'partner' AND account_id IS NULL)",
        name="owner",
    ),
    CheckConstraint("status IN ('pending', 'delivered', 'failed')", name="status"),
    # A workspace attempt belongs to a subscription of its own account (NULLs are not checked).
    owned_by_account("webhook_id", "webhooks"),
    # The claim: WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id.
    Index(None, "status", "due_at", "id"),
    # The log: WHERE webhook_id = ? [AND status = ?] ORDER BY id DESC.
    Index(None, "webhook_id", "id"),
    Index(None, "webhook_id", "status", "id"),
    # One delivery's attempts (redelivery).
    Index(None, "webhook_id", "delivery_id"),
    sqlite_autoincrement=True,
)
