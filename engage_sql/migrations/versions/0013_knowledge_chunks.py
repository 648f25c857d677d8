"""Knowledge-base chunks and their full-text index.

Revision ID: 0013
Revises: 0012
Create Date: 2027-01-20

`knowledge_base_chunks` holds the passages AI search ranks. The full-text index differs by dialect
and stays out of `engage_sql.areas.metadata` (`engage_sql.knowledge.search_index` names it):

- SQLite: an FTS5 table over the chunks' content, context header and keywords, with the chunks
  table as its external content (the text is stored once), tokenised by `unicode61
  remove_diacritics 2`, and kept in step by three triggers.
- PostgreSQL: a generated `tsvector` column (configuration `simple`, so Arabic and mixed text are
  indexed word for word; the context header weighs A, keywords B, content C) with a GIN index.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SQLITE_UP = (
    """CREATE VIRTUAL TABLE knowledge_base_chunks_fts USING fts5(
        content, context_header, keywords,
        content='knowledge_base_chunks', content_rowid='id',
        tokenize='unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER knowledge_base_chunks_fts_insert AFTER INSERT ON knowledge_base_chunks BEGIN
        INSERT INTO knowledge_base_chunks_fts (rowid, content, context_header, keywords)
        VALUES (new.id, new.content, new.context_header, new.keywords);
    END""",
    """CREATE TRIGGER knowledge_base_chunks_fts_delete AFTER DELETE ON knowledge_base_chunks BEGIN
        INSERT INTO knowledge_base_chunks_fts (knowledge_base_chunks_fts, rowid, content, context_header, keywords)
        VALUES ('delete', old.id, old.content, old.context_header, old.keywords);
    END""",
    """CREATE TRIGGER knowledge_base_chunks_fts_update
    AFTER UPDATE OF content, context_header, keywords ON knowledge_base_chunks BEGIN
        INSERT INTO knowledge_base_chunks_fts (knowledge_base_chunks_fts, rowid, content, context_header, keywords)
        VALUES ('delete', old.id, old.content, old.context_header, old.keywords);
        INSERT INTO knowledge_base_chunks_fts (rowid, content, context_header, keywords)
        VALUES (new.id, new.content, new.context_header, new.keywords);
    END""",
)
_SQLITE_DOWN = (
    "DROP TRIGGER knowledge_base_chunks_fts_update",
    "DROP TRIGGER knowledge_base_chunks_fts_delete",
    "DROP TRIGGER knowledge_base_chunks_fts_insert",
    "DROP TABLE knowledge_base_chunks_fts",
)
_POSTGRES_UP = (
    """ALTER TABLE knowledge_base_chunks ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', coalesce(context_header, '')), 'A')
        || setweight(to_tsvector('simple', coalesce(keywords::text, '')), 'B')
        || setweight(to_tsvector('simple', content), 'C')
    ) STORED""",
    "CREATE INDEX ix_knowledge_base_chunks_search_vector ON knowledge_base_chunks USING gin (search_vector)",
)


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def upgrade() -> None:
    op.create_table(
        "knowledge_base_chunks",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("knowledge_base_id", _id(), nullable=False),
        sa.Column("chunk_index", sa.Integer(), nullable=False),
        sa.Column("total_chunks", sa.Integer(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("context_header", sa.String(length=1000), nullable=True),
        sa.Column("keywords", sa.JSON(), nullable=True),
        sa.Column("char_count", sa.Integer(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_updated_at", _moment(), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "chunk_index >= 0 AND chunk_index < total_chunks", name=op.f("ck_knowledge_base_chunks_chunk_index")
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_knowledge_base_chunks_account_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "knowledge_base_id"],
            ["knowledge_base_entries.account_id", "knowledge_base_entries.id"],
            name=op.f("fk_knowledge_base_chunks_account_id_knowledge_base_id"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_base_chunks")),
        sa.UniqueConstraint("account_id", "id", name=op.f("uq_knowledge_base_chunks_account_id_id")),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_knowledge_base_chunks_account_id_knowledge_base_id_chunk_index"),
        "knowledge_base_chunks",
        ["account_id", "knowledge_base_id", "chunk_index"],
        unique=False,
    )
    for statement in _SQLITE_UP if op.get_bind().dialect.name == "sqlite" else _POSTGRES_UP:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in _SQLITE_DOWN:
            op.execute(statement)
    op.drop_table("knowledge_base_chunks")  # with its generated column and indexes on PostgreSQL
