"""The knowledge base's tables."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    Float,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

knowledge_base_entries = Table(
    "knowledge_base_entries",
    metadata,
    # What every entry type shares (SPEC 2, Knowledge base entry). A type's parts live in tables of
    # their own that point back here (`products` for `product_catalog`); `content` is the text of a
    # `text` entry, the one part small enough to sit on the entry itself.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("type", String(32), nullable=False),
    Column("title", String(255), nullable=False),
    Column("description", String(1000)),
    Column("business_description", String(5000)),
    Column("status", String(16), nullable=False),
    Column("content", Text()),
    Column("embedding_updated_at", UTCDateTime()),
    *timestamps(),
    CheckConstraint("type IN ('text', 'document', 'voice', 'product_catalog', 'website')", name="type"),
    CheckConstraint("status IN ('active', 'inactive')", name="status"),
    UniqueConstraint("account_id", "id"),
    # `GET /knowledge-base`: WHERE account_id = ? [AND type = ?] [AND status = ?].
    Index(None, "account_id", "type", "status"),
    sqlite_autoincrement=True,
)

knowledge_base_chunks = Table(
    "knowledge_base_chunks",
    metadata,
    # The passages AI search ranks (SPEC 2, Chunk), replaced as a whole when the entry's text
    # changes. The full-text index is not on `metadata`: migration 0012 creates it per dialect
    # (`engage_sql.knowledge.search_index`), an FTS5 table kept in step by triggers on SQLite and a
    # generated `search_vector` column with a GIN index on PostgreSQL.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("knowledge_base_id", Id, nullable=False),
    Column("chunk_index", Integer(), nullable=False),
    Column("total_chunks", Integer(), nullable=False),
    Column("content", Text(), nullable=False),
    Column("context_header", String(1000)),
    Column("keywords", JSON()),
    Column("char_count", Integer(), nullable=False),
    # No pgvector here: a vector is stored as little-endian float32 bytes; NULL until one is computed.
    Column("embedding", LargeBinary()),
    Column("embedding_updated_at", UTCDateTime()),
    *timestamps(),
    CheckConstraint("chunk_index >= 0 AND chunk_index < total_chunks", name="chunk_index"),
    owned_by_account("knowledge_base_id", "knowledge_base_entries"),
    UniqueConstraint("account_id", "id"),
    # `GET /knowledge-base/{id}/chunks`: WHERE account_id = ? AND knowledge_base_id = ? ORDER BY chunk_index.
    Index(None, "account_id", "knowledge_base_id", "chunk_index"),
    sqlite_autoincrement=True,
)

knowledge_base_documents = Table(
    "knowledge_base_documents",
    metadata,
    # The files of a `document` entry (SPEC 2, Document record): what was read from each, or why it
    # could not be. The file itself is not kept.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("knowledge_base_id", Id, nullable=False),
    Column("original_name", String(255), nullable=False),
    Column("file_type", String(16), nullable=False),
    Column("processing_status", String(16), nullable=False),
    Column("extracted_content", Text()),
    Column("processing_error", String(2000)),
    *timestamps(),
    CheckConstraint("processing_status IN ('pending', 'processing', 'completed', 'failed')", name="processing_status"),
    owned_by_account("knowledge_base_id", "knowledge_base_entries"),
    UniqueConstraint("account_id", "id"),
    # A document entry's files in upload order: WHERE account_id = ? AND knowledge_base_id = ? ORDER BY id.
    Index(None, "account_id", "knowledge_base_id", "id"),
    sqlite_autoincrement=True,
)

knowledge_base_voice_notes = Table(
    "knowledge_base_voice_notes",
    metadata,
    # The recording of a `voice` entry (SPEC 2, Voice note record): its transcription, or why there
    # is none. The recording itself is not kept.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("knowledge_base_id", Id, nullable=False),
    Column("original_name", String(255), nullable=False),
    Column("audio_format", String(16)),
    Column("duration_seconds", Float()),
    Column("language", String(8)),
    Column("transcription_status", String(16), nullable=False),
    Column("transcription", Text()),
    Column("transcription_error", String(2000)),
    *timestamps(),
    CheckConstraint(
        "transcription_status IN ('pending', 'processing', 'completed', 'failed')", name="transcription_status"
    ),
    owned_by_account("knowledge_base_id", "knowledge_base_entries"),
    UniqueConstraint("account_id", "id"),
    Index(None, "account_id", "knowledge_base_id", "id"),
    sqlite_autoincrement=True,
)
