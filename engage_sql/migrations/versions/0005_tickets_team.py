"""Support tickets, their replies and departments, team members, and the ticket number counter.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types instead of importing the application's (which will change).

A ticket's department and assignee are composite references into its own account that take no
action on delete: the repositories clear them first (a composite SET NULL would null `account_id`
as well). Existing accounts start their ticket numbers at 0 through the column's server default,
and get their default department the first time tickets need one (no data to migrate).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def _timestamps() -> list[sa.Column[object]]:
    return [sa.Column("created_at", _moment(), nullable=False), sa.Column("updated_at", _moment(), nullable=False)]


def _account_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["account_id"], ["accounts.id"], name=op.f(f"fk_{table}_account_id"), ondelete="CASCADE"
    )


def _index(table: str, *columns: str) -> None:
    op.create_index(op.f(f"ix_{table}_{'_'.join(columns)}"), table, list(columns), unique=False)


def upgrade() -> None:
    with op.batch_alter_table("account_counters") as batch:
        batch.add_column(sa.Column("tickets", sa.BigInteger(), nullable=False, server_default="0"))
    op.create_table(
        "departments",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("title", sa.String(length=255), nullable=False),
        sa.Column("title_key", sa.Text(), nullable=False),
        *_timestamps(),
        _account_fk("departments"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_departments")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_departments_account_id_id")),
        sa.UniqueConstraint("account_id", "title_key", name=op.f("uq_departments_account_id_title_key")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "team_members",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=False),
        sa.Column("email_key", sa.Text(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        *_timestamps(),
        sa.CheckConstraint("role IN ('admin', 'agent')", name=op.f("ck_team_members_role")),
        sa.CheckConstraint("status IN ('active', 'inactive')", name=op.f("ck_team_members_status")),
        _account_fk("team_members"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_team_members")),
        sa.UniqueConstraint("account_id", "email_key", name=op.f("uq_team_members_account_id_email_key")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_team_members_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "tickets",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("ticket_id", sa.String(length=32), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("priority", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("department_id", _id(), nullable=True),
        sa.Column("assignee_id", _id(), nullable=True),
        sa.Column("last_reply_at", _moment(), nullable=True),
        sa.Column("closed_at", _moment(), nullable=True),
        *_timestamps(),
        sa.CheckConstraint("priority IN ('low', 'medium', 'high')", name=op.f("ck_tickets_priority")),
        sa.CheckConstraint("status IN ('open', 'answered', 'closed')", name=op.f("ck_tickets_status")),
        _account_fk("tickets"),
        sa.ForeignKeyConstraint(
            ["account_id", "department_id"],
            ["departments.account_id", "departments.id"],
            name=op.f("fk_tickets_account_id_department_id"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "assignee_id"],
            ["team_members.account_id", "team_members.id"],
            name=op.f("fk_tickets_account_id_assignee_id"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tickets")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_tickets_account_id_id")),
        sa.UniqueConstraint("account_id", "ticket_id", name=op.f("uq_tickets_account_id_ticket_id")),
        sqlite_autoincrement=True,
    )
    _index("tickets", "account_id", "created_at", "id")
    _index("tickets", "account_id", "status", "created_at", "id")
    _index("tickets", "account_id", "priority", "created_at", "id")
    _index("tickets", "account_id", "department_id")
    _index("tickets", "account_id", "assignee_id")
    op.create_table(
        "ticket_replies",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("ticket_id", _id(), nullable=False),
        sa.Column("reply", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("author_id", _id(), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.CheckConstraint("type IN ('client', 'admin')", name=op.f("ck_ticket_replies_type")),
        sa.ForeignKeyConstraint(
            ["account_id", "ticket_id"],
            ["tickets.account_id", "tickets.id"],
            name=op.f("fk_ticket_replies_account_id_ticket_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ticket_replies")),
        sqlite_autoincrement=True,
    )
    _index("ticket_replies", "ticket_id", "created_at", "id")


def downgrade() -> None:
    # Children before parents; dropping a table drops its indexes.
    for table in ("ticket_replies", "tickets", "team_members", "departments"):
        op.drop_table(table)
    with op.batch_alter_table("account_counters") as batch:
        batch.drop_column("tickets")
