"""Accounts, contacts, tags, lists, segments, notes and the event outbox.

Revision ID: 0001
Revises:
Create Date: 2026-11-22

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types instead of importing the application's (which will change).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
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


def _owned_fk(table: str, column: str, parent: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["account_id", column],
        [f"{parent}.account_id", f"{parent}.id"],
        name=op.f(f"fk_{table}_account_id_{column}"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("allowed_origins", sa.JSON(), nullable=False),
        sa.Column("key_digest", sa.String(length=64), nullable=False),
        sa.Column("key_hint", sa.String(length=16), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("key_digest", name=op.f("uq_accounts_key_digest")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "contacts",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("email", sa.String(length=255), nullable=True),
        sa.Column("email_key", sa.Text(), nullable=True),
        sa.Column("phone", sa.String(length=32), nullable=True),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("blacklisted", sa.Boolean(), nullable=False),
        sa.Column("source", sa.String(length=50), nullable=False),
        sa.Column("company", sa.String(length=255), nullable=True),
        sa.Column("address", sa.String(length=1000), nullable=True),
        sa.Column("country_id", sa.Integer(), nullable=True),
        sa.Column("last_message_at", _moment(), nullable=True),
        *_timestamps(),
        _account_fk("contacts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contacts")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_contacts_account_id_id")),
        sa.UniqueConstraint("account_id", "type", "phone", name=op.f("uq_contacts_account_id_type_phone")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_contacts_account_id_created_at_id"), "contacts", ["account_id", "created_at", "id"], unique=False
    )
    op.create_table(
        "tags",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("title", sa.String(length=100), nullable=False),
        sa.Column("title_key", sa.Text(), nullable=False),
        *_timestamps(),
        _account_fk("tags"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tags")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_tags_account_id_id")),
        sa.UniqueConstraint("account_id", "title_key", name=op.f("uq_tags_account_id_title_key")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "contact_tags",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("tag_id", _id(), nullable=False),
        _owned_fk("contact_tags", "contact_id", "contacts"),
        _owned_fk("contact_tags", "tag_id", "tags"),
        sa.PrimaryKeyConstraint("contact_id", "tag_id", name=op.f("pk_contact_tags")),
    )
    op.create_index(op.f("ix_contact_tags_tag_id"), "contact_tags", ["tag_id"], unique=False)
    op.create_table(
        "contact_lists",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("status", sa.Integer(), nullable=False),
        *_timestamps(),
        _account_fk("contact_lists"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contact_lists")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_contact_lists_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "list_members",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("list_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("added_at", _moment(), nullable=False),
        _owned_fk("list_members", "list_id", "contact_lists"),
        _owned_fk("list_members", "contact_id", "contacts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_list_members")),
        sa.UniqueConstraint("list_id", "contact_id", name=op.f("uq_list_members_list_id_contact_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_list_members_list_id_id"), "list_members", ["list_id", "id"], unique=False)
    op.create_index(op.f("ix_list_members_contact_id"), "list_members", ["contact_id"], unique=False)
    op.create_table(
        "segments",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.String(length=1000), nullable=True),
        sa.Column("match", sa.String(length=8), nullable=False),
        sa.Column("conditions", sa.JSON(), nullable=False),
        *_timestamps(),
        _account_fk("segments"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_segments")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_segments_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "segment_overrides",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("segment_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("included", sa.Boolean(), nullable=False),
        _owned_fk("segment_overrides", "segment_id", "segments"),
        _owned_fk("segment_overrides", "contact_id", "contacts"),
        sa.PrimaryKeyConstraint("segment_id", "contact_id", name=op.f("pk_segment_overrides")),
    )
    op.create_index(op.f("ix_segment_overrides_contact_id"), "segment_overrides", ["contact_id"], unique=False)
    op.create_table(
        "contact_notes",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        *_timestamps(),
        _owned_fk("contact_notes", "contact_id", "contacts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_contact_notes")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_contact_notes_account_id_contact_id_created_at"),
        "contact_notes",
        ["account_id", "contact_id", "created_at"],
        unique=False,
    )
    op.create_table(
        "events",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("occurred_at", _moment(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        _account_fk("events"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sqlite_autoincrement=True,
    )
    op.create_index(op.f("ix_events_account_id_id"), "events", ["account_id", "id"], unique=False)


def downgrade() -> None:
    # Children before parents; dropping a table drops its indexes.
    for table in (
        "events",
        "contact_notes",
        "segment_overrides",
        "segments",
        "list_members",
        "contact_lists",
        "contact_tags",
        "tags",
        "contacts",
        "accounts",
    ):
        op.drop_table(table)
