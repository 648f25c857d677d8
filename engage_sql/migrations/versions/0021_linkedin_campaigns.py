"""LinkedIn campaigns: each campaign's plan (invite or message sequence) and the sequences' follow-ups.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28

`linkedin_campaigns` holds what a launch from LinkedIn sourcing adds to its campaign (the type, the
invitation note, the sequence's steps); `linkedin_follow_ups` one row per recipient and later step of
a sequence (unique on `(recipient_id, step)`: a step is never scheduled, hence never sent, twice).
Both go with their campaign.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | Sequence[str] | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "linkedin_campaigns",
        sa.Column("campaign_id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("campaign_type", sa.String(length=16), nullable=False),
        sa.Column("invite_note", sa.String(length=200), nullable=True),
        sa.Column("steps", sa.JSON(), nullable=False),
        sa.CheckConstraint("campaign_type IN ('invite', 'sequence')", name=op.f("ck_linkedin_campaigns_campaign_type")),
        sa.ForeignKeyConstraint(
            ["account_id", "campaign_id"],
            ["campaigns.account_id", "campaigns.id"],
            name=op.f("fk_linkedin_campaigns_account_id_campaign_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("campaign_id", name=op.f("pk_linkedin_campaigns")),
    )
    op.create_table(
        "linkedin_follow_ups",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("campaign_id", _id(), nullable=False),
        sa.Column("recipient_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.String(length=32), nullable=True),
        sa.Column("error", sa.String(length=1000), nullable=True),
        sa.Column("message_id", _id(), nullable=True),
        sa.Column("due_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "status IN ('pending', 'sending', 'sent', 'failed', 'skipped')", name=op.f("ck_linkedin_follow_ups_status")
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "campaign_id"],
            ["campaigns.account_id", "campaigns.id"],
            name=op.f("fk_linkedin_follow_ups_account_id_campaign_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_linkedin_follow_ups")),
        sa.UniqueConstraint("recipient_id", "step", name=op.f("uq_linkedin_follow_ups_recipient_id_step")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_linkedin_follow_ups_campaign_id_status_due_at_id"),
        "linkedin_follow_ups",
        ["campaign_id", "status", "due_at", "id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("linkedin_follow_ups")
    op.drop_table("linkedin_campaigns")
