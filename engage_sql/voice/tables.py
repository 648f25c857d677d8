"""Voice's tables."""

from __future__ import annotations

from sqlalchemy import Boolean, CheckConstraint, Column, Float, ForeignKey, Index, String, Table, Text, UniqueConstraint

from engage_sql.schema import account_id, metadata
from engage_sql.types import Id, UTCDateTime

voice_settings = Table(
    "voice_settings",
    metadata,
    # One row per workspace (SPEC 2 Voice settings), its cloned voice (`clone_*`, all null without
    # one), its clone sample in the blob store, and the seconds synthesised in `usage_month`.
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("enabled", Boolean(), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("preset_voice", String(32)),
    Column("preset_language", String(35), nullable=False),
    Column("preset_style_prompt", Text()),
    Column("language", String(2), nullable=False),
    Column("dialect", String(3), nullable=False),
    Column("clone_voice_id", String(255)),
    Column("clone_name", String(100)),
    Column("clone_language", String(2)),
    Column("clone_dialect", String(3)),
    Column("clone_gender", String(6)),
    Column("clone_style", String(16)),
    Column("sample_key", String(255)),
    Column("preloaded_at", UTCDateTime()),
    Column("usage_month", UTCDateTime()),
    Column("seconds_used", Float(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    CheckConstraint("mode IN ('preset', 'clone')", name="mode"),
    CheckConstraint("seconds_used >= 0", name="seconds_used"),
)

voice_speech_cache = Table(
    "voice_speech_cache",
    metadata,
    # Synthesised audio by `cache_key` (a hash of engine, voice, language, dialect, style and text):
    # the same speech is served from `storage_key` instead of being synthesised again.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("cache_key", String(64), nullable=False),
    Column("storage_key", String(255), nullable=False),
    Column("duration_seconds", Float(), nullable=False),
    Column("language", String(2), nullable=False),
    Column("dialect", String(3)),
    Column("dialect_fallback", Boolean(), nullable=False),
    Column("cloned", Boolean(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    UniqueConstraint("account_id", "cache_key"),
    UniqueConstraint("storage_key"),
    Index(None, "account_id", "cloned"),
    sqlite_autoincrement=True,
)
