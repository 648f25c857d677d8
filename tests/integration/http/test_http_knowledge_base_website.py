"""Website entries over HTTP (SPEC 4): creating one queues its crawl (202), the worker's crawl job
fills it in, `GET /knowledge-base/{id}/status` follows it, and a re-crawl starts it again."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from http_support import Api

from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_core.jobs.fakes import InMemoryJobQueue
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.fakes import FakeClock, FakeMailer
from engage_core.knowledge.crawling import CrawledPage, FoundProduct, PageFailure
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.knowledge.website_fakes import ScriptedCrawler
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import FakeCipher, FakePasswordHasher, InMemoryUnitOfWorkFactory

WEBSITE = "/knowledge-base/website"
SITE = "https://shop.example.com/"
PAGES = (
    CrawledPage(SITE, SITE, "Home", "Welcome to the shop. We roast coffee.", 0, links=(SITE + "beans",)),
    CrawledPage(
        SITE + "beans",
        SITE + "beans",
        "Beans",
        "Our espresso beans are roasted weekly.",
        1,
        products=(FoundProduct("Espresso beans", sku="ESP-1"),),
    ),
)


class LiteralGuard:
    """Refuses IP literals of internal addresses, as the real guard does (names are not resolved here)."""

    def refusal(self, url: str) -> str | None:
        try:
            AddressPolicy.from_setting("").check_literal(urlsplit(url).hostname or "")
        except BlockedAddress as exc:
            return str(exc)
        return None


@pytest.fixture
def crawler() -> ScriptedCrawler:
    return ScriptedCrawler(PAGES)


@pytest.fixture
def services(
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    mailer: FakeMailer,
    sandbox: SandboxGateway,
    crawler: ScriptedCrawler,
    extractor: FakeDocumentExtractor,
) -> Services:
    built = Services.build(
        uow,
        clock,
        cipher=FakeCipher(),
        guard=LiteralGuard(),
        hasher=FakePasswordHasher(),
        mailer=mailer,
        gateway=sandbox,
        crawler=crawler,
        extractor=extractor,
    )
    sandbox.attach(built.inbox)
    return built


@pytest.fixture
def runner(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, services: Services) -> JobRunner:
    return JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)


def run_jobs(runner: JobRunner) -> None:
    while runner.run_once():
        pass


def test_creating_a_website_answers_202_with_a_pending_crawl(api: Api) -> None:
    """The answer holds the entry and its website record, crawl `pending` with nothing counted."""
    response = api.post(WEBSITE, json={"title": "Shop", "website_url": SITE})

    body = response.json()
    assert response.status_code == 202
    assert body["data"]["knowledge_base"]["type"] == "website"
    website = body["data"]["website"]
    assert (
        website["website_url"],
        website["crawl_status"],
        website["pages_crawled"],
        website["total_pages_found"],
    ) == (
        SITE,
        "pending",
        0,
        0,
    )


def test_the_request_crawls_nothing(api: Api, crawler: ScriptedCrawler) -> None:
    """The crawl is a job for the worker: the request itself never calls the crawler."""
    api.post(WEBSITE, json={"title": "Shop", "website_url": SITE})

    assert crawler.calls == []


@pytest.mark.parametrize("url", ["ftp://example.com/", "example.com", "http://127.0.0.1/", "http://[::1]/admin"])
def test_a_url_that_is_not_public_http_is_a_422(api: Api, url: str) -> None:
    """Another scheme, no host, or an internal address is refused, and nothing is stored."""
    response = api.post(WEBSITE, json={"title": "Shop", "website_url": url})

    assert response.status_code == 422
    assert "website_url" in response.json()["errors"]


@pytest.mark.parametrize(("field", "value"), [("max_pages", 0), ("max_pages", 101), ("max_depth", 6)])
def test_limits_out_of_range_are_a_422(api: Api, field: str, value: int) -> None:
    """`max_pages` is 1-100 and `max_depth` 1-5."""
    response = api.post(WEBSITE, json={"title": "Shop", "website_url": SITE, field: value})

    assert response.status_code == 422


def test_the_status_of_a_new_entry_is_pending_and_not_completed(api: Api) -> None:
    """Before the worker runs, the status shows the crawl pending."""
    entry_id = api.post(WEBSITE, json={"title": "Shop", "website_url": SITE}).json()["data"]["knowledge_base"]["id"]

    status = api.get(f"/knowledge-base/{entry_id}/status").json()["data"]

    assert (status["crawl_status"], status["completed"], status["progress_pct"]) == ("pending", False, 0)


def test_after_the_crawl_job_the_status_is_completed_with_its_pages(api: Api, runner: JobRunner) -> None:
    """The worker's job crawls the site; the status then shows it ended with every page counted."""
    entry_id = api.post(WEBSITE, json={"title": "Shop", "website_url": SITE}).json()["data"]["knowledge_base"]["id"]
    run_jobs(runner)

    status = api.get(f"/knowledge-base/{entry_id}/status").json()["data"]

    assert status == {
        "id": entry_id,
        "title": "Shop",
        "type": "website",
        "crawl_status": "completed",
        "pages_crawled": 2,
        "total_pages": 2,
        "progress_pct": 100,
        "crawl_error": None,
        "last_crawled_at": status["last_crawled_at"],
        "completed": True,
    }
    assert status["last_crawled_at"] is not None


def test_a_crawl_with_a_failed_page_is_partial_with_an_error(
    api: Api, runner: JobRunner, crawler: ScriptedCrawler
) -> None:
    """A page that could not be read makes the crawl `partial`, with a `crawl_error`."""
    crawler.failures.append(PageFailure(SITE + "broken", "HTTP 500", 1))
    entry_id = api.post(WEBSITE, json={"title": "Shop", "website_url": SITE}).json()["data"]["knowledge_base"]["id"]
    run_jobs(runner)

    status = api.get(f"/knowledge-base/{entry_id}/status").json()["data"]

    assert status["crawl_status"] == "partial"
    assert status["crawl_error"]


def test_status_of_another_type_of_entry_is_a_422(api: Api) -> None:
    """Only website and document entries have a status."""
    created = api.post("/knowledge-base/product-catalog", json={"title": "C", "products": [{"product_name": "Mug"}]})
    entry_id = created.json()["data"]["knowledge_base"]["id"]

    response = api.get(f"/knowledge-base/{entry_id}/status")

    assert response.status_code == 422
    assert "status is available for website and document entries" in response.text


def test_status_of_a_document_entry_lists_its_files(api: Api) -> None:
    """A document entry's status is the document shape: its files and how far each is."""
    files = [("files[]", ("faq.txt", b"We ship on Mondays.", "text/plain"))]
    created = api.post("/knowledge-base/document", data={"title": "FAQ"}, files=files)
    entry_id = created.json()["data"]["knowledge_base"]["id"]

    status = api.get(f"/knowledge-base/{entry_id}/status").json()["data"]

    assert (status["type"], status["completed"], status["total"], status["failed_count"]) == ("document", True, 1, 0)
    assert [d["original_name"] for d in status["documents"]] == ["faq.txt"]


def test_a_website_entry_shows_its_crawl(api: Api) -> None:
    """`GET /knowledge-base/{id}` of a website entry carries its `website` record."""
    created = api.post("/knowledge-base/website", json={"title": "Site", "website_url": "https://shop.example.com"})
    entry_id = created.json()["data"]["knowledge_base"]["id"]

    shown = api.get(f"/knowledge-base/{entry_id}").json()["data"]

    assert (shown["website"]["website_url"], shown["website"]["crawl_status"]) == (
        "https://shop.example.com",
        "pending",
    )


def test_status_of_an_unknown_entry_is_a_404(api: Api) -> None:
    """An id the account does not hold is a 404."""
    assert api.get("/knowledge-base/999999/status").status_code == 404


def test_recrawl_while_the_crawl_is_pending_is_a_409(api: Api) -> None:
    """One crawl of an entry at a time."""
    entry_id = api.post(WEBSITE, json={"title": "Shop", "website_url": SITE}).json()["data"]["knowledge_base"]["id"]

    assert api.post(f"/knowledge-base/{entry_id}/recrawl").status_code == 409


def test_recrawl_after_the_crawl_queues_a_new_one(api: Api, runner: JobRunner, crawler: ScriptedCrawler) -> None:
    """A re-crawl answers 202 with the crawl `pending` again, and the worker crawls the site once more."""
    entry_id = api.post(WEBSITE, json={"title": "Shop", "website_url": SITE}).json()["data"]["knowledge_base"]["id"]
    run_jobs(runner)

    response = api.post(f"/knowledge-base/{entry_id}/recrawl")
    run_jobs(runner)

    assert response.status_code == 202
    assert response.json()["data"]["website"]["crawl_status"] == "pending"
    assert len(crawler.calls) == 2
    assert api.get(f"/knowledge-base/{entry_id}/status").json()["data"]["pages_crawled"] == 2
