"""The tables of website entries: their records and the pages their crawls stored."""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, CheckConstraint, Column, Index, Integer, String, Table, Text, UniqueConstraint

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

knowledge_base_websites = Table(
    "knowledge_base_websites",
    metadata,
    # One per `website` entry (SPEC 2, Website record): what to crawl and how the crawl goes.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("knowledge_base_id", Id, nullable=False),
    Column("website_url", String(2048), nullable=False),
    Column("sitemap_url", String(2048)),
    Column("crawl_entire_site", Boolean(), nullable=False),
    Column("max_pages", Integer(), nullable=False),
    Column("max_depth", Integer(), nullable=False),
    Column("allowed_paths", JSON(), nullable=False),
    Column("excluded_paths", JSON(), nullable=False),
    Column("crawl_status", String(16), nullable=False),
    Column("pages_crawled", Integer(), nullable=False),
    Column("pages_failed", Integer(), nullable=False),
    Column("total_pages_found", Integer(), nullable=False),
    Column("progress_pct", Integer(), nullable=False),
    Column("crawl_error", String(1000)),
    Column("last_crawled_at", UTCDateTime()),
    # The `product_catalog` entry the crawl's products went to; no foreign key: deleting that
    # entry leaves this pointing nowhere, and the next crawl that finds products makes a new one.
    Column("catalog_id", Id),
    *timestamps(),
    CheckConstraint("crawl_status IN ('pending', 'crawling', 'completed', 'partial', 'failed')", name="crawl_status"),
    CheckConstraint("progress_pct >= 0 AND progress_pct <= 100", name="progress_pct"),
    owned_by_account("knowledge_base_id", "knowledge_base_entries"),
    UniqueConstraint("account_id", "knowledge_base_id"),
    sqlite_autoincrement=True,
)

knowledge_base_website_pages = Table(
    "knowledge_base_website_pages",
    metadata,
    # A page a crawl read, kept until the next crawl of its entry; its URL (normalised) once per entry,
    # so a resumed crawl never stores a page twice.
    Column("id", Id, primary_key=True),
    account_id(),
    Column("knowledge_base_id", Id, nullable=False),
    Column("url", String(2048), nullable=False),
    Column("title", String(1000)),
    Column("text", Text(), nullable=False),
    Column("links", JSON(), nullable=False),
    Column("products", JSON(), nullable=False),
    Column("depth", Integer(), nullable=False),
    Column("truncated", Boolean(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    owned_by_account("knowledge_base_id", "knowledge_base_entries"),
    UniqueConstraint("account_id", "knowledge_base_id", "url"),
    Index(None, "account_id", "knowledge_base_id", "id"),
    sqlite_autoincrement=True,
)
