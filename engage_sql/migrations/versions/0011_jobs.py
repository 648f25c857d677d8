"""The jobs: durable background work, leased by the worker like webhook attempts.

Revision ID: 0011
Revises: 0010
Create Date: 2027-01-20

Self-contained on purpose: a migration describes the schema as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_UNFINISHED = "status IN ('queued', 'running')"


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("kind", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("max_attempts", sa.Integer(), nullable=False),
        sa.Column("run_at", _moment(), nullable=False),
        sa.Column("leased_until", _moment(), nullable=True),
        sa.Column("lease_token", sa.String(length=32), nullable=True),
        sa.Column("last_error", sa.String(length=1000), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.Column("finished_at", _moment(), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')", name=op.f("ck_jobs_status")
        ),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name=op.f("fk_jobs_account_id"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_jobs")),
        sqlite_autoincrement=True,
    )
    where = sa.text(_UNFINISHED)
    op.create_index("ix_jobs_due", "jobs", ["run_at", "id"], unique=False, sqlite_where=where, postgresql_where=where)
    keyed = sa.text(f"{_UNFINISHED} AND key IS NOT NULL")
    op.create_index(
        "uq_jobs_unfinished_key",
        "jobs",
        ["account_id", "kind", "key"],
        unique=True,
        sqlite_where=keyed,
        postgresql_where=keyed,
    )
    op.create_index(op.f("ix_jobs_account_id_kind_key"), "jobs", ["account_id", "kind", "key"], unique=False)


def downgrade() -> None:
    op.drop_table("jobs")
