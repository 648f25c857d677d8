"""Conversation handling: who answers each contact's conversation, the AI or a human.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28

`conversation_handling` holds one row per contact whose state ever moved (`ai`, `pending`,
`human`, the AI's context reset in `context_since`); a contact without one is handled by the AI,
so existing contacts need no row. Rows are deleted with their contact. `assignee_id` is a composite
reference into the account's team that takes no action on delete: the repository clears it first (a
composite SET NULL would null `account_id` as well).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "conversation_handling",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("handled_by", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("assignee_id", _id(), nullable=True),
        sa.Column("context_since", _moment(), nullable=True),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "handled_by IN ('ai', 'pending', 'human')", name=op.f("ck_conversation_handling_handled_by")
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "contact_id"],
            ["contacts.account_id", "contacts.id"],
            name=op.f("fk_conversation_handling_account_id_contact_id"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "assignee_id"],
            ["team_members.account_id", "team_members.id"],
            name=op.f("fk_conversation_handling_account_id_assignee_id"),
        ),
        sa.PrimaryKeyConstraint("account_id", "contact_id", name=op.f("pk_conversation_handling")),
    )
    op.create_index(
        op.f("ix_conversation_handling_account_id_handled_by_contact_id"),
        "conversation_handling",
        ["account_id", "handled_by", "contact_id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_conversation_handling_account_id_assignee_id"),
        "conversation_handling",
        ["account_id", "assignee_id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("conversation_handling")
