"""Support's tables: departments, tickets and their replies."""

from __future__ import annotations

from sqlalchemy import (
    CheckConstraint,
    Column,
    ForeignKeyConstraint,
    Index,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

departments = Table(
    "departments",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("title", String(255), nullable=False),
    Column("title_key", Text(), nullable=False),  # engage_core.support.departments.title_key(title)
    *timestamps(),
    # Also what lets racing first uses seed exactly one default department (ON CONFLICT DO NOTHING).
    UniqueConstraint("account_id", "title_key"),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)


tickets = Table(
    "tickets",
    metadata,
    Column("id", Id, primary_key=True),
    account_id(),
    Column("ticket_id", String(32), nullable=False),  # the reference, `TKT-000123`
    Column("subject", String(255), nullable=False),
    Column("body", Text(), nullable=False),
    Column("priority", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    # Both references are NULL when unset, and point into the ticket's own account. Their foreign
    # keys take no action: a composite key's SET NULL would null `account_id` too, so deleting a
    # department or a team member first clears the column on its tickets, in the same transaction
    # (`SqlDepartmentRepository.delete`, `SqlTicketRepository.unassign_member`), and the key
    # refuses any delete that did not.
    Column("department_id", Id),
    Column("assignee_id", Id),
    Column("last_reply_at", UTCDateTime()),
    Column("closed_at", UTCDateTime()),
    *timestamps(),
    CheckConstraint("priority IN ('low', 'medium', 'high')", name="priority"),
    CheckConstraint("status IN ('open', 'answered', 'closed')", name="status"),
    UniqueConstraint("account_id", "ticket_id"),
    UniqueConstraint("account_id", "id"),
    ForeignKeyConstraint(["account_id", "department_id"], ["departments.account_id", "departments.id"]),
    ForeignKeyConstraint(["account_id", "assignee_id"], ["team_members.account_id", "team_members.id"]),
    # `GET /tickets`, newest first, unfiltered and by each filter.
    Index(None, "account_id", "created_at", "id"),
    Index(None, "account_id", "status", "created_at", "id"),
    Index(None, "account_id", "priority", "created_at", "id"),
    # Clearing a deleted department or team member (and the foreign keys' checks).
    Index(None, "account_id", "department_id"),
    Index(None, "account_id", "assignee_id"),
    sqlite_autoincrement=True,
)


ticket_replies = Table(
    "ticket_replies",
    metadata,
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("ticket_id", Id, nullable=False),  # the ticket's `id`, not its reference
    Column("reply", Text(), nullable=False),
    Column("type", String(16), nullable=False),
    # No foreign key: the author stays on the reply as history when the team member is deleted.
    Column("author_id", Id),
    Column("created_at", UTCDateTime(), nullable=False),
    CheckConstraint("type IN ('client', 'admin')", name="type"),
    owned_by_account("ticket_id", "tickets"),
    # A ticket's replies, oldest first.
    Index(None, "ticket_id", "created_at", "id"),
    sqlite_autoincrement=True,
)
