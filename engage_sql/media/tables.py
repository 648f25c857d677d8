"""The media library's tables."""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, CheckConstraint, Column, Index, String, Table, Text, UniqueConstraint

from engage_sql.schema import account_id, metadata, timestamps
from engage_sql.types import Id, UTCDateTime

media_files = Table(
    "media_files",
    metadata,
    # SPEC 2 Media file. `storage_key` names the object in the blob store (its URL is computed when
    # read); `name_key` and `original_name_key` are the folded names `GET /media?search=` matches.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("name", String(255), nullable=False),
    Column("name_key", Text(), nullable=False),
    Column("original_name", String(255), nullable=False),
    Column("original_name_key", Text(), nullable=False),
    Column("storage_key", String(255), nullable=False),
    Column("file_type", String(16), nullable=False),
    Column("mime_type", String(64), nullable=False),
    Column("extension", String(8), nullable=False),
    Column("file_size", Id, nullable=False),
    Column("metadata", JSON()),
    Column("uploaded_by", String(16), nullable=False),
    Column("is_active", Boolean(), nullable=False),
    *timestamps(),
    CheckConstraint("file_type IN ('image', 'video')", name="file_type"),
    CheckConstraint("uploaded_by IN ('client', 'admin')", name="uploaded_by"),
    CheckConstraint("file_size >= 0", name="file_size"),
    UniqueConstraint("storage_key"),
    # `GET /media`: WHERE account_id = ? [AND file_type = ?] ORDER BY created_at DESC, id DESC.
    Index(None, "account_id", "file_type", "created_at", "id"),
    Index(None, "account_id", "created_at", "id"),
    sqlite_autoincrement=True,
)

media_blob_removals = Table(
    "media_blob_removals",
    metadata,
    # Stored objects to remove once `remove_after` has passed, unless cancelled first
    # (`engage_core.media.ports.BlobRemovalRepository`): an upload's until its row is added, a
    # deleted file's until the object is gone.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("storage_key", String(255), nullable=False),
    Column("remove_after", UTCDateTime(), nullable=False),
    UniqueConstraint("storage_key"),
    # The sweep: WHERE account_id = ? AND remove_after <= ? ORDER BY remove_after.
    Index(None, "account_id", "remove_after"),
    sqlite_autoincrement=True,
)
