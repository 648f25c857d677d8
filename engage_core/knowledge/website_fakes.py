"""In-memory fakes of the website records, and a scripted `Crawler`."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime

import attrs

from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.knowledge.crawling import (
    CrawledPage,
    CrawlOutcome,
    CrawlPlan,
    CrawlTally,
    OnFailure,
    OnPage,
    PageFailure,
)
from engage_core.knowledge.websites import StoredPage, Website, WebsiteDraft


@attrs.define
class WebsiteTables(Tables):
    """Website records by entry id, and each entry's pages by URL (in the order stored)."""

    knowledge_base_websites: dict[int, tuple[int, Website]] = attrs.Factory(dict)
    knowledge_base_website_pages: dict[int, dict[str, StoredPage]] = attrs.Factory(dict)
    MUTABLE_ROWS = frozenset({"knowledge_base_website_pages"})

    def forget(self, kind: str, ident: int) -> None:
        if kind == "knowledge_base":
            self.knowledge_base_websites.pop(ident, None)
            self.knowledge_base_website_pages.pop(ident, None)


class InMemoryWebsiteRepository(Repo):
    """The in-memory :class:`.WebsiteRepository`."""

    @property
    def _t(self) -> WebsiteTables:
        """This area's tables, as the transaction sees them."""
        return self._state.of(WebsiteTables)

    def add(self, knowledge_base_id: int, draft: WebsiteDraft, now: datetime) -> Website:
        """In memory, as :meth:`.WebsiteRepository.add`."""
        website = Website(
            id=self._store.next_id(),
            knowledge_base_id=knowledge_base_id,
            website_url=draft.website_url,
            sitemap_url=draft.sitemap_url,
            crawl_entire_site=draft.crawl_entire_site,
            max_pages=draft.max_pages,
            max_depth=draft.max_depth,
            allowed_paths=draft.allowed_paths,
            excluded_paths=draft.excluded_paths,
            crawl_status="pending",
            pages_crawled=0,
            pages_failed=0,
            total_pages_found=0,
            progress_pct=0,
            crawl_error=None,
            last_crawled_at=None,
            catalog_id=None,
            created_at=now,
            updated_at=now,
        )
        self._t.knowledge_base_websites[knowledge_base_id] = (self._account, website)
        return website

    def get(self, knowledge_base_id: int) -> Website | None:
        """In memory, as :meth:`.WebsiteRepository.get`."""
        row = self._t.knowledge_base_websites.get(knowledge_base_id)
        return None if row is None or row[0] != self._account else row[1]

    def save(self, website: Website, now: datetime) -> Website:
        """In memory, as :meth:`.WebsiteRepository.save`."""
        current = self.get(website.knowledge_base_id)
        if current is None:
            return website
        saved = attrs.evolve(website, updated_at=now)
        self._t.knowledge_base_websites[website.knowledge_base_id] = (self._account, saved)
        return saved

    def add_page(self, knowledge_base_id: int, page: StoredPage, now: datetime) -> bool:
        """In memory, as :meth:`.WebsiteRepository.add_page`."""
        if self.get(knowledge_base_id) is None:
            return False
        pages = self._t.knowledge_base_website_pages.setdefault(knowledge_base_id, {})
        if page.url in pages:
            return False
        pages[page.url] = page
        return True

    def pages(self, knowledge_base_id: int) -> Sequence[StoredPage]:
        """In memory, as :meth:`.WebsiteRepository.pages`."""
        if self.get(knowledge_base_id) is None:
            return []
        return list(self._t.knowledge_base_website_pages.get(knowledge_base_id, {}).values())

    def clear_pages(self, knowledge_base_id: int) -> None:
        """In memory, as :meth:`.WebsiteRepository.clear_pages`."""
        if self.get(knowledge_base_id) is not None:
            self._t.knowledge_base_website_pages.pop(knowledge_base_id, None)


class ScriptedCrawler:
    """A `Crawler` that reports scripted pages and failures in order, honouring `max_pages`,
    `already_done` (skipped, counted as crawled) and `should_stop` (asked before each page). Pages
    come first, then failures; `forbidden` answers as a start page robots.txt forbids."""

    def __init__(
        self,
        pages: Sequence[CrawledPage] = (),
        failures: Sequence[PageFailure] = (),
        *,
        forbidden: bool = False,
    ) -> None:
        self.pages = list(pages)
        self.failures = list(failures)
        self.forbidden = forbidden
        self.calls: list[tuple[CrawlPlan, frozenset[str]]] = []
        """Each call's plan and `already_done`."""

    def crawl(
        self,
        plan: CrawlPlan,
        *,
        on_page: OnPage,
        on_failure: OnFailure,
        should_stop: Callable[[], bool] = lambda: False,
        already_done: Collection[str] = frozenset(),
        known_links: Mapping[str, Sequence[str]] = {},
    ) -> CrawlOutcome:
        """Report the script as :meth:`.Crawler.crawl` would."""
        done = frozenset(already_done)
        self.calls.append((plan, done))
        tally = CrawlTally(plan.max_pages).started(already_done=len(done))
        if self.forbidden:
            return self._outcome(tally.finished(start_forbidden=True), "robots.txt forbids the start page.")
        urls = {page.url for page in self.pages} | {failure.url for failure in self.failures} | set(done)
        tally = tally.found(min(len(urls), plan.max_pages))
        stopped = False
        for page in self.pages:
            if page.url in done:
                continue
            if not tally.has_room:
                break
            if should_stop():
                stopped = True
                break
            tally = tally.crawled()
            on_page(page, tally.progress)
        for failure in self.failures:
            if stopped or not tally.has_room:
                break
            tally = tally.failed()
            on_failure(failure, tally.progress)
        error = None if not self.failures else f"{len(self.failures)} page(s) could not be crawled."
        return self._outcome(tally.finished(stopped=stopped), error, stopped=stopped)

    @staticmethod
    def _outcome(tally: CrawlTally, error: str | None, *, stopped: bool = False) -> CrawlOutcome:
        return CrawlOutcome(
            status=tally.status,
            pages_crawled=tally.pages_crawled,
            pages_failed=tally.pages_failed,
            pages_skipped=0,
            total_pages_found=tally.total_pages_found,
            progress=tally.progress,
            error=None if tally.status == "completed" else (error or "No page could be crawled."),
            stopped=stopped,
        )


AREA = FakeArea(WebsiteTables, workspace={"knowledge_websites": InMemoryWebsiteRepository})
