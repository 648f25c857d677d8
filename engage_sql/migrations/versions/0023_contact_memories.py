"""Contact memories, and the booking step's state on automatic replies.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28

`contact_memories` holds short facts (at most 280 characters), each once per contact (a unique
constraint; the services also compare without case), deleted with the contact or the account; the message a
fact came from may be deleted first (SET NULL).

`ai_replies` gains `offer` (the slots the booking step offered, a JSON document) and `booking_id`
(the booking it made), and an index to read a contact's latest reply.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | Sequence[str] | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "contact_memories",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("fact", sa.String(length=280), nullable=False),
        sa.Column("source_message_id", _id(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_contact_memories_account_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "contact_id"],
            ["contacts.account_id", "contacts.id"],
            name=op.f("fk_contact_memories_account_id_contact_id"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["source_message_id"],
            ["messages.id"],
            name=op.f("fk_contact_memories_source_message_id"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contact_memories")),
        sa.UniqueConstraint(
            "account_id", "contact_id", "fact", name=op.f("uq_contact_memories_account_id_contact_id_fact")
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_contact_memories_account_id_contact_id_created_at_id"),
        "contact_memories",
        ["account_id", "contact_id", "created_at", "id"],
        unique=False,
    )
    op.create_index(
        op.f("ix_contact_memories_source_message_id"), "contact_memories", ["source_message_id"], unique=False
    )

    with op.batch_alter_table("ai_replies") as batch:
        batch.add_column(sa.Column("offer", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("booking_id", _id(), nullable=True))
    op.create_index(
        op.f("ix_ai_replies_account_id_contact_id_id"), "ai_replies", ["account_id", "contact_id", "id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_ai_replies_account_id_contact_id_id"), table_name="ai_replies")
    with op.batch_alter_table("ai_replies") as batch:
        batch.drop_column("booking_id")
        batch.drop_column("offer")
    op.drop_table("contact_memories")  # its indexes go with it
