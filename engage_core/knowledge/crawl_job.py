"""The crawl job (`knowledge_base.crawl`): a website entry's crawl, run by the worker.

Every step is a short transaction; the crawler's network I/O runs between them, never inside one:

1. start: the record becomes `crawling`; the pages an earlier attempt stored (a worker that died,
   or stopped, mid-crawl) are handed to the crawler as `already_done` with their `known_links`, so
   no page is fetched or stored twice;
2. each page: stored (unless its URL already is) with the record's counts and progress;
   each failure: the record's counts;
3. end: the entry's chunks are made again from all its pages (one `replace`, each page's title
   as its context header), products found go to the entry's `product_catalog` entry (created by
   the first crawl that finds any), the record gets its final status, `crawl_error` and
   `last_crawled_at`, and `knowledge_base.processing.completed` (or `.failed`) is emitted.

A crawl whose last allowed attempt raises (a bug, the database gone for good) ends `failed` with
the error, so that it can be crawled again. A worker shutting down (`JobContext.stopping()`)
stops the crawl between pages; the job defers itself (`RetryLater(0)`) and the next worker resumes
it. A lost lease stops it too, recording nothing more. An entry deleted mid-crawl ends the job quietly.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from datetime import datetime

import attrs

from engage_core.commerce.products import ProductDraft, ProductInput, validate_product
from engage_core.jobs.model import RetryLater
from engage_core.jobs.runner import JobContext
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.knowledge.catalog_chunks import rechunk_catalog
from engage_core.knowledge.chunking import ChunkDraft, chunk_text
from engage_core.knowledge.crawling import (
    CrawledPage,
    Crawler,
    CrawlOutcome,
    CrawlProgress,
    CrawlTally,
    FoundProduct,
    PageFailure,
)
from engage_core.knowledge.embedding_jobs import NO_EMBEDDINGS, EmbeddingQueue
from engage_core.knowledge.model import TITLE_MAX, KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_core.knowledge.websites import CRAWL_ERROR_MAX, StoredPage, Website, processing_payload
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

logger = logging.getLogger("engage.knowledge.crawl")

CATALOG_SUFFIX = " products"


@attrs.frozen
class _Start:
    title: str
    website: Website
    done: frozenset[str]
    links: dict[str, tuple[str, ...]]


class CrawlJob:
    """The handler of `knowledge_base.crawl` jobs (payload: `knowledge_base_id`)."""

    def __init__(
        self, uow: UnitOfWorkFactory, clock: Clock, crawler: Crawler, embeddings: EmbeddingQueue = NO_EMBEDDINGS
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._crawler = crawler
        self._embeddings = embeddings

    def __call__(self, context: JobContext) -> None:
        """Run (or resume) the crawl of the job's entry, as the module notes say."""
        account_id = context.account_id
        entry_id = int(str(context.payload["knowledge_base_id"]))
        start = self._start(account_id, entry_id)
        if start is None:
            return
        failures = 0

        def on_page(page: CrawledPage, progress: CrawlProgress) -> None:
            if not context.lost():
                self._store_page(account_id, entry_id, page, progress, failures)

        def on_failure(failure: PageFailure, progress: CrawlProgress) -> None:
            nonlocal failures
            failures += 1
            logger.info("Crawl of entry %d: %s failed (%s).", entry_id, failure.url, failure.reason)
            if not context.lost():
                self._store_progress(account_id, entry_id, progress, failures)

        try:
            outcome = self._crawler.crawl(
                start.website.plan,
                on_page=on_page,
                on_failure=on_failure,
                should_stop=lambda: context.stopping() or context.lost(),
                already_done=start.done,
                known_links=start.links,
            )
        except Exception as exc:
            if context.claim.attempt >= context.claim.max_attempts and not context.lost():
                self._give_up(account_id, entry_id, exc)  # the job fails now: the crawl must not stay `crawling`
            raise
        context.check()
        if outcome.stopped and context.stopping():
            raise RetryLater(0, "The worker stopped mid-crawl; the next one resumes it from the pages stored.")
        self._finish(account_id, entry_id, outcome)

    def _give_up(self, account_id: int, entry_id: int, exc: Exception) -> None:
        """End the crawl `failed` after its last attempt raised, keeping the pages read and announcing it."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = uow.knowledge_base.get(entry_id)
            website = None if entry is None else uow.knowledge_websites.get(entry_id)
            if entry is None or website is None or website.completed:
                return
            error = f"The crawl failed: {type(exc).__name__}: {exc}"[:CRAWL_ERROR_MAX]
            website = uow.knowledge_websites.save(
                attrs.evolve(website, crawl_status="failed", progress_pct=100, crawl_error=error, last_crawled_at=now),
                now,
            )
            uow.emit(
                DomainEvent(
                    "knowledge_base.processing.failed", processing_payload(entry.id, entry.title, website, now), now
                )
            )
            uow.commit()

    def _start(self, account_id: int, entry_id: int) -> _Start | None:
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = uow.knowledge_base.get(entry_id)
            website = None if entry is None else uow.knowledge_websites.get(entry_id)
            if entry is None or website is None or website.completed:
                return None  # deleted, or ended by an attempt whose success was not recorded
            pages = uow.knowledge_websites.pages(entry_id)
            tally = CrawlTally(website.max_pages).started(already_done=len(pages))
            tally = tally.found(max(website.total_pages_found, len(pages)))
            website = uow.knowledge_websites.save(website.tallied(tally), now)
            uow.commit()
        return _Start(
            title=entry.title,
            website=website,
            done=frozenset(page.url for page in pages),
            links={page.url: page.links for page in pages},
        )

    def _store_page(
        self, account_id: int, entry_id: int, page: CrawledPage, progress: CrawlProgress, failures: int
    ) -> None:
        now = self._clock.now()
        stored = StoredPage(
            url=page.url,
            title=page.title,
            text=page.text,
            depth=page.depth,
            links=tuple(page.links),
            truncated=page.truncated,
            products=tuple(page.products),
        )
        with self._uow.workspace(account_id) as uow:
            uow.knowledge_websites.add_page(entry_id, stored, now)
            _save_progress(uow, entry_id, progress, failures, now)
            uow.commit()

    def _store_progress(self, account_id: int, entry_id: int, progress: CrawlProgress, failures: int) -> None:
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _save_progress(uow, entry_id, progress, failures, now)
            uow.commit()

    def _finish(self, account_id: int, entry_id: int, outcome: CrawlOutcome) -> None:
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = uow.knowledge_base.get(entry_id)
            website = None if entry is None else uow.knowledge_websites.get(entry_id)
            if entry is None or website is None:
                return
            pages = uow.knowledge_websites.pages(entry_id)
            uow.knowledge_chunks.replace(entry_id, page_chunks(pages), now)
            self._embeddings.changed(uow, entry_id, now)
            catalog_id = _catalog(uow, entry, website, _found_products(pages), now)
            if catalog_id is not None:  # its new products, if any (a run finds nothing left to embed otherwise)
                self._embeddings.changed(uow, catalog_id, now)
            status = outcome.status if pages or outcome.status == "failed" else "failed"
            error = None if status == "completed" else (outcome.error or "No page could be crawled.")
            website = uow.knowledge_websites.save(
                attrs.evolve(
                    website,
                    crawl_status=status,
                    pages_crawled=len(pages),
                    pages_failed=outcome.pages_failed,
                    total_pages_found=max(website.total_pages_found, outcome.total_pages_found, len(pages)),
                    progress_pct=100,
                    crawl_error=None if error is None else error[:CRAWL_ERROR_MAX],
                    last_crawled_at=now,
                    catalog_id=catalog_id,
                ),
                now,
            )
            name = "knowledge_base.processing.failed" if status == "failed" else "knowledge_base.processing.completed"
            payload = dict(processing_payload(entry.id, entry.title, website, now))
            if status != "failed":
                payload["error"] = None
            uow.emit(DomainEvent(name, payload, now))
            uow.commit()
        logger.info("Crawl of entry %d ended %s with %d page(s).", entry_id, status, len(pages))


def page_chunks(pages: Sequence[StoredPage]) -> list[ChunkDraft]:
    """The chunks of every page in order, numbered across the entry; each page's title (else its URL)
    heads its chunks."""
    drafts = [draft for page in pages for draft in chunk_text(page.text, title=page.title or page.url)]
    return [attrs.evolve(draft, chunk_index=index, total_chunks=len(drafts)) for index, draft in enumerate(drafts)]


def _save_progress(
    uow: WorkspaceUnitOfWork, entry_id: int, progress: CrawlProgress, failures: int, now: datetime
) -> None:
    website = uow.knowledge_websites.get(entry_id)
    if website is None or website.completed:
        return
    uow.knowledge_websites.save(
        attrs.evolve(
            website,
            crawl_status="crawling",
            pages_crawled=max(website.pages_crawled, progress.pages_crawled),
            pages_failed=failures,
            total_pages_found=max(website.total_pages_found, progress.total_pages_found),
            progress_pct=max(website.progress_pct, min(99, progress.percent)),
        ),
        now,
    )


def _found_products(pages: Iterable[StoredPage]) -> list[ProductDraft]:
    """The valid products of every page, the first of each SKU (else name) kept."""
    drafts: list[ProductDraft] = []
    seen: set[str] = set()
    for page in pages:
        for found in page.products:
            draft = _draft(found)
            if draft is not None and _product_key(draft.sku, draft.name) not in seen:
                seen.add(_product_key(draft.sku, draft.name))
                drafts.append(draft)
    return drafts


def _draft(found: FoundProduct) -> ProductDraft | None:
    try:
        return validate_product(
            ProductInput(
                product_name=found.name,
                product_description=found.description,
                sku=found.sku,
                price=found.price,
                currency=found.currency,
                image_url=found.image_url,
            )
        )
    except ValidationFailed:
        return None  # a page's odd product (no name, a price the catalog refuses) is left out


def _product_key(sku: str | None, name: str) -> str:
    return f"sku:{sku.strip().lower()}" if sku else f"name:{name.strip().lower()}"


def _catalog(
    uow: WorkspaceUnitOfWork,
    entry: KnowledgeBaseEntry,
    website: Website,
    products: Sequence[ProductDraft],
    now: datetime,
) -> int | None:
    """Add the products not yet in the site's catalog entry (created, and announced, on first use):
    its id, or the one it had."""
    if not products:
        return website.catalog_id
    catalog = None if website.catalog_id is None else uow.knowledge_base.get(website.catalog_id)
    if catalog is None or catalog.type != "product_catalog":
        title = (entry.title[: TITLE_MAX - len(CATALOG_SUFFIX)] + CATALOG_SUFFIX).strip()
        draft = KnowledgeBaseDraft(title, "product_catalog", f"Products found on {website.website_url}"[:1000])
        catalog = uow.knowledge_base.add(draft, now)
        uow.emit(DomainEvent("knowledge_base.created", catalog.event_payload(), now))
        existing: set[str] = set()
    else:
        existing = {_product_key(p.sku, p.name) for p in uow.products.for_catalog(catalog.id)}
    new = [p for p in products if _product_key(p.sku, p.name) not in existing]
    if new:
        uow.products.add_many(catalog.id, new, now)
        rechunk_catalog(uow, catalog, now)
    return catalog.id
