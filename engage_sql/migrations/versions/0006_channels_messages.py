"""Channel settings, contact handles, messages, and the conversation summaries of the inbox.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27

Self-contained on purpose: a migration describes the schema as it was, so it spells out column
types instead of importing the application's (which will change).

`conversations` holds one summary row per contact and scope (`*`: every channel; or one channel),
and `conversation_totals` how many rows each scope has, so that a page of `GET /conversations`
reads neither the messages nor every summary. Both are kept up to date by the message repository
in the transaction of each message write; there are no messages yet, so nothing to backfill.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
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


def _contact_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["account_id", "contact_id"],
        ["contacts.account_id", "contacts.id"],
        name=op.f(f"fk_{table}_account_id_contact_id"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    op.create_table(
        "channel_accounts",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("provider_account_id", sa.String(length=255), nullable=True),
        sa.Column("username", sa.String(length=255), nullable=True),
        sa.Column("sync_status", sa.String(length=16), nullable=False),
        sa.Column("is_connected", sa.Boolean(), nullable=False),
        sa.Column("checkpoint_type", sa.String(length=100), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("last_synced_at", _moment(), nullable=True),
        sa.Column("connected_at", _moment(), nullable=True),
        *_timestamps(),
        sa.CheckConstraint(
            "type IN ('whatsapp', 'telegram', 'instagram', 'linkedin')", name=op.f("ck_channel_accounts_type")
        ),
        sa.CheckConstraint(
            "sync_status IN ('OK', 'CONNECTING', 'SYNC_SUCCESS', 'CREDENTIALS', 'ERROR', 'STOPPED', 'CREATION_FAIL')",
            name=op.f("ck_channel_accounts_sync_status"),
        ),
        _account_fk("channel_accounts"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_channel_accounts")),
        sa.UniqueConstraint("account_id", "type", name=op.f("uq_channel_accounts_account_id_type")),
        sa.UniqueConstraint("provider_account_id", name=op.f("uq_channel_accounts_provider_account_id")),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "contact_handles",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("handle", sa.String(length=255), nullable=False),
        _contact_fk("contact_handles"),
        sa.PrimaryKeyConstraint("account_id", "contact_id", "channel", name=op.f("pk_contact_handles")),
        sa.UniqueConstraint(
            "account_id", "channel", "handle", name=op.f("uq_contact_handles_account_id_channel_handle")
        ),
    )
    op.create_table(
        "messages",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("direction", sa.String(length=8), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("provider_message_id", sa.String(length=255), nullable=True),
        sa.Column("sent_at", _moment(), nullable=True),
        *_timestamps(),
        sa.CheckConstraint("direction IN ('inbound', 'outbound')", name=op.f("ck_messages_direction")),
        sa.CheckConstraint(
            "status IN ('pending', 'sent', 'delivered', 'read', 'failed')", name=op.f("ck_messages_status")
        ),
        _contact_fk("messages"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_messages")),
        sa.UniqueConstraint(
            "account_id",
            "channel",
            "provider_message_id",
            name=op.f("uq_messages_account_id_channel_provider_message_id"),
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_messages_account_id_contact_id_created_at_id"),
        "messages",
        ["account_id", "contact_id", "created_at", "id"],
        unique=False,
    )
    op.create_table(
        "conversations",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("contact_id", _id(), nullable=False),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("last_message_id", _id(), nullable=False),
        sa.Column("last_message_at", _moment(), nullable=False),
        sa.Column("unread_count", sa.Integer(), nullable=False),
        sa.CheckConstraint("unread_count >= 0", name=op.f("ck_conversations_unread_count")),
        _contact_fk("conversations"),
        sa.PrimaryKeyConstraint("account_id", "contact_id", "scope", name=op.f("pk_conversations")),
    )
    op.create_index(
        "ix_conversations_newest",
        "conversations",
        ["account_id", "scope", "last_message_at", "last_message_id", "contact_id"],
        unique=False,
    )
    op.create_table(
        "conversation_totals",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("conversations", sa.BigInteger(), nullable=False),
        _account_fk("conversation_totals"),
        sa.PrimaryKeyConstraint("account_id", "scope", name=op.f("pk_conversation_totals")),
    )


def downgrade() -> None:
    # Children before parents; dropping a table drops its indexes.
    for table in ("conversation_totals", "conversations", "messages", "contact_handles", "channel_accounts"):
        op.drop_table(table)
