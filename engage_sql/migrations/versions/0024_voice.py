"""Voice: each workspace's voice settings and usage, and its synthesised audio.

Revision ID: 0024
Revises: 0023
Create Date: 2027-02-10

`voice_settings` holds one row per workspace (SPEC 2 Voice settings, its cloned voice, its clone
sample's key in the blob store and the seconds synthesised this month); `voice_speech_cache` the
synthesised audio by a hash of voice and text, so the same speech is served again from the blob
store. Self-contained: a migration describes the schema as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | Sequence[str] | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def _account(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["account_id"], ["accounts.id"], name=op.f(f"fk_{table}_account_id"), ondelete="CASCADE"
    )


def upgrade() -> None:
    op.create_table(
        "voice_settings",
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("preset_voice", sa.String(length=32), nullable=True),
        sa.Column("preset_language", sa.String(length=35), nullable=False),
        sa.Column("preset_style_prompt", sa.Text(), nullable=True),
        sa.Column("language", sa.String(length=2), nullable=False),
        sa.Column("dialect", sa.String(length=3), nullable=False),
        sa.Column("clone_voice_id", sa.String(length=255), nullable=True),
        sa.Column("clone_name", sa.String(length=100), nullable=True),
        sa.Column("clone_language", sa.String(length=2), nullable=True),
        sa.Column("clone_dialect", sa.String(length=3), nullable=True),
        sa.Column("clone_gender", sa.String(length=6), nullable=True),
        sa.Column("clone_style", sa.String(length=16), nullable=True),
        sa.Column("sample_key", sa.String(length=255), nullable=True),
        sa.Column("preloaded_at", _moment(), nullable=True),
        sa.Column("usage_month", _moment(), nullable=True),
        sa.Column("seconds_used", sa.Float(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint("mode IN ('preset', 'clone')", name=op.f("ck_voice_settings_mode")),
        sa.CheckConstraint("seconds_used >= 0", name=op.f("ck_voice_settings_seconds_used")),
        _account("voice_settings"),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_voice_settings")),
    )
    op.create_table(
        "voice_speech_cache",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("cache_key", sa.String(length=64), nullable=False),
        sa.Column("storage_key", sa.String(length=255), nullable=False),
        sa.Column("duration_seconds", sa.Float(), nullable=False),
        sa.Column("language", sa.String(length=2), nullable=False),
        sa.Column("dialect", sa.String(length=3), nullable=True),
        sa.Column("dialect_fallback", sa.Boolean(), nullable=False),
        sa.Column("cloned", sa.Boolean(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        _account("voice_speech_cache"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_voice_speech_cache")),
        sa.UniqueConstraint("account_id", "cache_key", name=op.f("uq_voice_speech_cache_account_id_cache_key")),
        sa.UniqueConstraint("storage_key", name=op.f("uq_voice_speech_cache_storage_key")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_voice_speech_cache_account_id_cloned"), "voice_speech_cache", ["account_id", "cloned"], unique=False
    )


def downgrade() -> None:
    op.drop_table("voice_speech_cache")
    op.drop_table("voice_settings")
