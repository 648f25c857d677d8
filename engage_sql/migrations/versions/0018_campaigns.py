"""Campaigns: the campaigns, their recipients, the send counts of the quotas, and the campaign of a message.

Revision ID: 0018
Revises: 0017
Create Date: 2027-02-10

`campaigns` holds each campaign with its counters; `campaign_recipients` the snapshot of its
audience taken at the start (each contact once, with its delivery status); `campaign_send_counts`
the campaign messages handed to the gateway per channel and UTC day, which the daily and weekly
quotas read. `messages.campaign_id` names the campaign that sent a message (`message.sent`). The
column is added in place (no table rebuild on SQLite): it is nullable and has no constraint.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "campaigns",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("audience", sa.JSON(), nullable=False),
        sa.Column("starts_at", _moment(), nullable=True),
        sa.Column("send_rate", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("sent", sa.Integer(), nullable=False),
        sa.Column("delivered", sa.Integer(), nullable=False),
        sa.Column("read", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("error", sa.String(length=1000), nullable=True),
        sa.Column("started_at", _moment(), nullable=True),
        sa.Column("completed_at", _moment(), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "status IN ('draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled', 'failed')",
            name=op.f("ck_campaigns_status"),
        ),
        sa.CheckConstraint(
            "channel IN ('whatsapp', 'telegram', 'instagram', 'linkedin')", name=op.f("ck_campaigns_channel")
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_campaigns_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaigns")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_campaigns_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_campaigns_account_id_created_at_id"), "campaigns", ["account_id", "created_at", "id"], unique=False
    )
    op.create_index(
        op.f("ix_campaigns_account_id_channel_status"), "campaigns", ["account_id", "channel", "status"], unique=False
    )
    op.create_table(
        "campaign_recipients",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("campaign_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=True),
        sa.Column("error", sa.String(length=1000), nullable=True),
        sa.Column("message_id", _id(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("sent_at", _moment(), nullable=True),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'sending', 'sent', 'delivered', 'read', 'failed', 'skipped')",
            name=op.f("ck_campaign_recipients_status"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "campaign_id"],
            ["campaigns.account_id", "campaigns.id"],
            name=op.f("fk_campaign_recipients_account_id_campaign_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign_recipients")),
        sa.UniqueConstraint("campaign_id", "contact_id", name=op.f("uq_campaign_recipients_campaign_id_contact_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_campaign_recipients_campaign_id_status_id"),
        "campaign_recipients",
        ["campaign_id", "status", "id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_campaign_recipients_account_id_message_id"),
        "campaign_recipients",
        ["account_id", "message_id"],
        unique=False,
    )
    op.create_table(
        "campaign_send_counts",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("sent", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_campaign_send_counts_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", "channel", "day", name=op.f("pk_campaign_send_counts")),
    )
    op.add_column("messages", sa.Column("campaign_id", _id(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("messages", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_column("campaign_id")
    op.drop_table("campaign_send_counts")
    op.drop_table("campaign_recipients")
    op.drop_table("campaigns")
