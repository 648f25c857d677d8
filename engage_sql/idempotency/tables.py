"""The idempotency keys' table: one row per key of one caller, with the response kept on it."""

from __future__ import annotations

from sqlalchemy import JSON, CheckConstraint, Column, Index, Integer, LargeBinary, String, Table

from engage_core.kernel.idempotency import KEY_MAX_LENGTH
from engage_sql.schema import metadata
from engage_sql.types import UTCDateTime

idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    # `scope` names the caller (`account:12`, `partner:3`): text, not a foreign key, so keys of
    # both kinds of caller share the table, and a row outlives nothing it does not need to (every
    # row is deleted at most a day after it is written, `expires_at`).
    Column("scope", String(64), primary_key=True),
    Column("key", String(KEY_MAX_LENGTH), primary_key=True),
    Column("fingerprint", String(64), nullable=False),  # SHA-256 of the request, hex
    Column("state", String(16), nullable=False),  # in_progress | completed
    Column("lease_token", String(32)),  # the claim in progress (NULL once completed)
    Column("leased_until", UTCDateTime()),
    Column("response_status", Integer()),
    Column("response_body", LargeBinary()),
    Column("response_headers", JSON()),  # [[name, value], ...], the headers replayed
    Column("created_at", UTCDateTime(), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    CheckConstraint("state IN ('in_progress', 'completed')", name="state"),
    Index(None, "expires_at"),  # the purge
)
