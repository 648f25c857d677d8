"""Automatic replies of the AI agents.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28

`ai_replies` ties an inbound message to the outbound message the AI answered it with, stored in the
same transaction: a unique `inbound_message_id` makes the reply job's retries send nothing twice.
Deleted with the contact, the account, or either message.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | Sequence[str] | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "ai_replies",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("inbound_message_id", _id(), nullable=False),
        sa.Column("outbound_message_id", _id(), nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("citations", sa.JSON(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        sa.CheckConstraint("action IN ('continue', 'handoff', 'resolve')", name=op.f("ck_ai_replies_action")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_ai_replies_account_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "contact_id"],
            ["contacts.account_id", "contacts.id"],
            name=op.f("fk_ai_replies_account_id_contact_id"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["inbound_message_id"],
            ["messages.id"],
            name=op.f("fk_ai_replies_inbound_message_id"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["outbound_message_id"],
            ["messages.id"],
            name=op.f("fk_ai_replies_outbound_message_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_replies")),
        sa.UniqueConstraint("inbound_message_id", name=op.f("uq_ai_replies_inbound_message_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_ai_replies_outbound_message_id"), "ai_replies", ["outbound_message_id"], unique=False)
    op.create_index(
        op.f("ix_ai_replies_account_id_created_at_contact_id"),
        "ai_replies",
        ["account_id", "created_at", "contact_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("ai_replies")  # its indexes go with it
