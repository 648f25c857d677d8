"""PostgreSQL tells every process when something admission reads has changed.

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-29

Each server process keeps the admissions it has read (`engage_sql.accounts.admissions`): the key's
account, its workspace's suspension and the plan in force, read from `accounts`, `partner_clients`
and `plans`. A statement trigger on each of the three sends `NOTIFY engage_admission` whenever one
of its statements changes rows, whoever runs it; PostgreSQL delivers it when the transaction
commits, and every listening process then forgets what it kept. SQLite keeps nothing, so it needs
no trigger.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0027"
down_revision: str | Sequence[str] | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = {
    # A new account has a new key, which no process can have kept: its insert changes nothing kept.
    "accounts": "UPDATE OR DELETE OR TRUNCATE",
    # A client row inserted for an existing account changes its plan; a new plan may be one that a
    # kept admission found missing.
    "partner_clients": "INSERT OR UPDATE OR DELETE OR TRUNCATE",
    "plans": "INSERT OR UPDATE OR DELETE OR TRUNCATE",
}


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        """
        CREATE FUNCTION engage_admission_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_notify('engage_admission', '');
            RETURN NULL;
        END
        $$
        """
    )
    for table, events in TABLES.items():
        op.execute(
            f"CREATE TRIGGER {table}_admission_changed AFTER {events} ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION engage_admission_changed()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table in TABLES:
        op.execute(f"DROP TRIGGER {table}_admission_changed ON {table}")
    op.execute("DROP FUNCTION engage_admission_changed()")
