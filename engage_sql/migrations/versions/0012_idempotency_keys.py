"""Idempotency keys of the HTTP API: one row per key of one caller, with the response kept on it.

Revision ID: 0012
Revises: 0011
Create Date: 2027-01-20

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types instead of importing the application's (which will change).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "idempotency_keys",
        sa.Column("scope", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("lease_token", sa.String(length=32), nullable=True),
        sa.Column("leased_until", _moment(), nullable=True),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_body", sa.LargeBinary(), nullable=True),
        sa.Column("response_headers", sa.JSON(), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("expires_at", _moment(), nullable=False),
        sa.CheckConstraint("state IN ('in_progress', 'completed')", name=op.f("ck_idempotency_keys_state")),
        sa.PrimaryKeyConstraint("scope", "key", name=op.f("pk_idempotency_keys")),
    )
    op.create_index(op.f("ix_idempotency_keys_expires_at"), "idempotency_keys", ["expires_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_idempotency_keys_expires_at"), table_name="idempotency_keys")
    op.drop_table("idempotency_keys")
