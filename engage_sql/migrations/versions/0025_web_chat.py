"""Web chat: sessions, their message logs, and each workspace's widget.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28

`web_chat_sessions` are found by their public random `session_id` (the API) and by the SHA-256 of the
visitor's token (the widget); `web_chat_messages` number each session's log (`seq`, unique per
session) so a live client resumes exactly where it stopped, and a unique `reply_to` lets the AI answer
a visitor message at most once. `web_chat_widgets` holds one public widget key per workspace.
Everything is deleted with the account.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | Sequence[str] | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "web_chat_sessions",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("handled_by", sa.String(length=16), nullable=False),
        sa.Column("visitor_name", sa.String(length=255), nullable=True),
        sa.Column("visitor_email", sa.String(length=255), nullable=True),
        sa.Column("visitor_phone", sa.String(length=32), nullable=True),
        sa.Column("visitor_ip", sa.String(length=64), nullable=True),
        sa.Column("visitor_page_url", sa.Text(), nullable=True),
        sa.Column("visitor_referrer", sa.Text(), nullable=True),
        sa.Column("has_visitor_messages", sa.Boolean(), nullable=False),
        sa.Column("human_requested_at", _moment(), nullable=True),
        sa.Column("human_took_over_at", _moment(), nullable=True),
        sa.Column("ended_at", _moment(), nullable=True),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("last_activity_at", _moment(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        sa.CheckConstraint("status IN ('active', 'ended')", name=op.f("ck_web_chat_sessions_status")),
        sa.CheckConstraint("handled_by IN ('ai', 'human', 'pending')", name=op.f("ck_web_chat_sessions_handled_by")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_web_chat_sessions_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_chat_sessions")),
        sa.UniqueConstraint("session_id", name=op.f("uq_web_chat_sessions_session_id")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_chat_sessions_token_hash")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_web_chat_sessions_account_id_id")),
        sqlite_autoincrement=True,
    )
    for columns in (
        ["account_id", "last_activity_at", "id"],
        ["account_id", "status", "last_activity_at", "id"],
        ["account_id", "handled_by", "last_activity_at", "id"],
        ["account_id", "created_at"],
    ):
        op.create_index(op.f("ix_web_chat_sessions_" + "_".join(columns)), "web_chat_sessions", columns, unique=False)

    op.create_table(
        "web_chat_messages",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("session_id", _id(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("sender_type", sa.String(length=16), nullable=False),
        sa.Column("message_text", sa.Text(), nullable=False),
        sa.Column("message_type", sa.String(length=16), nullable=False),
        sa.Column("media_url", sa.Text(), nullable=True),
        sa.Column("is_read", sa.Boolean(), nullable=False),
        sa.Column("reply_to", _id(), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "sender_type IN ('visitor', 'bot', 'agent', 'system')", name=op.f("ck_web_chat_messages_sender_type")
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "session_id"],
            ["web_chat_sessions.account_id", "web_chat_sessions.id"],
            name=op.f("fk_web_chat_messages_account_id_session_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_chat_messages")),
        sa.UniqueConstraint("session_id", "seq", name=op.f("uq_web_chat_messages_session_id_seq")),
        sa.UniqueConstraint("reply_to", name=op.f("uq_web_chat_messages_reply_to")),
        sqlite_autoincrement=True,
    )

    op.create_table(
        "web_chat_widgets",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("widget_key", sa.String(length=64), nullable=False),
        sa.Column("allowed_origins", sa.JSON(), nullable=False),
        sa.Column("color", sa.String(length=7), nullable=False),
        sa.Column("greeting", sa.Text(), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_web_chat_widgets_account_id"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_web_chat_widgets")),
        sa.UniqueConstraint("widget_key", name=op.f("uq_web_chat_widgets_widget_key")),
    )


def downgrade() -> None:
    op.drop_table("web_chat_widgets")
    op.drop_table("web_chat_messages")
    op.drop_table("web_chat_sessions")  # their indexes go with them
