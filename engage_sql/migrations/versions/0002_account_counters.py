"""Per-account counters, kept in the transaction of every change they count.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

`contacts` makes the unfiltered contact total (every `GET /contacts`) a primary-key read instead
of a COUNT over the account's contacts, and gives plan limits a row to lock.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "account_counters",
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("contacts", sa.BigInteger(), nullable=False, server_default="0"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_account_counters_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_account_counters")),
    )
    op.execute(
        "INSERT INTO account_counters (account_id, contacts) "
        "SELECT a.id, (SELECT COUNT(*) FROM contacts c WHERE c.account_id = a.id) FROM accounts a"
    )


def downgrade() -> None:
    op.drop_table("account_counters")
