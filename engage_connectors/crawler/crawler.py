"""`HttpCrawler`: the `Crawler` port over HTTP, breadth-first, one request at a time.

Order: robots.txt of the start URL's origin, then the start page (depth 0), then the pages its
sitemap lists (depth 1: `sitemap_url` when given, else the robots.txt `Sitemap` lines), then links,
level by level. A page is queued only if it is on the crawl's site, passes the path filters, is
allowed by its origin's robots.txt, is within `max_depth`, and was not queued before (`page_key`).
At most `max_pages` pages are attempted (stored or failed): the sitemap's URLs count like any other.
Non-HTML answers (by Content-Type) and pages marked `noindex` are skipped: not stored, not failed,
not counted against `max_pages`; a URL whose redirects end at a page already crawled is skipped too.

Politeness: requests are sequential (one connection in use at a time, so a site sees one visitor);
between two requests to one origin the crawler waits `request_delay`, or the origin's robots.txt
`Crawl-delay` when longer, up to `max_crawl_delay`. The wait ends early when `should_stop` says so.

Callbacks run on the crawling thread; an exception they raise ends the crawl and propagates (the
durable job retries and resumes with what it stored).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Collection, Mapping, Sequence

import attrs

from engage_connectors.crawler.content import decode_html, read_content
from engage_connectors.crawler.fetching import Fetched, FetchFailed, PageFetcher
from engage_connectors.crawler.links import read_links
from engage_connectors.crawler.products import find_products
from engage_connectors.crawler.robots import ROBOTS_MAX_BYTES, RobotsCache
from engage_connectors.crawler.sitemap import sitemap_page_urls
from engage_connectors.crawler.urls import (
    host_in_site,
    host_of,
    normalise_url,
    origin_of,
    page_key,
    path_of,
    site_of,
)
from engage_connectors.ssrf import AddressPolicy
from engage_core.knowledge.crawling import (
    CrawledPage,
    CrawlOutcome,
    CrawlPlan,
    CrawlTally,
    OnFailure,
    OnPage,
    PageFailure,
)

USER_AGENT = "engage-crawler/1.0 (+https://github.com/engage-platform/engage; knowledge-base crawler)"
AGENT_TOKEN = "engage"  # noqa: S105 - a robots.txt agent name, not a secret
"""The name robots.txt groups are matched against (`User-agent: engage`)."""

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


@attrs.frozen
class CrawlLimits:
    """The crawler's own limits (the plan's are `max_pages` and `max_depth`)."""

    page_timeout: float = 20.0
    """Seconds for one page, every redirect hop and the whole body included."""
    max_page_bytes: int = 5 * 1024 * 1024
    """A longer page is cut here and read as far as it goes (`CrawledPage.truncated`)."""
    request_delay: float = 1.0
    """Seconds between two requests to one origin."""
    max_crawl_delay: float = 10.0
    """A robots.txt `Crawl-delay` is honoured up to this many seconds."""
    max_redirects: int = 5
    max_sitemap_bytes: int = 10 * 1024 * 1024
    max_sitemap_files: int = 10
    max_sitemap_urls: int = 10_000
    user_agent: str = USER_AGENT


def is_html(content_type: str | None) -> bool:
    """HTML by its Content-Type; an answer without one is read too (the parsers cope with anything)."""
    if not content_type:
        return True
    return content_type.split(";")[0].strip().lower() in HTML_TYPES


def _never() -> bool:
    return False


class HttpCrawler:
    def __init__(
        self,
        policy: AddressPolicy,
        limits: CrawlLimits | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """`clock` and `sleep` pace the requests (tests pass their own to see the waits)."""
        self._policy = policy
        self._limits = limits or CrawlLimits()
        self._pace = _Pace(clock, sleep)

    def crawl(
        self,
        plan: CrawlPlan,
        *,
        on_page: OnPage,
        on_failure: OnFailure,
        should_stop: Callable[[], bool] = _never,
        already_done: Collection[str] = frozenset(),
        known_links: Mapping[str, Sequence[str]] = {},
    ) -> CrawlOutcome:
        fetcher = PageFetcher(
            self._policy,
            user_agent=self._limits.user_agent,
            timeout=self._limits.page_timeout,
            max_redirects=self._limits.max_redirects,
        )
        try:
            run = _Run(
                plan, self._limits, self._pace, fetcher, on_page, on_failure, should_stop, already_done, known_links
            )
            return run.execute()
        finally:
            fetcher.close()


@attrs.frozen
class _Pace:
    clock: Callable[[], float]
    sleep: Callable[[float], None]


class _Run:
    """One crawl's state: the queue, what was seen, the tally, the time of the last request per origin."""

    def __init__(
        self,
        plan: CrawlPlan,
        limits: CrawlLimits,
        pace: _Pace,
        fetcher: PageFetcher,
        on_page: OnPage,
        on_failure: OnFailure,
        should_stop: Callable[[], bool],
        already_done: Collection[str],
        known_links: Mapping[str, Sequence[str]],
    ) -> None:
        self.plan = plan
        self.limits = limits
        self.pace = pace
        self.fetcher = fetcher
        self.on_page = on_page
        self.on_failure = on_failure
        self.should_stop = should_stop
        self.done = {page_key(url) for url in (normalise_url(u) for u in already_done) if url is not None}
        self.known_links = {
            page_key(url): links for url, links in ((normalise_url(u), v) for u, v in known_links.items()) if url
        }
        self.robots = RobotsCache(self._fetch_robots, AGENT_TOKEN)
        self.queue: deque[tuple[str, int]] = deque()
        self.seen: set[str] = set()
        self.fetched: set[str] = set(self.done)
        self.last_request: dict[str, float] = {}
        self.tally = CrawlTally(plan.max_pages)
        self.skipped = 0
        self.found = 0  # distinct pages queued: `total_pages_found`
        self.site = ""
        self.first_failure: str | None = None

    # -- the crawl --------------------------------------------------------------------------

    def execute(self) -> CrawlOutcome:
        start = normalise_url(self.plan.start_url)
        if start is None:
            return self._end(error="The website URL is not an http(s) URL.")
        self.site = site_of(host_of(start), entire_site=self.plan.entire_site)
        self.tally = self.tally.started(already_done=len(self.done))
        rules = self.robots.rules_for(start)
        if not rules.allowed(start):
            why = rules.unavailable or "robots.txt does not allow crawling the start page"
            if rules.unavailable:
                why += ", so the site is treated as closed to crawlers (RFC 9309)"
            return self._end(start_forbidden=True, error=why + ".")
        self.seen.add(page_key(start))
        self.queue.append((start, 0))
        self.found = 1
        self._queue_sitemap(start)
        stopped = False
        while self.queue and self.tally.has_room:
            if self.should_stop():
                stopped = True
                break
            url, depth = self.queue.popleft()
            key = page_key(url)
            if key in self.done:
                self._queue_links(self.known_links.get(key, ()), depth)
                continue
            if not self._wait_turn(url):
                stopped = True
                break
            self._visit(url, depth)
        return self._end(stopped=stopped)

    def _visit(self, url: str, depth: int) -> None:
        try:
            fetched = self.fetcher.follow(
                url, max_bytes=self.limits.max_page_bytes, want=is_html, objection=self._hop_objection
            )
        except FetchFailed as exc:
            self._failed(url, depth, str(exc))
            return
        finally:
            self.last_request[origin_of(url)] = self.pace.clock()
        if fetched.status >= 300:
            self._failed(url, depth, f"The page answered HTTP {fetched.status}.")
            return
        if page_key(url) in self.fetched or page_key(fetched.url) in self.fetched:
            self.skipped += 1  # an alias (through redirects) of a page already crawled
            return
        # Both keys are taken: a later link to where this page ended is not queued or fetched again.
        self.fetched.update((page_key(url), page_key(fetched.url)))
        self.seen.add(page_key(fetched.url))
        if not fetched.wanted:
            self.skipped += 1  # not HTML
            return
        try:
            page = self._read(url, depth, fetched)
        except Exception as exc:  # a parser tripped on hostile markup: that page fails, not the crawl
            self._failed(url, depth, f"The page could not be read: {type(exc).__name__}.")
            return
        if page is None:
            self.skipped += 1  # noindex
            return
        self.tally = self.tally.crawled().found(self.found)
        self.on_page(page, self.tally.progress)

    def _read(self, url: str, depth: int, fetched: Fetched) -> CrawledPage | None:
        """The page, after queueing its links; None when it asks not to be indexed."""
        html = decode_html(fetched.body, fetched.content_type)
        page_links = read_links(html, fetched.url)
        links = () if page_links.nofollow else tuple(u for u in page_links.links if self._in_scope(u))
        self._queue_links(links, depth)
        if page_links.noindex:
            return None
        content = read_content(html, fetched.url)
        return CrawledPage(
            url=url,
            final_url=fetched.url,
            title=content.title,
            text=content.text,
            depth=depth,
            links=links,
            products=find_products(html, fetched.url),
            truncated=fetched.truncated,
        )

    def _failed(self, url: str, depth: int, reason: str) -> None:
        self.first_failure = self.first_failure or reason
        self.tally = self.tally.failed().found(self.found)
        self.on_failure(PageFailure(url, reason, depth), self.tally.progress)

    def _end(self, *, start_forbidden: bool = False, stopped: bool = False, error: str | None = None) -> CrawlOutcome:
        tally = self.tally.found(self.found) if self.tally.status == "crawling" else self.tally
        tally = tally.finished(start_forbidden=start_forbidden, stopped=stopped)
        if error is None and tally.status == "failed":
            error = f"No page could be crawled: {self.first_failure or 'the site had no HTML page to read.'}"
        elif error is None and tally.status == "partial":
            error = (
                f"{tally.pages_failed} of {tally.attempted} pages could not be crawled."
                if tally.pages_failed
                else "The crawl was stopped before it finished."
            )
        return CrawlOutcome(
            status=tally.status,
            pages_crawled=tally.pages_crawled,
            pages_failed=tally.pages_failed,
            pages_skipped=self.skipped,
            total_pages_found=tally.total_pages_found,
            progress=tally.progress,
            error=error,
            stopped=stopped,
        )

    # -- what is queued ---------------------------------------------------------------------

    def _in_site(self, url: str) -> bool:
        return host_in_site(host_of(url), self.site, entire_site=self.plan.entire_site)

    def _in_scope(self, url: str) -> bool:
        """On the site and through the path filters (robots.txt is asked when the link is queued)."""
        return self._in_site(url) and self.plan.path_in_scope(path_of(url))

    def _queue_links(self, links: Sequence[str], depth: int) -> None:
        if depth >= self.plan.max_depth:
            return
        for link in links:
            self._queue(link, depth + 1)

    def _queue(self, url: str, depth: int) -> None:
        key = page_key(url)
        if key in self.seen or not self._in_scope(url) or not self.robots.allowed(url):
            return
        self.seen.add(key)
        self.queue.append((url, depth))
        self.found += 1

    def _queue_sitemap(self, start: str) -> None:
        roots = [self.plan.sitemap_url] if self.plan.sitemap_url else list(self.robots.rules_for(start).sitemaps)
        roots = [url for url in (normalise_url(root) for root in roots) if url is not None]
        if not roots:
            return
        for listed in sitemap_page_urls(
            roots,
            self._fetch_sitemap,
            max_bytes=self.limits.max_sitemap_bytes,
            max_files=self.limits.max_sitemap_files,
            max_urls=self.limits.max_sitemap_urls,
        ):
            url = normalise_url(listed)
            if url is not None:
                self._queue(url, 1)

    # -- requests that are not pages --------------------------------------------------------

    def _hop_objection(self, url: str) -> str | None:
        """Why a page's redirect may not go to `url` (the address guard has already passed it)."""
        if not self._in_site(url):
            return f"The page redirects off the site, to {url}."
        if not self.robots.allowed(url):
            return f"The page redirects to {url}, which robots.txt does not allow."
        return None

    def _fetch_robots(self, url: str) -> Fetched:
        try:
            return self.fetcher.follow(url, max_bytes=ROBOTS_MAX_BYTES)
        finally:
            self.last_request[origin_of(url)] = self.pace.clock()

    def _fetch_sitemap(self, url: str) -> bytes | None:
        if not self._wait_turn(url):
            return None
        try:
            fetched = self.fetcher.follow(url, max_bytes=self.limits.max_sitemap_bytes)
        except FetchFailed:
            return None
        finally:
            self.last_request[origin_of(url)] = self.pace.clock()
        return fetched.body if fetched.status < 300 else None

    def _wait_turn(self, url: str) -> bool:
        """Wait until the origin may be asked again; False if told to stop meanwhile."""
        origin = origin_of(url)
        last = self.last_request.get(origin)
        if last is None:
            return not self.should_stop()
        delay = self.limits.request_delay
        robots_delay = self.robots.rules_for(url).crawl_delay
        if robots_delay is not None:
            delay = max(delay, min(robots_delay, self.limits.max_crawl_delay))
        until = last + delay
        while True:
            if self.should_stop():
                return False
            left = until - self.pace.clock()
            if left <= 0:
                return True
            self.pace.sleep(min(left, 0.05))  # in slices, so a stop is noticed
