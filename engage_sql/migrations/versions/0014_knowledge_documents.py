"""Documents of knowledge-base document entries, and voice notes of voice entries.

Revision ID: 0014
Revises: 0013
Create Date: 2027-01-27

`knowledge_base_documents` holds each uploaded file's outcome: its format, processing status, the
text read from it or the reason it could not be read; `knowledge_base_voice_notes` each recording's
transcription or the reason there is none. Self-contained on purpose: a migration
describes the schema as it was, so it spells out column types instead of importing the
application's (which will change).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "knowledge_base_documents",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("knowledge_base_id", _id(), nullable=False),
        sa.Column("original_name", sa.String(length=255), nullable=False),
        sa.Column("file_type", sa.String(length=16), nullable=False),
        sa.Column("processing_status", sa.String(length=16), nullable=False),
        sa.Column("extracted_content", sa.Text(), nullable=True),
        sa.Column("processing_error", sa.String(length=2000), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "processing_status IN ('pending', 'processing', 'completed', 'failed')",
            name=op.f("ck_knowledge_base_documents_processing_status"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_knowledge_base_documents_account_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "knowledge_base_id"],
            ["knowledge_base_entries.account_id", "knowledge_base_entries.id"],
            name=op.f("fk_knowledge_base_documents_account_id_knowledge_base_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_base_documents")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_knowledge_base_documents_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_knowledge_base_documents_account_id_knowledge_base_id_id"),
        "knowledge_base_documents",
        ["account_id", "knowledge_base_id", "id"],
        unique=False,
    )

    op.create_table(
        "knowledge_base_voice_notes",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("knowledge_base_id", _id(), nullable=False),
        sa.Column("original_name", sa.String(length=255), nullable=False),
        sa.Column("audio_format", sa.String(length=16), nullable=True),
        sa.Column("duration_seconds", sa.Float(), nullable=True),
        sa.Column("language", sa.String(length=8), nullable=True),
        sa.Column("transcription_status", sa.String(length=16), nullable=False),
        sa.Column("transcription", sa.Text(), nullable=True),
        sa.Column("transcription_error", sa.String(length=2000), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "transcription_status IN ('pending', 'processing', 'completed', 'failed')",
            name=op.f("ck_knowledge_base_voice_notes_transcription_status"),
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_knowledge_base_voice_notes_account_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "knowledge_base_id"],
            ["knowledge_base_entries.account_id", "knowledge_base_entries.id"],
            name=op.f("fk_knowledge_base_voice_notes_account_id_knowledge_base_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_base_voice_notes")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_knowledge_base_voice_notes_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_knowledge_base_voice_notes_account_id_knowledge_base_id_id"),
        "knowledge_base_voice_notes",
        ["account_id", "knowledge_base_id", "id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("knowledge_base_voice_notes")
    op.drop_table("knowledge_base_documents")
