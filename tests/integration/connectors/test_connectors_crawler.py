"""The website crawler against a site served on 127.0.0.1: robots.txt, sitemaps, limits, redirects
through the SSRF guard, byte and time limits, products, resume and stop.

The address policy allows 127.0.0.1 the way the webhook tests do (`ENGAGE_WEBHOOK_ALLOWED_HOSTS`);
every other internal address stays refused."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Iterator
from decimal import Decimal

import pytest
from crawl_site import CrawlSite, Reports, SiteHandler, answer, html_page, redirect

from engage_connectors.crawler import CrawlLimits, HttpCrawler
from engage_connectors.ssrf import AddressPolicy
from engage_core.knowledge.crawling import CrawlOutcome, CrawlPlan, FoundProduct
from engage_core.settings import Settings

FAST = CrawlLimits(page_timeout=5.0, request_delay=0.0)

Crawl = Callable[..., tuple[CrawlOutcome, Reports]]


@pytest.fixture
def site() -> Iterator[CrawlSite]:
    with CrawlSite() as served:
        yield served


@pytest.fixture
def policy(monkeypatch: pytest.MonkeyPatch) -> AddressPolicy:
    monkeypatch.setenv("ENGAGE_WEBHOOK_ALLOWED_HOSTS", "127.0.0.1")
    return AddressPolicy.from_setting(Settings.from_env().webhook_allowed_hosts)


@pytest.fixture
def crawl(site: CrawlSite, policy: AddressPolicy) -> Crawl:
    """`crawl(limits=FAST, path="/", **plan_fields, should_stop=..., already_done=..., known_links=...)`."""

    def run(*, limits: CrawlLimits = FAST, path: str = "/", **options: object) -> tuple[CrawlOutcome, Reports]:
        extra = {k: options.pop(k) for k in ("should_stop", "already_done", "known_links") if k in options}
        reports = Reports()
        plan = CrawlPlan(site.url(path), **options)  # type: ignore[arg-type]
        outcome = HttpCrawler(policy, limits).crawl(
            plan,
            on_page=reports.on_page,
            on_failure=reports.on_failure,
            **extra,  # type: ignore[arg-type]
        )
        return outcome, reports

    return run


def test_a_site_is_crawled_breadth_first_and_completes(site: CrawlSite, crawl: Crawl) -> None:
    """Start page, then its links, then theirs; every page stored: completed."""
    site.page("/", ["/a", "/b"])
    site.page("/a", ["/a/deep"])
    site.page("/b")
    site.page("/a/deep")
    outcome, reports = crawl(max_depth=2)
    assert (reports.paths, outcome.status, outcome.pages_crawled) == (["/", "/a", "/b", "/a/deep"], "completed", 4)


def test_a_page_reports_its_title_main_text_and_depth(site: CrawlSite, crawl: Crawl) -> None:
    """Title and main text come from the page; the navigation is not part of the text."""
    site.page("/", ["/a"], text="Opening hours are nine to five on weekdays, closed on public holidays.")
    site.page("/a")
    _, reports = crawl()
    start = reports.pages[0]
    assert (start.title, start.depth) == ("Page /", 0)
    assert "Opening hours are nine to five" in start.text


def test_robots_disallow_is_honoured_for_links(site: CrawlSite, crawl: Crawl) -> None:
    """A link robots.txt disallows is never requested."""
    site.robots("User-agent: *\nDisallow: /private\n")
    site.page("/", ["/private/secret", "/public"])
    site.page("/private/secret")
    site.page("/public")
    _, reports = crawl()
    assert reports.paths == ["/", "/public"]
    assert not site.requested("/private/secret")


def test_robots_rules_for_the_engage_agent_apply(site: CrawlSite, crawl: Crawl) -> None:
    """A group naming our agent token is the one obeyed."""
    site.robots("User-agent: engage\nDisallow: /b\n\nUser-agent: *\nDisallow: /a\n")
    site.page("/", ["/a", "/b"])
    site.page("/a")
    site.page("/b")
    _, reports = crawl()
    assert reports.paths == ["/", "/a"]


def test_a_start_page_robots_forbids_fails_the_crawl(site: CrawlSite, crawl: Crawl) -> None:
    """robots.txt disallowing the start page: failed, with the reason, and the page not requested."""
    site.robots("User-agent: *\nDisallow: /\n")
    site.page("/")
    outcome, reports = crawl()
    assert (outcome.status, reports.pages) == ("failed", [])
    assert outcome.error is not None and "robots.txt" in outcome.error
    assert not site.requested("/")


def test_the_given_sitemap_adds_pages_no_link_reaches(site: CrawlSite, crawl: Crawl) -> None:
    """A page only the sitemap lists is crawled, at depth 1."""
    site.page("/")
    site.page("/orphan")
    site.route("/map.xml", answer(200, _sitemap(site, "/orphan"), "application/xml"))
    _, reports = crawl(sitemap_url=site.url("/map.xml"))
    assert [(p.url, p.depth) for p in reports.pages] == [(site.url("/"), 0), (site.url("/orphan"), 1)]


def test_the_sitemap_named_in_robots_is_used(site: CrawlSite, crawl: Crawl) -> None:
    """Without sitemap_url, robots.txt's Sitemap lines are read."""
    site.robots(f"User-agent: *\nAllow: /\nSitemap: {site.url('/map.xml')}\n")
    site.page("/")
    site.page("/orphan")
    site.route("/map.xml", answer(200, _sitemap(site, "/orphan"), "application/xml"))
    _, reports = crawl()
    assert reports.paths == ["/", "/orphan"]


def test_a_sitemap_index_is_followed_through_our_fetcher(site: CrawlSite, crawl: Crawl) -> None:
    """The children of a sitemap index are fetched by the crawler itself and their pages crawled."""
    index = (
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sitemap><loc>{site.url('/child.xml')}</loc></sitemap></sitemapindex>"
    ).encode()
    site.page("/")
    site.page("/listed")
    site.route("/index.xml", answer(200, index, "application/xml"))
    site.route("/child.xml", answer(200, _sitemap(site, "/listed"), "application/xml"))
    _, reports = crawl(sitemap_url=site.url("/index.xml"))
    assert reports.paths == ["/", "/listed"]


def test_the_depth_limit_is_honoured(site: CrawlSite, crawl: Crawl) -> None:
    """With max_depth 2, a page three links away is never requested."""
    site.page("/", ["/d1"])
    site.page("/d1", ["/d2"])
    site.page("/d2", ["/d3"])
    site.page("/d3")
    _, reports = crawl(max_depth=2)
    assert reports.paths == ["/", "/d1", "/d2"]
    assert not site.requested("/d3")


def test_the_page_limit_is_honoured(site: CrawlSite, crawl: Crawl) -> None:
    """With max_pages 3, only three pages are requested although more are linked."""
    links = [f"/p{n}" for n in range(8)]
    site.page("/", links)
    for link in links:
        site.page(link)
    outcome, reports = crawl(max_pages=3)
    assert (len(reports.pages), outcome.status) == (3, "completed")
    assert not site.requested("/p2")


def test_sitemap_pages_count_against_the_page_limit(site: CrawlSite, crawl: Crawl) -> None:
    """Pages the sitemap lists count against max_pages like linked ones."""
    listed = [f"/s{n}" for n in range(8)]
    site.page("/")
    for path in listed:
        site.page(path)
    site.route("/map.xml", answer(200, _sitemap(site, *listed), "application/xml"))
    _, reports = crawl(max_pages=3, sitemap_url=site.url("/map.xml"))
    assert reports.paths == ["/", "/s0", "/s1"]


def test_sitemap_pages_are_at_depth_one_for_the_depth_limit(site: CrawlSite, crawl: Crawl) -> None:
    """With max_depth 1, the links of a sitemap page are not followed."""
    site.page("/")
    site.page("/listed", ["/below"])
    site.page("/below")
    site.route("/map.xml", answer(200, _sitemap(site, "/listed"), "application/xml"))
    _, reports = crawl(max_depth=1, sitemap_url=site.url("/map.xml"))
    assert reports.paths == ["/", "/listed"]
    assert not site.requested("/below")


def test_links_to_another_host_are_not_followed(site: CrawlSite, crawl: Crawl) -> None:
    """Another host is another site: never requested, and not counted as found."""
    site.page("/", ["http://localhost:9/elsewhere", "/here"])
    site.page("/here")
    outcome, reports = crawl()
    assert (reports.paths, outcome.total_pages_found) == (["/", "/here"], 2)


def test_allowed_and_excluded_paths_filter_links(site: CrawlSite, crawl: Crawl) -> None:
    """Only links under an allowed prefix and not under an excluded one are crawled."""
    site.page("/", ["/docs/a", "/docs/old/b", "/blog/c"])
    for path in ("/docs/a", "/docs/old/b", "/blog/c"):
        site.page(path)
    _, reports = crawl(allowed_paths=("/docs",), excluded_paths=("/docs/old",))
    assert reports.paths == ["/", "/docs/a"]


def test_a_redirect_to_an_internal_address_is_refused_as_a_page_failure(site: CrawlSite, crawl: Crawl) -> None:
    """The guard checks each redirect hop: a hop to the metadata address fails the page."""
    site.page("/", ["/jump"])
    site.route("/jump", redirect("http://169.254.169.254/latest/meta-data/"))
    outcome, reports = crawl()
    assert [f.url for f in reports.failures] == [site.url("/jump")]
    assert "169.254.169.254" in reports.failures[0].reason and "not allowed" in reports.failures[0].reason
    assert outcome.status == "partial"


def test_a_redirect_within_the_site_is_followed(site: CrawlSite, crawl: Crawl) -> None:
    """A moved page is stored under the URL queued, with where it ended as final_url."""
    site.page("/", ["/old"])
    site.route("/old", redirect("/new", 301))
    site.page("/new")
    _, reports = crawl()
    assert (reports.pages[1].url, reports.pages[1].final_url) == (site.url("/old"), site.url("/new"))


def test_a_redirect_alias_of_a_crawled_page_is_not_stored_twice(site: CrawlSite, crawl: Crawl) -> None:
    """/old redirects to /new, also linked: /new is stored once, under the URL crawled first."""
    site.page("/", ["/old", "/new"])
    site.route("/old", redirect("/new", 301))
    site.page("/new")
    outcome, reports = crawl()
    assert ([p.final_url for p in reports.pages], outcome.pages_skipped) == ([site.url("/"), site.url("/new")], 1)


def test_a_start_url_at_an_internal_address_fails_the_crawl(policy: AddressPolicy) -> None:
    """A website at 10.0.0.1 is refused by the guard before any connection: failed, saying why."""
    reports = Reports()
    outcome = HttpCrawler(policy, FAST).crawl(
        CrawlPlan("http://10.0.0.1/"), on_page=reports.on_page, on_failure=reports.on_failure
    )
    assert outcome.status == "failed"
    assert outcome.error is not None and "10.0.0.1 is not allowed" in outcome.error


def test_a_redirect_loop_is_a_page_failure(site: CrawlSite, crawl: Crawl) -> None:
    """/a -> /b -> /a fails the page as a loop, after two requests."""
    site.page("/", ["/a"])
    site.route("/a", redirect("/b"))
    site.route("/b", redirect("/a"))
    _, reports = crawl()
    assert "loop" in reports.failures[0].reason
    assert site.requests.count("/a") == 1


def test_a_huge_page_is_cut_off_at_the_byte_limit(site: CrawlSite, crawl: Crawl) -> None:
    """A 50 MB page is read up to the limit, stored truncated, and the rest never sent."""
    sent = _stream_huge_page(site, "/huge", 50 * 1024 * 1024)
    site.page("/", ["/huge"])
    _, reports = crawl(limits=CrawlLimits(page_timeout=10.0, request_delay=0.0, max_page_bytes=256 * 1024))
    page = reports.pages[1]
    assert page.truncated and "The beginning of a very long page" in page.text
    assert sent.done.wait(10)
    assert sent.count < 50 * 1024 * 1024


def test_a_slow_page_times_out_as_a_page_failure(site: CrawlSite, crawl: Crawl) -> None:
    """A page that does not answer within page_timeout fails; the crawl goes on."""
    site.page("/", ["/slow", "/fast"])
    site.route("/slow", lambda handler: handler.server.closed.wait(30))
    site.page("/fast")
    outcome, reports = crawl(limits=CrawlLimits(page_timeout=0.5, request_delay=0.0))
    assert [f.url for f in reports.failures] == [site.url("/slow")]
    assert "0.5 seconds" in reports.failures[0].reason
    assert reports.paths == ["/", "/fast"] and outcome.status == "partial"


def test_a_non_html_answer_is_skipped(site: CrawlSite, crawl: Crawl) -> None:
    """A PDF is neither a page nor a failure: skipped, and the crawl is completed."""
    site.page("/", ["/file"])
    site.route("/file", answer(200, b"%PDF-1.7 binary", "application/pdf"))
    outcome, reports = crawl()
    assert (reports.paths, reports.failures, outcome.pages_skipped, outcome.status) == (["/"], [], 1, "completed")


def test_an_error_status_is_a_page_failure(site: CrawlSite, crawl: Crawl) -> None:
    """A broken link fails its page with the status; the crawl is partial."""
    site.page("/", ["/missing"])
    outcome, reports = crawl()
    assert (reports.failures[0].reason, outcome.status) == ("The page answered HTTP 404.", "partial")


def test_a_start_page_that_fails_fails_the_crawl(site: CrawlSite, crawl: Crawl) -> None:
    """Nothing stored: failed, with the start page's failure as the crawl error."""
    outcome, _ = crawl(path="/nothing-here")
    assert outcome.status == "failed"
    assert outcome.error is not None and "HTTP 404" in outcome.error


def test_a_robots_file_that_errors_closes_the_site(site: CrawlSite, crawl: Crawl) -> None:
    """robots.txt answering 503: nothing is crawled and the error says why (RFC 9309)."""
    site.route("/robots.txt", answer(503, b"busy", "text/plain"))
    site.page("/")
    outcome, _ = crawl()
    assert outcome.status == "failed"
    assert outcome.error is not None and "HTTP 503" in outcome.error
    assert not site.requested("/")


def test_a_redirect_off_the_site_is_a_page_failure(site: CrawlSite, crawl: Crawl) -> None:
    """A hop to another (allowed) host is refused: the crawl stays on its site."""
    site.page("/", ["/away"])
    site.route("/away", redirect(site.url("/x").replace("127.0.0.1", "localhost")))
    _, reports = crawl()
    assert "off the site" in reports.failures[0].reason


def test_a_noindex_page_is_not_stored_but_its_links_are_followed(site: CrawlSite, crawl: Crawl) -> None:
    """`<meta name=robots content=noindex>`: skipped, yet the pages it links to are crawled."""
    site.page("/", ["/hidden"])
    site.page("/hidden", ["/shown"], head='<meta name="robots" content="noindex">')
    site.page("/shown")
    outcome, reports = crawl()
    assert (reports.paths, outcome.pages_skipped) == (["/", "/shown"], 1)


def test_a_gzip_encoded_page_is_decoded(site: CrawlSite, crawl: Crawl) -> None:
    """A page sent with Content-Encoding gzip is read as its HTML."""
    body = gzip.compress(html_page("Zipped", "Compressed words that the crawler should read without trouble."))
    site.route("/", answer(200, body, headers=[("Content-Encoding", "gzip")]))
    _, reports = crawl()
    assert reports.pages[0].title == "Zipped"


def test_crawl_delay_is_honoured_up_to_the_cap(site: CrawlSite, policy: AddressPolicy) -> None:
    """robots.txt asks for 60 s between requests; the crawler waits its 2 s cap before each page."""
    site.robots("User-agent: *\nCrawl-delay: 60\n")
    site.page("/", ["/a"])
    site.page("/a")
    clock = _Clock()
    crawler = HttpCrawler(
        policy,
        CrawlLimits(page_timeout=5.0, request_delay=0.5, max_crawl_delay=2.0),
        clock=clock.time,
        sleep=clock.sleep,
    )
    crawler.crawl(CrawlPlan(site.url("/")), on_page=Reports().on_page, on_failure=Reports().on_failure)
    assert sum(clock.sleeps) == pytest.approx(4.0)  # after robots.txt, then after the start page
    assert site.requested("/a")


def test_the_request_delay_spaces_requests_without_robots_rules(site: CrawlSite, policy: AddressPolicy) -> None:
    """Without Crawl-delay, request_delay is waited before each request to the origin but the first."""
    site.page("/", ["/a"])
    site.page("/a")
    clock = _Clock()
    crawler = HttpCrawler(policy, CrawlLimits(page_timeout=5.0, request_delay=0.5), clock=clock.time, sleep=clock.sleep)
    crawler.crawl(CrawlPlan(site.url("/")), on_page=Reports().on_page, on_failure=Reports().on_failure)
    assert sum(clock.sleeps) == pytest.approx(1.0)


def test_json_ld_products_are_found(site: CrawlSite, crawl: Crawl) -> None:
    """A schema.org Product in JSON-LD (inside @graph, with an Offer) yields a FoundProduct."""
    data = (
        '{"@context": "https://schema.org", "@graph": [{"@type": "WebSite", "name": "Shop"},'
        ' {"@type": "Product", "name": "Blue Kettle", "sku": "K-1", "image": "/img/k.png",'
        ' "description": "A kettle.", "offers": {"@type": "Offer", "price": "24.50", "priceCurrency": "eur"}}]}'
    )
    site.page("/", head=f'<script type="application/ld+json">{data}</script>')
    _, reports = crawl()
    assert reports.pages[0].products == (
        FoundProduct(
            name="Blue Kettle",
            price=Decimal("24.50"),
            currency="EUR",
            sku="K-1",
            url=site.url("/"),
            image_url=site.url("/img/k.png"),
            description="A kettle.",
        ),
    )


def test_microdata_products_are_found(site: CrawlSite, crawl: Crawl) -> None:
    """A schema.org Product in microdata with an offers scope yields name, price and currency."""
    body = (
        '<div itemscope itemtype="https://schema.org/Product"><h2 itemprop="name">Red Mug</h2>'
        '<div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Acme</span></div>'
        '<div itemprop="offers" itemscope itemtype="https://schema.org/Offer">'
        '<span itemprop="price" content="9.90">9,90 €</span><meta itemprop="priceCurrency" content="EUR"></div></div>'
    )
    site.route("/", answer(200, f"<html><head><title>Mug</title></head><body>{body}</body></html>".encode()))
    _, reports = crawl()
    assert reports.pages[0].products == (
        FoundProduct(name="Red Mug", price=Decimal("9.90"), currency="EUR", url=site.url("/")),
    )


def test_resume_neither_refetches_nor_reports_pages_already_stored(site: CrawlSite, crawl: Crawl) -> None:
    """Pages passed in already_done are not requested or reported; their known links still lead on."""
    site.page("/", ["/a", "/b"])
    site.page("/a", ["/a/next"])
    site.page("/b")
    site.page("/a/next")
    done = {site.url("/"): [site.url("/a"), site.url("/b")], site.url("/a"): [site.url("/a/next")]}
    outcome, reports = crawl(already_done=set(done), known_links=done)
    assert reports.paths == ["/b", "/a/next"]
    assert not site.requested("/") and not site.requested("/a")
    assert (outcome.pages_crawled, outcome.status) == (4, "completed")


def test_resume_without_known_links_cannot_discover_through_stored_pages(site: CrawlSite, crawl: Crawl) -> None:
    """Without a stored page's links, pages reached only through it are not found again."""
    site.page("/", ["/a"])
    site.page("/a")
    outcome, reports = crawl(already_done={site.url("/")})
    assert (reports.pages, outcome.pages_crawled) == ([], 1)


def test_stored_pages_count_against_the_page_limit_on_resume(site: CrawlSite, crawl: Crawl) -> None:
    """With max_pages 2 and one page stored, one more page is crawled."""
    site.page("/", ["/a", "/b"])
    site.page("/a")
    site.page("/b")
    outcome, reports = crawl(
        max_pages=2, already_done={site.url("/")}, known_links={site.url("/"): [site.url("/a"), site.url("/b")]}
    )
    assert (reports.paths, outcome.pages_crawled) == (["/a"], 2)


def test_should_stop_ends_the_crawl_before_the_next_request(site: CrawlSite, crawl: Crawl) -> None:
    """Told to stop after the first page, the crawler requests nothing more and reports stopped."""
    site.page("/", ["/a", "/b"])
    site.page("/a")
    site.page("/b")
    outcome, reports = crawl(should_stop=lambda: site.requested("/"))
    assert (reports.paths, outcome.stopped, outcome.status) == (["/"], True, "partial")
    assert not site.requested("/a")


def test_progress_is_monotone_and_ends_at_one_hundred(site: CrawlSite, crawl: Crawl) -> None:
    """Each report's percent is at least the previous one's; the outcome says 100."""
    site.page("/", ["/a", "/b", "/c"])
    for path in ("/a", "/b", "/c"):
        site.page(path)
    outcome, reports = crawl()
    percents = [p.percent for p in reports.progress]
    assert percents == sorted(percents) and percents[-1] < 100
    assert outcome.progress.percent == 100


class _Clock:
    """A clock that only moves when the crawler sleeps, recording each sleep."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _sitemap(site: CrawlSite, *paths: str) -> bytes:
    urls = "".join(f"<url><loc>{site.url(path)}</loc></url>" for path in paths)
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'.encode()


class _Sent:
    def __init__(self) -> None:
        self.count = 0
        self.done = threading.Event()


def _stream_huge_page(site: CrawlSite, path: str, size: int) -> _Sent:
    """Serve `size` bytes of HTML lazily, chunk by chunk; `done` once the handler stops writing."""
    sent = _Sent()
    head = html_page("Huge", "The beginning of a very long page, before the filler.").replace(
        b"</main></body></html>", b""
    )
    filler = b"<p>" + b"filler text " * 5000 + b"</p>"

    def route(handler: SiteHandler) -> None:
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "text/html; charset=utf-8")
            handler.send_header("Content-Length", str(size))
            handler.end_headers()
            handler.wfile.write(head)
            sent.count = len(head)
            while sent.count < size:
                chunk = filler[: size - sent.count]
                handler.wfile.write(chunk)
                sent.count += len(chunk)
        except OSError:
            pass  # the crawler hung up, as it should
        finally:
            sent.done.set()

    site.route(path, route)
    return sent
