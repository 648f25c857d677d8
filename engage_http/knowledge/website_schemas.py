"""Request and response bodies of website entries (SPEC 4, `POST /knowledge-base/website`,
`GET /knowledge-base/{id}/status`)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import attrs

from engage_core.knowledge import model as domain
from engage_core.knowledge.crawling import DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES, MAX_DEPTH_RANGE, MAX_PAGES_RANGE
from engage_core.knowledge.website_service import WebsiteResult
from engage_core.knowledge.websites import PATHS_MAX, URL_MAX, Website, WebsiteInput, WebsiteStatus
from engage_http.constraints import Doc, Integer, Text
from engage_http.converter import structures_into
from engage_http.knowledge.schemas import KnowledgeBase, KnowledgeBaseStatus

CrawlStatus = Literal["pending", "crawling", "completed", "partial", "failed"]
Url = Annotated[str, Text(max_length=URL_MAX, blank=False, format="uri")]
Paths = Annotated[
    str,
    Text(max_length=PATHS_MAX),
    Doc(
        description="Comma-separated path prefixes, on segment boundaries (`/blog` covers `/blog/x`, not `/blogger`).",
        example="/blog, /docs/",
    ),
]


@structures_into(WebsiteInput)
@attrs.frozen
class WebsiteCreate:
    """A new website entry: its crawl is queued, and run by the worker."""

    title: Annotated[str, Text(max_length=domain.TITLE_MAX, blank=False)]
    website_url: Url = attrs.field(metadata={"description": "The start page: an http or https URL."})
    sitemap_url: Url | None = attrs.field(
        default=None, metadata={"description": "A sitemap to read besides the one robots.txt names."}
    )
    crawl_entire_site: bool = attrs.field(
        default=False,
        metadata={"description": "Follow links to every host of the site's domain, not only the start host."},
    )
    max_pages: Annotated[int, Integer(minimum=MAX_PAGES_RANGE[0], maximum=MAX_PAGES_RANGE[1])] = DEFAULT_MAX_PAGES
    max_depth: Annotated[int, Integer(minimum=MAX_DEPTH_RANGE[0], maximum=MAX_DEPTH_RANGE[1])] = DEFAULT_MAX_DEPTH
    allowed_paths: Paths | None = None
    excluded_paths: Paths | None = None
    description: Annotated[str, Text(max_length=domain.DESCRIPTION_MAX)] | None = None
    business_description: Annotated[str, Text(max_length=domain.BUSINESS_DESCRIPTION_MAX)] | None = None
    status: KnowledgeBaseStatus = "active"


@attrs.frozen
class WebsiteRecord:
    """A website entry's crawl (SPEC 2, Website record)."""

    id: int
    website_url: str
    crawl_status: CrawlStatus
    pages_crawled: int
    total_pages_found: int
    progress_pct: int
    crawl_error: str | None
    last_crawled_at: datetime | None

    @classmethod
    def from_domain(cls, website: Website) -> WebsiteRecord:
        return cls(
            id=website.id,
            website_url=website.website_url,
            crawl_status=website.crawl_status,  # type: ignore[arg-type]
            pages_crawled=website.pages_crawled,
            total_pages_found=website.total_pages_found,
            progress_pct=website.progress_pct,
            crawl_error=website.crawl_error,
            last_crawled_at=website.last_crawled_at,
        )


@attrs.frozen
class WebsiteEntry:
    """A website entry and its crawl."""

    knowledge_base: KnowledgeBase
    website: WebsiteRecord

    @classmethod
    def from_domain(cls, result: WebsiteResult) -> WebsiteEntry:
        return cls(KnowledgeBase.from_domain(result.knowledge_base), WebsiteRecord.from_domain(result.website))


@attrs.frozen
class CrawlStatusView:
    """How a website entry's crawl goes (`completed`: it has ended, whatever its outcome)."""

    id: int
    title: str
    type: Literal["website"]
    crawl_status: CrawlStatus
    pages_crawled: int
    total_pages: int
    progress_pct: int
    crawl_error: str | None
    last_crawled_at: datetime | None
    completed: bool

    @classmethod
    def from_domain(cls, status: WebsiteStatus) -> CrawlStatusView:
        return cls(
            id=status.id,
            title=status.title,
            type="website",
            crawl_status=status.crawl_status,  # type: ignore[arg-type]
            pages_crawled=status.pages_crawled,
            total_pages=status.total_pages,
            progress_pct=status.progress_pct,
            crawl_error=status.crawl_error,
            last_crawled_at=status.last_crawled_at,
            completed=status.completed,
        )


__all__ = ["CrawlStatusView", "WebsiteCreate", "WebsiteEntry", "WebsiteRecord"]
