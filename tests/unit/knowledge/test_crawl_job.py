"""The crawl job over the fakes: what a finished crawl leaves behind (chunks, catalog, events)."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from engage_core.jobs.model import DEFAULT_MAX_ATTEMPTS
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.fakes import FakeClock
from engage_core.knowledge.crawling import CrawledPage, CrawlOutcome, FoundProduct
from engage_core.knowledge.website_fakes import ScriptedCrawler
from engage_core.knowledge.websites import WebsiteInput
from engage_core.services import Services
from engage_core.testing import InMemoryJobQueue, InMemoryUnitOfWorkFactory
from engage_core.webhooks.fakes import AllowAllTargets

SITE = "https://shop.example.com/"
MUG = FoundProduct("Mug", price=Decimal("7.50"), currency="EUR", sku="MUG-1")
POT = FoundProduct("Teapot", price=Decimal("24.99"), currency="EUR", sku="POT-1")


def page(path: str, title: str, text: str, *products: FoundProduct) -> CrawledPage:
    return CrawledPage(SITE + path, SITE + path, title, text, 1, products=products)


@pytest.fixture
def crawler() -> ScriptedCrawler:
    return ScriptedCrawler([page("", "Home", "We sell mugs and teapots."), page("mug", "Mug", "A big mug.", MUG)])


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, crawler: ScriptedCrawler) -> Services:
    return Services.build(uow, clock, guard=AllowAllTargets(), crawler=crawler)


@pytest.fixture
def crawl(services: Services, uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int) -> Callable[..., int]:
    """`crawl()`: create a website entry (or re-crawl `entry`) and run the worker until idle; the entry id."""
    runner = JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)

    def run(entry: int | None = None) -> int:
        if entry is None:
            entry = services.websites.create(account_id, WebsiteInput(title="Shop", website_url=SITE)).knowledge_base.id
        else:
            services.websites.recrawl(account_id, entry)
        while runner.run_once():
            pass
        return entry

    return run


def test_chunks_are_made_from_every_page_headed_by_its_title(
    crawl: Callable[..., int], uow: InMemoryUnitOfWorkFactory, account_id: int
) -> None:
    """Each page's text is chunked with its title as context header, numbered across the entry."""
    entry = crawl()

    with uow.workspace(account_id) as w:
        chunks = w.knowledge_chunks.for_entry(entry)
    assert [(c.context_header, c.chunk_index, c.total_chunks) for c in chunks] == [("Home", 0, 2), ("Mug", 1, 2)]


def test_products_found_make_a_separate_catalog_entry(
    crawl: Callable[..., int], services: Services, account_id: int
) -> None:
    """A crawl that finds products creates a `product_catalog` entry named after the site's entry."""
    entry = crawl()

    with services.dependencies.uow.workspace(account_id) as w:
        website = w.knowledge_websites.get(entry)
        assert website is not None and website.catalog_id is not None
        catalog = w.knowledge_base.get(website.catalog_id)
        products = w.products.for_catalog(website.catalog_id)
    assert catalog is not None and (catalog.type, catalog.title) == ("product_catalog", "Shop products")
    assert [(p.name, p.sku, p.price) for p in products] == [("Mug", "MUG-1", Decimal("7.50"))]


def test_a_recrawl_adds_new_products_to_the_same_catalog(
    crawl: Callable[..., int], services: Services, crawler: ScriptedCrawler, account_id: int
) -> None:
    """The second crawl adds what it newly found to the catalog the first made, once each."""
    entry = crawl()
    crawler.pages.append(page("pot", "Teapot", "A teapot.", POT, MUG))
    crawl(entry)

    with services.dependencies.uow.workspace(account_id) as w:
        website = w.knowledge_websites.get(entry)
        assert website is not None and website.catalog_id is not None
        names = [p.name for p in w.products.for_catalog(website.catalog_id)]
        catalogs = [e for e in (w.knowledge_base.get(i) for i in range(1, 100)) if e and e.type == "product_catalog"]
    assert names == ["Mug", "Teapot"]
    assert len(catalogs) == 1


def test_the_completed_event_carries_the_crawl(
    crawl: Callable[..., int], uow: InMemoryUnitOfWorkFactory, account_id: int
) -> None:
    """`knowledge_base.processing.completed` has SPEC 6's fields and the website's."""
    entry = crawl()

    event = next(e for e in uow.store.events(account_id) if e.name == "knowledge_base.processing.completed")
    assert {k: v for k, v in event.payload.items() if k not in ("occurred_at", "item_id")} == {
        "knowledge_base_id": entry,
        "title": "Shop",
        "type": "website",
        "error": None,
        "website_url": SITE,
        "crawl_status": "completed",
        "pages_crawled": 2,
    }


def test_a_forbidden_site_fails_with_an_error_and_a_failed_event(
    crawl: Callable[..., int],
    crawler: ScriptedCrawler,
    services: Services,
    uow: InMemoryUnitOfWorkFactory,
    account_id: int,
) -> None:
    """robots.txt forbidding the start page ends the crawl `failed`, with its error in the event."""
    crawler.forbidden = True
    entry = crawl()

    status = services.websites.status(account_id, entry)
    events = [e for e in uow.store.events(account_id) if e.name == "knowledge_base.processing.failed"]
    assert (status.crawl_status, status.completed) == ("failed", True)
    assert events and events[0].payload["error"] == status.crawl_error and status.crawl_error


class BrokenCrawler(ScriptedCrawler):
    """A crawler with a bug: every crawl raises."""

    def crawl(self, *args: object, **kwargs: object) -> CrawlOutcome:  # type: ignore[override]
        raise RuntimeError("boom")


def test_a_crawl_whose_last_attempt_raises_ends_failed(
    uow: InMemoryUnitOfWorkFactory, clock: FakeClock, account_id: int
) -> None:
    """When the job has no attempt left, the crawl is `failed` with the error, not left `crawling`."""
    services = Services.build(uow, clock, guard=AllowAllTargets(), crawler=BrokenCrawler())
    entry = services.websites.create(account_id, WebsiteInput(title="Shop", website_url=SITE)).knowledge_base.id
    runner = JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)
    for _ in range(DEFAULT_MAX_ATTEMPTS):
        clock.advance(seconds=7200)
        runner.run_once()

    status = services.websites.status(account_id, entry)
    assert (status.crawl_status, status.completed) == ("failed", True)
    assert status.crawl_error is not None and "boom" in status.crawl_error
    assert [e.name for e in uow.store.events(account_id)][-1] == "knowledge_base.processing.failed"
