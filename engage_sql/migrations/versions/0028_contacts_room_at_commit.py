"""PostgreSQL checks the contacts limit in the statement that moves the counter as a transaction commits.

Revision ID: 0028
Revises: 0027
Create Date: 2026-11-29

`engage_within_limit(total, maximum, name)` returns `total`, or raises SQLSTATE `EN001` when a
maximum is given and `total` passes it (`engage_sql.contacts.counter_moves`): the statement fails,
the COMMIT sent with it is skipped and nothing of the transaction is written. SQLite checks the
limit before the write, under its write lock, and needs no function.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0028"
down_revision: str | Sequence[str] | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        """
        CREATE FUNCTION engage_within_limit(total bigint, maximum bigint, name text) RETURNS bigint
        LANGUAGE plpgsql AS $$
        BEGIN
            IF maximum IS NOT NULL AND total > maximum THEN
                RAISE EXCEPTION 'plan limit reached: % (at most %)', name, maximum USING ERRCODE = 'EN001';
            END IF;
            RETURN total;
        END
        $$
        """
    )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute("DROP FUNCTION engage_within_limit(bigint, bigint, text)")
