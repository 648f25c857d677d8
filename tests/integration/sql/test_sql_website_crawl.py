"""A website entry crawled for real: the worker's job runner and `HttpCrawler` against a site on
127.0.0.1, over SQLite and PostgreSQL. The crawl's pages, chunks, status, events and product
catalog are what the site holds."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from crawl_site import CrawlSite
from sqlalchemy import select

from engage_connectors.crawler import CrawlLimits, HttpCrawler
from engage_connectors.ssrf import AddressPolicy
from engage_connectors.target_guard import DnsTargetGuard
from engage_core.kernel.clock import SystemClock
from engage_core.knowledge.websites import CRAWL_JOB, WebsiteInput, crawl_key
from engage_core.services import Services
from engage_http.worker import JobRunnerHandle, start_job_runner
from engage_sql import Database
from engage_sql.webhooks.tables import events

PRODUCT = (
    '<script type="application/ld+json">{"@context": "https://schema.org", "@type": "Product", "name": "Blue Kettle",'
    ' "sku": "K-1", "offers": {"@type": "Offer", "price": "24.50", "priceCurrency": "EUR"}}</script>'
)


@pytest.fixture
def site() -> Iterator[CrawlSite]:
    with CrawlSite() as served:
        served.page("/", links=["/about", "/kettle"], text="Welcome to the kettle shop. We sell kettles.")
        served.page("/about", text="We have boiled water since 1990 in a small town.")
        served.page("/kettle", text="The blue kettle boils fast and whistles.", head=PRODUCT)
        yield served


@pytest.fixture
def services(database: Database) -> Services:
    policy = AddressPolicy.from_setting("127.0.0.1")
    crawler = HttpCrawler(policy, CrawlLimits(page_timeout=5.0, request_delay=0.0))
    return Services.build(database.uow, SystemClock(), guard=DnsTargetGuard(policy), crawler=crawler)


@pytest.fixture
def worker(database: Database, services: Services) -> Iterator[JobRunnerHandle]:
    handle = start_job_runner(database.job_queue(), services.job_handlers(), idle_seconds=0.05)
    yield handle
    handle.stop()


def wait_until(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.05)


@pytest.fixture
def crawled(services: Services, database: Database, site: CrawlSite, account: int, worker: JobRunnerHandle) -> int:
    """A website entry of `site`, its crawl job run by the worker to its end; the entry's id."""
    entry = services.websites.create(
        account, WebsiteInput(title="Kettles", website_url=site.url("/"))
    ).knowledge_base.id

    def finished() -> bool:
        with database.uow.workspace(account, readonly=True) as uow:
            job = uow.jobs.find(CRAWL_JOB, crawl_key(entry))
        return job is not None and job.finished

    wait_until(finished)
    return entry


def test_the_crawl_completes_with_every_page(services: Services, account: int, crawled: int) -> None:
    """The status shows the crawl completed with the site's three pages."""
    status = services.websites.status(account, crawled)

    assert (status.crawl_status, status.pages_crawled, status.progress_pct, status.completed) == (
        "completed",
        3,
        100,
        True,
    )
    assert status.last_crawled_at is not None and status.crawl_error is None


def test_each_page_is_stored_once(database: Database, site: CrawlSite, account: int, crawled: int) -> None:
    """The pages table holds each page of the site once, with its title and text."""
    with database.uow.workspace(account, readonly=True) as uow:
        pages = uow.knowledge_websites.pages(crawled)

    assert sorted(p.url for p in pages) == sorted(site.url(path) for path in ("/", "/about", "/kettle"))
    assert any("whistles" in p.text for p in pages)


def test_the_pages_are_chunked_and_searchable(database: Database, account: int, crawled: int) -> None:
    """The entry's chunks hold the pages' text, and search finds a page by its words."""
    with database.uow.workspace(account, readonly=True) as uow:
        chunks = uow.knowledge_chunks.for_entry(crawled)
        hits = uow.knowledge_search.search("whistles")

    assert len(chunks) >= 3
    assert hits and hits[0].knowledge_base_id == crawled


def test_the_product_found_makes_a_catalog_entry(database: Database, account: int, crawled: int) -> None:
    """The kettle page's JSON-LD product is in a separate `product_catalog` entry."""
    with database.uow.workspace(account, readonly=True) as uow:
        website = uow.knowledge_websites.get(crawled)
        assert website is not None and website.catalog_id is not None
        catalog = uow.knowledge_base.get(website.catalog_id)
        products = uow.products.for_catalog(website.catalog_id)

    assert catalog is not None and catalog.title == "Kettles products"
    assert [(p.name, p.sku, str(p.price), p.currency) for p in products] == [("Blue Kettle", "K-1", "24.50", "EUR")]


def test_the_crawl_is_announced(database: Database, account: int, crawled: int) -> None:
    """`knowledge_base.processing.completed` is recorded once, with the crawl's figures."""
    with database.engine.connect() as connection:
        rows = connection.execute(
            select(events.c.payload).where(
                events.c.account_id == account, events.c.name == "knowledge_base.processing.completed"
            )
        ).all()

    assert [(row.payload["knowledge_base_id"], row.payload["pages_crawled"]) for row in rows] == [(crawled, 3)]
