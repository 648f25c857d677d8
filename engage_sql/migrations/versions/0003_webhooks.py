"""Webhook subscriptions and the delivery log (which is also the delivery queue).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types instead of importing the application's (which will change).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("secret_ciphertext", sa.Text(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_webhooks_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhooks")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_webhooks_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("id", _id(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("owner_id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=True),
        sa.Column("webhook_id", _id(), nullable=False),
        sa.Column("delivery_id", sa.String(length=36), nullable=False),
        sa.Column("event_type", sa.String(length=100), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("attempt_number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("response_status_code", sa.Integer(), nullable=True),
        sa.Column("response_body", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("due_at", _moment(), nullable=False),
        sa.Column("leased_until", _moment(), nullable=True),
        sa.Column("lease_token", sa.String(length=64), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("completed_at", _moment(), nullable=True),
        sa.CheckConstraint(
            "(kind = 'workspace' AND account_id IS NOT NULL AND owner_id = account_id)"
            " OR (kind = 'partner' AND account_id IS NULL)",
            name=op.f("ck_webhook_attempts_owner"),
        ),
        sa.CheckConstraint("status IN ('pending', 'delivered', 'failed')", name=op.f("ck_webhook_attempts_status")),
        sa.ForeignKeyConstraint(
            ["webhook_id"], ["webhooks.id"], name=op.f("fk_webhook_attempts_webhook_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "webhook_id"],
            ["webhooks.account_id", "webhooks.id"],
            name=op.f("fk_webhook_attempts_account_id_webhook_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_attempts")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_webhook_attempts_status_due_at_id"), "webhook_attempts", ["status", "due_at", "id"], unique=False
    )
    op.create_index(op.f("ix_webhook_attempts_webhook_id_id"), "webhook_attempts", ["webhook_id", "id"], unique=False)
    op.create_index(
        op.f("ix_webhook_attempts_webhook_id_status_id"),
        "webhook_attempts",
        ["webhook_id", "status", "id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_webhook_attempts_webhook_id_delivery_id"),
        "webhook_attempts",
        ["webhook_id", "delivery_id"],
        unique=False,
    )


def downgrade() -> None:
    # Children before parents; dropping a table drops its indexes.
    op.drop_table("webhook_attempts")
    op.drop_table("webhooks")
