"""Website entries (SPEC 2, Website record; SPEC 3, crawl states; SPEC 4, `POST /knowledge-base/website`).

A `website` entry has one `Website` record: what to crawl (its `CrawlPlan`) and how the crawl went
(`crawl_status`, counts, `progress_pct`, `crawl_error`, `last_crawled_at`). The crawl itself is a
durable job (`CRAWL_JOB`, keyed `entry:<id>`), queued with the entry and run by the worker
(`engage_core.knowledge.crawl_job`); each page it reads is stored as a `StoredPage`, so a crawl
cut short resumes from them and never stores a page twice. When it ends, the entry's chunks are
made from all its pages, and products found on them go to a separate `product_catalog` entry
(`catalog_id`), created on the first crawl that finds any and added to by later ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

import attrs

from engage_core.kernel.clock import format_timestamp
from engage_core.knowledge.crawling import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_PAGES,
    FINAL_STATUSES,
    CrawlPlan,
    CrawlTally,
    FoundProduct,
)

WEBSITE = "website"
"""The entry type a website record belongs to."""

CRAWL_JOB = "knowledge_base.crawl"
"""The job kind of a crawl; its key is `entry:<knowledge_base_id>`."""
URL_MAX = 2048
PATHS_MAX = 1000
CRAWL_ERROR_MAX = 1000
RUNNING_STATUSES = frozenset({"pending", "crawling"})


def crawl_key(entry_id: int) -> str:
    """The crawl job's key for entry `entry_id`: one crawl of an entry at a time."""
    return f"entry:{entry_id}"


@attrs.frozen
class WebsiteInput:
    """The fields of `POST /knowledge-base/website`, as received."""

    title: str
    website_url: str
    sitemap_url: str | None = None
    crawl_entire_site: bool = False
    max_pages: int = DEFAULT_MAX_PAGES
    max_depth: int = DEFAULT_MAX_DEPTH
    allowed_paths: str | None = None
    excluded_paths: str | None = None
    description: str | None = None
    business_description: str | None = None
    status: str = "active"


@attrs.frozen
class WebsiteDraft:
    """A validated website record, before it is stored (its crawl `pending`, nothing counted)."""

    website_url: str
    sitemap_url: str | None = None
    crawl_entire_site: bool = False
    max_pages: int = DEFAULT_MAX_PAGES
    max_depth: int = DEFAULT_MAX_DEPTH
    allowed_paths: tuple[str, ...] = ()
    excluded_paths: tuple[str, ...] = ()


@attrs.frozen
class Website:
    """A website entry's record (SPEC 2). `pages_failed` counts the pages that could not be read in
    the current crawl; `catalog_id` is the `product_catalog` entry its products went to, if any."""

    id: int
    knowledge_base_id: int
    website_url: str
    sitemap_url: str | None
    crawl_entire_site: bool
    max_pages: int
    max_depth: int
    allowed_paths: tuple[str, ...]
    excluded_paths: tuple[str, ...]
    crawl_status: str
    pages_crawled: int
    pages_failed: int
    total_pages_found: int
    progress_pct: int
    crawl_error: str | None
    last_crawled_at: datetime | None
    catalog_id: int | None
    created_at: datetime
    updated_at: datetime

    @property
    def plan(self) -> CrawlPlan:
        """What the crawler is asked to do."""
        return CrawlPlan(
            start_url=self.website_url,
            max_pages=self.max_pages,
            max_depth=self.max_depth,
            entire_site=self.crawl_entire_site,
            allowed_paths=self.allowed_paths,
            excluded_paths=self.excluded_paths,
            sitemap_url=self.sitemap_url,
        )

    @property
    def running(self) -> bool:
        """A crawl is queued or under way."""
        return self.crawl_status in RUNNING_STATUSES

    @property
    def completed(self) -> bool:
        """The crawl has ended, whatever its outcome."""
        return self.crawl_status in FINAL_STATUSES

    def tallied(self, tally: CrawlTally) -> Website:
        """This record with `tally`'s status and counts."""
        return attrs.evolve(
            self,
            crawl_status=tally.status,
            pages_crawled=tally.pages_crawled,
            pages_failed=tally.pages_failed,
            total_pages_found=tally.total_pages_found,
            progress_pct=tally.percent,
        )

    def restarted(self) -> Website:
        """This record as a new crawl starts it: `pending`, nothing counted, no error."""
        return attrs.evolve(
            self,
            crawl_status="pending",
            pages_crawled=0,
            pages_failed=0,
            total_pages_found=0,
            progress_pct=0,
            crawl_error=None,
        )


@attrs.frozen
class StoredPage:
    """A crawled page as kept: its normalised `url` (unique within the entry), what was read of it,
    the in-scope `links` it holds (to resume a crawl without losing what it would discover) and the
    products it declares (gathered into the catalog when the crawl ends)."""

    url: str
    title: str | None
    text: str
    depth: int
    links: tuple[str, ...] = ()
    truncated: bool = False
    products: tuple[FoundProduct, ...] = ()


@attrs.frozen
class WebsiteStatus:
    """`GET /knowledge-base/{id}/status` of a website entry."""

    id: int
    title: str
    type: str
    crawl_status: str
    pages_crawled: int
    total_pages: int
    progress_pct: int
    crawl_error: str | None
    last_crawled_at: datetime | None
    completed: bool


def processing_payload(entry_id: int, title: str, website: Website, now: datetime) -> Mapping[str, Any]:
    """`knowledge_base.processing.completed` / `.failed` data of a crawl (SPEC 6)."""
    return {
        "knowledge_base_id": entry_id,
        "title": title,
        "type": "website",
        "item_id": website.id,
        "error": website.crawl_error,
        "occurred_at": format_timestamp(now),
        "website_url": website.website_url,
        "crawl_status": website.crawl_status,
        "pages_crawled": website.pages_crawled,
    }


class WebsiteRepository(Protocol):
    """The website records of one account's entries, and the pages their crawls stored."""

    def add(self, knowledge_base_id: int, draft: WebsiteDraft, now: datetime) -> Website:
        """Store the record of a new website entry, its crawl `pending`."""

    def get(self, knowledge_base_id: int) -> Website | None:
        """The record of website entry `knowledge_base_id`, or None."""

    def save(self, website: Website, now: datetime) -> Website:
        """Store the record's crawl fields (status, counts, error, `last_crawled_at`, `catalog_id`)."""

    def add_page(self, knowledge_base_id: int, page: StoredPage, now: datetime) -> bool:
        """Keep a crawled page; False (and nothing changes) when the entry already holds its URL."""

    def pages(self, knowledge_base_id: int) -> Sequence[StoredPage]:
        """The entry's stored pages, in the order they were stored."""

    def clear_pages(self, knowledge_base_id: int) -> None:
        """Forget the entry's stored pages (a new crawl starts from nothing)."""


class WebsiteRepositories(Protocol):
    """The website records, as a workspace unit of work hands them out."""

    @property
    def knowledge_websites(self) -> WebsiteRepository:
        """The website records and their crawled pages."""
