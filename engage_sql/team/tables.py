"""The team area's tables."""

from __future__ import annotations

from sqlalchemy import (
    CheckConstraint,
    Column,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, timestamps
from engage_sql.types import Id

team_members = Table(
    "team_members",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("email", String(255), nullable=False),  # as written
    Column("email_key", Text(), nullable=False),  # engage_core.team.model.email_key(email): unique per account
    Column("role", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("password_hash", Text(), nullable=False),  # argon2id, self-describing; never read into TeamMember
    *timestamps(),
    CheckConstraint("role IN ('admin', 'agent')", name="role"),
    CheckConstraint("status IN ('active', 'inactive')", name="status"),
    UniqueConstraint("account_id", "email_key"),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)
