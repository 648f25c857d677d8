"""Website entries: their records and the pages their crawls stored.

Revision ID: 0015
Revises: 0014
Create Date: 2027-01-27

`knowledge_base_websites` holds one record per `website` entry (what to crawl, how the crawl
goes); `knowledge_base_website_pages` the pages a crawl read, each URL once per entry, so a crawl
resumed after a crash never stores a page twice.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _moment() -> sa.DateTime:
    return sa.DateTime(timezone=True)  # engage_sql.types.UTCDateTime stores into this


def _owned(table: str) -> tuple[sa.ForeignKeyConstraint, sa.ForeignKeyConstraint]:
    return (
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f(f"fk_{table}_account_id"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["account_id", "knowledge_base_id"],
            ["knowledge_base_entries.account_id", "knowledge_base_entries.id"],
            name=op.f(f"fk_{table}_account_id_knowledge_base_id"),
            ondelete="CASCADE",
        ),
    )


def upgrade() -> None:
    op.create_table(
        "knowledge_base_websites",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("knowledge_base_id", _id(), nullable=False),
        sa.Column("website_url", sa.String(length=2048), nullable=False),
        sa.Column("sitemap_url", sa.String(length=2048), nullable=True),
        sa.Column("crawl_entire_site", sa.Boolean(), nullable=False),
        sa.Column("max_pages", sa.Integer(), nullable=False),
        sa.Column("max_depth", sa.Integer(), nullable=False),
        sa.Column("allowed_paths", sa.JSON(), nullable=False),
        sa.Column("excluded_paths", sa.JSON(), nullable=False),
        sa.Column("crawl_status", sa.String(length=16), nullable=False),
        sa.Column("pages_crawled", sa.Integer(), nullable=False),
        sa.Column("pages_failed", sa.Integer(), nullable=False),
        sa.Column("total_pages_found", sa.Integer(), nullable=False),
        sa.Column("progress_pct", sa.Integer(), nullable=False),
        sa.Column("crawl_error", sa.String(length=1000), nullable=True),
        sa.Column("last_crawled_at", _moment(), nullable=True),
        sa.Column("catalog_id", _id(), nullable=True),
        sa.Column("created_at", _moment(), nullable=False),
        sa.Column("updated_at", _moment(), nullable=False),
        sa.CheckConstraint(
            "crawl_status IN ('pending', 'crawling', 'completed', 'partial', 'failed')",
            name=op.f("ck_knowledge_base_websites_crawl_status"),
        ),
        sa.CheckConstraint(
            "progress_pct >= 0 AND progress_pct <= 100", name=op.f("ck_knowledge_base_websites_progress_pct")
        ),
        *_owned("knowledge_base_websites"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_base_websites")),
        sa.UniqueConstraint(
            "account_id", "knowledge_base_id", name=op.f("uq_knowledge_base_websites_account_id_knowledge_base_id")
        ),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "knowledge_base_website_pages",
        sa.Column("id", _id(), nullable=False),
        sa.Column("account_id", _id(), nullable=False),
        sa.Column("knowledge_base_id", _id(), nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("title", sa.String(length=1000), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("links", sa.JSON(), nullable=False),
        sa.Column("products", sa.JSON(), nullable=False),
        sa.Column("depth", sa.Integer(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.Column("created_at", _moment(), nullable=False),
        *_owned("knowledge_base_website_pages"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_base_website_pages")),
        sa.UniqueConstraint(
            "account_id",
            "knowledge_base_id",
            "url",
            name=op.f("uq_knowledge_base_website_pages_account_id_knowledge_base_id_url"),
        ),
        sqlite_autoincrement=True,
    )
    op.create_index(
        op.f("ix_knowledge_base_website_pages_account_id_knowledge_base_id_id"),
        "knowledge_base_website_pages",
        ["account_id", "knowledge_base_id", "id"],
        unique=False,
    )


def downgrade() -> None:
    op.drop_table("knowledge_base_website_pages")
    op.drop_table("knowledge_base_websites")
