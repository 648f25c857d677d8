"""AI agents, and the agent assigned to each contact.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28

`ai_agents` holds the personas of SPEC 2. At most one default per account: a unique index on
`account_id` where `is_default`; and a default is always active (a check). `contacts.ai_agent_id`
is the agent assigned to a contact, a composite reference into its own account that takes no action
on delete: deleting an agent clears it first (a composite SET NULL would null `account_id` as well).
Existing contacts start with no agent (no account has agents yet). On SQLite, adding the reference
rebuilds `contacts` (foreign keys are off during migrations, so its notes, tag links and messages
survive), keeping AUTOINCREMENT.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "ai_agents",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("system_prompt", sa.Text(), nullable=False),
        sa.Column("instruction_prompt", sa.Text(), nullable=True),
        sa.Column("personality_prompt", sa.Text(), nullable=True),
        sa.Column("booking_agent_instructions", sa.Text(), nullable=True),
        sa.Column("memory_agent_instructions", sa.Text(), nullable=True),
        sa.Column("response_guidelines", sa.JSON(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint("is_active OR NOT is_default", name=op.f("ck_ai_agents_default_is_active")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_ai_agents_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ai_agents")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_ai_agents_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        "uq_ai_agents_default",
        "ai_agents",
        ["account_id"],
        unique=True,
        sqlite_where=sa.text("is_default"),
        postgresql_where=sa.text("is_default"),
    )
    op.create_index(
        op.f("ix_ai_agents_account_id_updated_at_id"), "ai_agents", ["account_id", "updated_at", "id"], unique=False
    )
    with op.batch_alter_table("contacts", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.add_column(sa.Column("ai_agent_id", _id(), nullable=True))
        batch.create_foreign_key(
            op.f("fk_contacts_account_id_ai_agent_id"),
            "ai_agents",
            ["account_id", "ai_agent_id"],
            ["account_id", "id"],
        )
        batch.create_index(op.f("ix_contacts_account_id_ai_agent_id"), ["account_id", "ai_agent_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("contacts", table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_index(op.f("ix_contacts_account_id_ai_agent_id"))
        batch.drop_constraint(op.f("fk_contacts_account_id_ai_agent_id"), type_="foreignkey")
        batch.drop_column("ai_agent_id")
    op.drop_table("ai_agents")  # its indexes go with it
