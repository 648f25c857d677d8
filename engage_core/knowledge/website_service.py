"""Website entries: creating one (its crawl queued), crawling it again, and its crawl's status.

The entry, its website record and its crawl job are stored in one unit of work, so a crawl is
never lost nor run for an entry that does not exist. The request never fetches anything but DNS:
the start and sitemap URLs go through the SSRF guard (`TargetGuard`) first, and one that resolves
to an internal address is a 422.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import attrs

from engage_core.jobs.model import JobRequest
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Conflict, NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.validation import ErrorCollector, one_of, optional_text, required_text
from engage_core.knowledge.crawling import MAX_DEPTH_RANGE, MAX_PAGES_RANGE, parse_path_prefixes
from engage_core.knowledge.model import (
    BUSINESS_DESCRIPTION_MAX,
    DESCRIPTION_MAX,
    KB_STATUSES,
    TITLE_MAX,
    KnowledgeBaseDraft,
    KnowledgeBaseEntry,
)
from engage_core.knowledge.websites import (
    CRAWL_JOB,
    PATHS_MAX,
    URL_MAX,
    WEBSITE,
    Website,
    WebsiteDraft,
    WebsiteInput,
    WebsiteStatus,
    crawl_key,
)
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork
from engage_core.webhooks.ports import TargetGuard

STATUS_TYPES_MESSAGE = "status is available for website and document entries"


@attrs.frozen
class WebsiteResult:
    """A website entry and its record."""

    knowledge_base: KnowledgeBaseEntry
    website: Website


class WebsiteService:
    """Website entries. Methods that name an entry raise :class:`.NotFound` when it is not in the
    account, and :class:`.ValidationFailed` on `type` when it is not a website entry."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, guard: TargetGuard) -> None:
        self._uow = uow
        self._clock = clock
        self._guard = guard

    def create(self, account_id: int, data: WebsiteInput) -> WebsiteResult:
        """A new `website` entry, its record (`pending`) and its crawl job; emits
        `knowledge_base.created`. Invalid fields, or a URL the SSRF guard refuses, raise
        :class:`.ValidationFailed` and nothing is stored."""
        entry_draft, website_draft = self._drafts(data)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = uow.knowledge_base.add(entry_draft, now)
            website = uow.knowledge_websites.add(entry.id, website_draft, now)
            uow.jobs.enqueue(_crawl_request(entry.id), now)
            uow.emit(DomainEvent("knowledge_base.created", entry.event_payload(), now))
            uow.commit()
        return WebsiteResult(entry, website)

    def recrawl(self, account_id: int, knowledge_base_id: int) -> WebsiteResult:
        """Crawl the entry again from nothing: its record goes back to `pending` with nothing
        counted, its stored pages are forgotten and a crawl job is queued; its chunks and catalog
        stay until the new crawl ends. :class:`.Conflict` while a crawl is queued or under way."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry, website = _website(uow, knowledge_base_id)
            if website.running:
                raise Conflict(f"The website is being crawled ({website.crawl_status}); wait for the crawl to end.")
            website = uow.knowledge_websites.save(website.restarted(), now)
            uow.knowledge_websites.clear_pages(entry.id)
            uow.jobs.enqueue(_crawl_request(entry.id), now)
            uow.commit()
        return WebsiteResult(entry, website)

    def get(self, account_id: int, knowledge_base_id: int) -> WebsiteResult:
        """A website entry and its record."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            entry, website = _website(uow, knowledge_base_id)
        return WebsiteResult(entry, website)

    def status(self, account_id: int, knowledge_base_id: int) -> WebsiteStatus:
        """The crawl's status (`GET /knowledge-base/{id}/status`). Another type of entry raises
        :class:`.ValidationFailed` on `type`."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            entry = uow.knowledge_base.get(knowledge_base_id)
            if entry is None:
                raise NotFound("Knowledge base entry")
            website = uow.knowledge_websites.get(entry.id) if entry.type == WEBSITE else None
        if website is None:
            raise ValidationFailed.on("type", STATUS_TYPES_MESSAGE)
        return WebsiteStatus(
            id=entry.id,
            title=entry.title,
            type=entry.type,
            crawl_status=website.crawl_status,
            pages_crawled=website.pages_crawled,
            total_pages=website.total_pages_found,
            progress_pct=website.progress_pct,
            crawl_error=website.crawl_error,
            last_crawled_at=website.last_crawled_at,
            completed=website.completed,
        )

    def _drafts(self, data: WebsiteInput) -> tuple[KnowledgeBaseDraft, WebsiteDraft]:
        errors = ErrorCollector()
        title = errors.run(lambda: required_text("title", data.title, max_length=TITLE_MAX))
        description = errors.run(lambda: optional_text("description", data.description, max_length=DESCRIPTION_MAX))
        business = errors.run(
            lambda: optional_text(
                "business_description", data.business_description, max_length=BUSINESS_DESCRIPTION_MAX
            )
        )
        status = errors.run(lambda: one_of("status", data.status, KB_STATUSES))
        url = errors.run(lambda: self._url("website_url", data.website_url))
        sitemap = errors.run(lambda: None if not data.sitemap_url else self._url("sitemap_url", data.sitemap_url))
        max_pages = errors.run(lambda: _bounded("max_pages", data.max_pages, MAX_PAGES_RANGE))
        max_depth = errors.run(lambda: _bounded("max_depth", data.max_depth, MAX_DEPTH_RANGE))
        allowed = errors.run(lambda: _prefixes("allowed_paths", data.allowed_paths))
        excluded = errors.run(lambda: _prefixes("excluded_paths", data.excluded_paths))
        errors.raise_if_any()
        assert title is not None and status is not None and url is not None
        assert max_pages is not None and max_depth is not None and allowed is not None and excluded is not None
        return (
            KnowledgeBaseDraft(title, WEBSITE, description, business, status),
            WebsiteDraft(url, sitemap, bool(data.crawl_entire_site), max_pages, max_depth, allowed, excluded),
        )

    def _url(self, field: str, value: str) -> str:
        url = (value or "").strip()
        if not url:
            raise ValidationFailed.on(field, f"{field} is required.")
        if len(url) > URL_MAX:
            raise ValidationFailed.on(field, f"{field} must be at most {URL_MAX} characters.")
        try:
            parts = urlsplit(url)
            _port_of(parts.netloc)
        except ValueError:
            raise ValidationFailed.on(field, f"{field} is not a valid URL.") from None
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValidationFailed.on(field, f"{field} must be an http or https URL with a host.")
        if parts.username or parts.password:
            raise ValidationFailed.on(field, f"{field} must not hold credentials.")
        refusal = self._guard.refusal(url)
        if refusal is not None:
            raise ValidationFailed.on(field, f"{field} cannot be crawled: {refusal}")
        return url


def _port_of(netloc: str) -> int | None:
    """The port of a URL's network location; ValueError when it is no port (`:x`, out of range)."""
    return urlsplit(f"//{netloc}").port


def _crawl_request(entry_id: int) -> JobRequest:
    return JobRequest(CRAWL_JOB, {"knowledge_base_id": entry_id}, key=crawl_key(entry_id))


def _website(uow: WorkspaceUnitOfWork, knowledge_base_id: int) -> tuple[KnowledgeBaseEntry, Website]:
    entry = uow.knowledge_base.get(knowledge_base_id)
    if entry is None:
        raise NotFound("Knowledge base entry")
    website = uow.knowledge_websites.get(entry.id) if entry.type == WEBSITE else None
    if website is None:
        raise ValidationFailed.on("type", f"The knowledge base entry is a {entry.type} entry, not a website.")
    return entry, website


def _bounded(field: str, value: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValidationFailed.on(field, f"{field} must be an integer from {low} to {high}.")
    return value


def _prefixes(field: str, text: str | None) -> tuple[str, ...]:
    if text is not None and len(text) > PATHS_MAX:
        raise ValidationFailed.on(field, f"{field} must be at most {PATHS_MAX} characters.")
    return parse_path_prefixes(text)
