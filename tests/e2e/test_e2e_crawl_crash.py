"""A website crawl survives its worker's death: `engage worker` SIGKILLed mid-crawl, a second worker
takes the job over once its lease ends and finishes the crawl from the pages stored, none twice.

The site is on 127.0.0.1; the crawler waits its polite second between two requests, so the crawl
takes several seconds and the kill lands in the middle of it. The job lease is short (3 s) so the
second worker need not wait long."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator

import pytest
from crawl_site import CrawlSite
from sqlalchemy import func, select
from worker_processes import StartWorker, WorkerProcess, worker_settings

from engage_core.knowledge.websites import CRAWL_JOB, WebsiteInput, crawl_key
from engage_http.bootstrap import build_services
from engage_sql import Database
from engage_sql.knowledge.website_tables import knowledge_base_website_pages as pages_table
from engage_sql.webhooks.tables import events

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PAGES = 8
WORKER_ENV = {"ENGAGE_JOB_LEASE": "3"}
STALL_LIMIT = 120.0


@pytest.fixture
def site() -> Iterator[CrawlSite]:
    with CrawlSite() as served:
        served.page("/", links=[f"/p{n}" for n in range(1, PAGES)], text="The home page of a small site.")
        for n in range(1, PAGES):
            served.page(f"/p{n}", text=f"Page number {n} says something of its own, word {n * 7}.")
        yield served


def stored_pages(database: Database, entry: int) -> int:
    with database.engine.connect() as connection:
        return int(
            connection.execute(
                select(func.count()).select_from(pages_table).where(pages_table.c.knowledge_base_id == entry)
            ).scalar_one()
        )


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + STALL_LIMIT
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not in {STALL_LIMIT:.0f} s"
        time.sleep(0.05)


def test_a_sigkilled_crawl_is_finished_by_the_next_worker_without_duplicates(
    make_database_url: Callable[..., str], start_worker: StartWorker, site: CrawlSite
) -> None:
    """Killed after two pages, the crawl is resumed by another worker: every page once, one completion."""
    url = make_database_url()
    database = Database.connect(url)
    try:
        services = build_services(worker_settings(database), database)
        account = services.accounts.create("Crawler").account.id
        entry = services.websites.create(
            account, WebsiteInput(title="Small site", website_url=site.url("/"), max_pages=PAGES)
        ).knowledge_base.id

        first = start_worker(url, env=WORKER_ENV)
        wait_until(lambda: stored_pages(database, entry) >= 2, "the first worker storing pages")
        first.kill()
        killed_at = stored_pages(database, entry)
        assert killed_at < PAGES, "the crawl ended before the kill"

        second: WorkerProcess = start_worker(url, env=WORKER_ENV)

        def finished() -> bool:
            with database.uow.workspace(account, readonly=True) as uow:
                job = uow.jobs.find(CRAWL_JOB, crawl_key(entry))
            return job is not None and job.finished

        wait_until(finished, "the second worker finishing the crawl")
        second.signal(signal.SIGTERM)
        assert second.wait() == 0, second.output()

        status = services.websites.status(account, entry)
        with database.uow.workspace(account, readonly=True) as uow:
            urls = [page.url for page in uow.knowledge_websites.pages(entry)]
        with database.engine.connect() as connection:
            completions = connection.execute(
                select(func.count())
                .select_from(events)
                .where(events.c.account_id == account, events.c.name == "knowledge_base.processing.completed")
            ).scalar_one()
    finally:
        database.dispose()

    assert (status.crawl_status, status.pages_crawled) == ("completed", PAGES)
    assert len(urls) == len(set(urls)) == PAGES
    assert completions == 1
