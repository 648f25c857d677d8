"""The bookings area's tables: types, resources, bookings and working hours."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

booking_types = Table(
    "booking_types",
    metadata,
    # Never deleted: bookings point at them (deactivated instead).
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("duration_minutes", Integer(), nullable=False),
    Column("description", String(2000)),
    Column("is_active", Boolean(), nullable=False),
    *timestamps(),
    CheckConstraint("duration_minutes BETWEEN 1 AND 1440", name="duration_minutes"),
    # Also serves `GET /bookings/types` (one account's types, ascending id).
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)


booking_resources = Table(
    "booking_resources",
    metadata,
    # Never deleted: bookings point at them (deactivated instead).
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("type", String(100), nullable=False),
    Column("is_active", Boolean(), nullable=False),
    *timestamps(),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)


bookings = Table(
    "bookings",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    # No foreign key: like an order's, the contact id stays on the booking as history when the
    # contact is deleted (the service checks it belongs to the account when the booking is made).
    Column("contact_id", Id, nullable=False),
    Column("booking_type_id", Id, nullable=False),
    Column("resource_id", Id),  # NULL: the workspace's own calendar (no resources in use)
    Column("title", String(255), nullable=False),
    Column("starts_at", UTCDateTime(), nullable=False),
    Column("ends_at", UTCDateTime(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("notes", Text()),
    Column("cancelled_at", UTCDateTime()),
    Column("cancellation_reason", String(1000)),
    *timestamps(),
    CheckConstraint("status IN ('pending', 'confirmed', 'cancelled', 'completed')", name="status"),
    CheckConstraint("ends_at > starts_at", name="ends_after_start"),
    UniqueConstraint("account_id", "id"),
    # Types and resources are never deleted, so these take no action (an account's deletion
    # cascades to all three tables at once).
    ForeignKeyConstraint(["account_id", "booking_type_id"], ["booking_types.account_id", "booking_types.id"]),
    ForeignKeyConstraint(["account_id", "resource_id"], ["booking_resources.account_id", "booking_resources.id"]),
    # The overlap check of one calendar under its lock: WHERE account_id = ? AND resource_id = ?
    # AND starts_at < ? AND ends_at > ?.
    Index(None, "account_id", "resource_id", "starts_at"),
    # `GET /bookings` (by starts_at, from/to) and a day's availability (live_between).
    Index(None, "account_id", "starts_at"),
    Index(None, "account_id", "contact_id", "starts_at"),
    sqlite_autoincrement=True,
)


working_hours = Table(
    "working_hours",
    metadata,
    # One row per account that set its hours; none means `engage_core.bookings.working_hours.DEFAULT_HOURS`.
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("timezone", String(64), nullable=False),  # an IANA name
    Column("schedule", JSON(), nullable=False),  # engage_core.bookings.working_hours.Schedule.document()
)


resource_working_hours = Table(
    "resource_working_hours",
    metadata,
    # A resource's own schedule (an override of the workspace's), in the workspace's timezone.
    Column("account_id", Id, nullable=False),
    Column("resource_id", Id, nullable=False),
    Column("schedule", JSON(), nullable=False),
    PrimaryKeyConstraint("account_id", "resource_id"),
    owned_by_account("resource_id", "booking_resources"),
)
