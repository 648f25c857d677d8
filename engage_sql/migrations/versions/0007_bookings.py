"""Bookings, booking types, bookable resources, and working hours.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types instead of importing the application's (which will change).

Types and resources are never deleted (bookings point at them), so a booking's references to them
take no action on delete; an account's deletion cascades to all of them. A workspace without a
`working_hours` row is open around the clock in UTC (no data to migrate).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
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
    op.create_table(
        "booking_types",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("duration_minutes", sa.Integer(), nullable=False),
        sa.Column("description", sa.String(length=2000), nullable=True),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        *_timestamps(),
        sa.CheckConstraint("duration_minutes BETWEEN 1 AND 1440", name=op.f("ck_booking_types_duration_minutes")),
        _account_fk("booking_types"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_booking_types")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_booking_types_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "booking_resources",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("type", sa.String(length=100), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        *_timestamps(),
        _account_fk("booking_resources"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_booking_resources")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_booking_resources_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "bookings",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("booking_type_id", _id(), nullable=False),
        sa.Column("resource_id", _id(), nullable=True),
        sa.Column("title", sa.String(length=255), nullable=False),
        sa.Column("starts_at", _moment(), nullable=False),
        sa.Column("ends_at", _moment(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("notes", sa.Text(), nullable=True),
        sa.Column("cancelled_at", _moment(), nullable=True),
        sa.Column("cancellation_reason", sa.String(length=1000), nullable=True),
        *_timestamps(),
        sa.CheckConstraint(
            "status IN ('pending', 'confirmed', 'cancelled', 'completed')", name=op.f("ck_bookings_status")
        ),
        sa.CheckConstraint("ends_at > starts_at", name=op.f("ck_bookings_ends_after_start")),
        _account_fk("bookings"),
        sa.ForeignKeyConstraint(
            ["account_id", "booking_type_id"],
            ["booking_types.account_id", "booking_types.id"],
            name=op.f("fk_bookings_account_id_booking_type_id"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "resource_id"],
            ["booking_resources.account_id", "booking_resources.id"],
            name=op.f("fk_bookings_account_id_resource_id"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bookings")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_bookings_account_id_id")),
        sqlite_autoincrement=True,
    )
    _index("bookings", "account_id", "resource_id", "starts_at")
    _index("bookings", "account_id", "starts_at")
    _index("bookings", "account_id", "contact_id", "starts_at")
    op.create_table(
        "working_hours",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("timezone", sa.String(length=64), nullable=False),
        sa.Column("schedule", sa.JSON(), nullable=False),
        _account_fk("working_hours"),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_working_hours")),
    )
    op.create_table(
        "resource_working_hours",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("resource_id", _id(), nullable=False),
        sa.Column("schedule", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id", "resource_id"],
            ["booking_resources.account_id", "booking_resources.id"],
            name=op.f("fk_resource_working_hours_account_id_resource_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("account_id", "resource_id", name=op.f("pk_resource_working_hours")),
    )


def downgrade() -> None:
    # Children before parents; dropping a table drops its indexes.
    for table in ("resource_working_hours", "working_hours", "bookings", "booking_resources", "booking_types"):
        op.drop_table(table)
