"""The jobs' table."""

from __future__ import annotations

from sqlalchemy import JSON, CheckConstraint, Column, Index, Integer, String, Table, text

from engage_sql.schema import account_id, metadata, timestamps
from engage_sql.types import Id, UTCDateTime

jobs = Table(
    "jobs",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("kind", String(64), nullable=False),
    Column("key", String(255)),
    Column("payload", JSON(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer(), nullable=False),
    Column("max_attempts", Integer(), nullable=False),
    Column("run_at", UTCDateTime(), nullable=False),
    Column("leased_until", UTCDateTime()),
    Column("lease_token", String(32)),
    Column("last_error", String(1000)),
    *timestamps(),
    Column("finished_at", UTCDateTime()),
    CheckConstraint("status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')", name="status"),
    # The claim: WHERE kind IN (...) AND status IN ('queued', 'running') ORDER BY run_at, id.
    Index(
        "ix_jobs_due",
        "run_at",
        "id",
        sqlite_where=text("status IN ('queued', 'running')"),
        postgresql_where=text("status IN ('queued', 'running')"),
    ),
    # One unfinished job per account, kind and key (`JobRequest.key`).
    Index(
        "uq_jobs_unfinished_key",
        "account_id",
        "kind",
        "key",
        unique=True,
        sqlite_where=text("status IN ('queued', 'running') AND key IS NOT NULL"),
        postgresql_where=text("status IN ('queued', 'running') AND key IS NOT NULL"),
    ),
    Index(None, "account_id", "kind", "key"),
    sqlite_autoincrement=True,
)
