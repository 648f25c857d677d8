"""Each account's outbound messages per calendar month, kept as they are stored.

Revision ID: 0029
Revises: 0028
Create Date: 2026-11-30

`message_months` makes the `messages_per_month` limit of every send a read of the account's rows
from the month on, instead of a COUNT over the month's messages that grows with them
(`engage_sql.messaging.month_tally`). Filled here from the messages already stored; every later
write keeps it.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | Sequence[str] | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_MONTH_OF_CREATED = {
    "postgresql": "date_trunc('month', created_at, 'UTC')",
    # engage_sql.types.UTCDateTime's fixed-width text, `2026-05-06 10:11:12.345678`
    "sqlite": "substr(created_at, 1, 7) || '-01 00:00:00.000000'",
}


def upgrade() -> None:
    op.create_table(
        "message_months",
        sa.Column("account_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("month", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outbound", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_message_months_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", "month", name=op.f("pk_message_months")),
    )
    month = _MONTH_OF_CREATED[op.get_bind().dialect.name]
    op.execute(
        f"INSERT INTO message_months (account_id, month, outbound) "
        f"SELECT account_id, {month}, COUNT(*) FROM messages WHERE direction = 'outbound' GROUP BY 1, 2"
    )


def downgrade() -> None:
    op.drop_table("message_months")
