"""Website crawls (SPEC 2, Website record; SPEC 3, crawl states): what a crawl is asked to do, what it
reports, and the rules for its status and progress. The crawler itself is a port (`Crawler`); the
HTTP one lives in `engage_connectors.crawler`.

States: a crawl starts `pending` with nothing counted, becomes `crawling` when it starts, and ends
`completed` (every page attempted succeeded), `partial` (some pages failed, or it was stopped before
it was done, with at least one page stored) or `failed` (no page stored, or robots.txt forbids the
start page). `CrawlTally` is that state machine; `final_status` the end rule as a pure function.

Progress (`progress_pct`) is 0-100 and never goes back: pages attempted against
`min(max_pages, total_pages_found)`, held at most 99 until the crawl ends, and 100 once it has ended,
whatever the status. `total_pages_found` only grows.

Resume after a crash. The caller records each page as `on_page` reports it, before the crawler moves
on. To resume, it calls `crawl` again with the same plan, `already_done` = the (normalised) URLs it
stored, and, if it kept them, `known_links` = each stored page's `links`. The crawler then:

- counts every `already_done` URL as crawled from the start (so `pages_crawled` equals the pages the
  caller holds and `max_pages` still bounds the total), and never fetches or reports it again;
- walks the site in the same breadth-first order; when it reaches a done URL it expands that
  page's `known_links` as if it had fetched it. Without `known_links` a done page is a dead end:
  pages reachable only through it are not found again (the crawl is smaller, never duplicated);
- retries pages that failed before (failures are not stored, so they are not in `already_done`).

`should_stop()` is asked before every request and while waiting between requests; once it answers
True the crawler returns at once with `stopped` set. A durable job that stops for shutdown keeps the
crawl `crawling` and resumes it later; one that cancels stores the outcome's status.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from decimal import Decimal
from typing import Protocol

import attrs

CRAWL_STATUSES: tuple[str, ...] = ("pending", "crawling", "completed", "partial", "failed")
FINAL_STATUSES: frozenset[str] = frozenset({"completed", "partial", "failed"})
MAX_PAGES_RANGE = (1, 100)
MAX_DEPTH_RANGE = (1, 5)
DEFAULT_MAX_PAGES = 10
DEFAULT_MAX_DEPTH = 2


def _in_range(bounds: tuple[int, int]) -> Callable[[object, attrs.Attribute[int], int], None]:
    low, high = bounds

    def check(_instance: object, attribute: attrs.Attribute[int], value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError(f"{attribute.name} must be an integer from {low} to {high}, not {value!r}.")

    return check


def parse_path_prefixes(text: str | None) -> tuple[str, ...]:
    """`allowed_paths` / `excluded_paths` as sent (comma-separated prefixes) as absolute path prefixes:
    `"blog, /docs/"` -> `("/blog", "/docs/")`. Blank items are dropped; order is kept."""
    prefixes: list[str] = []
    for item in (text or "").split(","):
        item = item.strip()
        if item:
            prefix = item if item.startswith("/") else "/" + item
            if prefix not in prefixes:
                prefixes.append(prefix)
    return tuple(prefixes)


def path_matches(path: str, prefix: str) -> bool:
    """Whether `path` lies under `prefix`, on a segment boundary: `/blog` covers `/blog`, `/blog/x`
    and `/blog?page=2`'s path `/blog`, but not `/blogger`; a prefix ending in `/` is a plain prefix."""
    if prefix.endswith("/"):
        return path.startswith(prefix) or path == prefix[:-1]
    return path == prefix or path.startswith(prefix + "/")


@attrs.frozen
class CrawlPlan:
    """What to crawl (SPEC 5, POST /knowledge-base/website).

    `entire_site` False keeps the crawl on the start URL's host, with or without `www.`
    (`example.com` and `www.example.com` are one site; `shop.example.com` is another). True widens it
    to every host of the start URL's registrable domain (`*.example.com`, by the Public Suffix List).
    `allowed_paths` (when not empty) and `excluded_paths` filter every page but the start page.
    """

    start_url: str
    max_pages: int = attrs.field(default=DEFAULT_MAX_PAGES, validator=_in_range(MAX_PAGES_RANGE))
    max_depth: int = attrs.field(default=DEFAULT_MAX_DEPTH, validator=_in_range(MAX_DEPTH_RANGE))
    entire_site: bool = False
    allowed_paths: tuple[str, ...] = ()
    excluded_paths: tuple[str, ...] = ()
    sitemap_url: str | None = None

    def path_in_scope(self, path: str) -> bool:
        """Whether a page with this path may be crawled, by the path filters alone."""
        if any(path_matches(path, prefix) for prefix in self.excluded_paths):
            return False
        return not self.allowed_paths or any(path_matches(path, prefix) for prefix in self.allowed_paths)


@attrs.frozen
class FoundProduct:
    """A product a page declares (schema.org `Product`), ready to become a catalog product.
    `price` is exact, to the minor unit; `currency` an upper-case ISO 4217 code, or None if the page
    gave none (the catalog then uses its default)."""

    name: str
    price: Decimal | None = None
    currency: str | None = None
    sku: str | None = None
    url: str | None = None
    image_url: str | None = None
    description: str | None = None


@attrs.frozen
class CrawledPage:
    """A page fetched and read. `url` is the normalised URL that was queued (the key to store and to
    pass back in `already_done`); `final_url` where redirects ended. `links` are the in-scope page
    URLs it links to, normalised, in document order: keep them to resume without losing discovery.
    `truncated` when the page was longer than the byte limit and only its beginning was read."""

    url: str
    final_url: str
    title: str | None
    text: str
    depth: int
    links: tuple[str, ...] = ()
    products: tuple[FoundProduct, ...] = ()
    truncated: bool = False


@attrs.frozen
class PageFailure:
    """A page that could not be crawled, and why (refused address, timeout, error status...)."""

    url: str
    reason: str
    depth: int = 0


@attrs.frozen
class CrawlProgress:
    pages_crawled: int
    total_pages_found: int
    percent: int


def final_status(*, pages_crawled: int, pages_failed: int, start_forbidden: bool = False, stopped: bool = False) -> str:
    """How a crawl ends: `failed` when robots.txt forbids the start page or no page was stored;
    otherwise `partial` when a page failed or the crawl was stopped early; else `completed`."""
    if start_forbidden or pages_crawled <= 0:
        return "failed"
    if pages_failed > 0 or stopped:
        return "partial"
    return "completed"


class CrawlStateError(Exception):
    """A transition the crawl's state does not allow (a page counted before the start or after the end)."""


@attrs.frozen
class CrawlTally:
    """A crawl's state and counts; every transition returns a new tally and keeps the invariants:
    `pages_crawled + pages_failed <= max_pages`, `total_pages_found` and `percent` never decrease,
    `percent` in 0-100 and 100 exactly once the status is final."""

    max_pages: int
    status: str = "pending"
    pages_crawled: int = 0
    pages_failed: int = 0
    total_pages_found: int = 0
    percent: int = 0

    @property
    def attempted(self) -> int:
        return self.pages_crawled + self.pages_failed

    @property
    def progress(self) -> CrawlProgress:
        return CrawlProgress(self.pages_crawled, self.total_pages_found, self.percent)

    def started(self, *, already_done: int = 0) -> CrawlTally:
        """`pending` -> `crawling`; pages stored by an earlier run count as crawled."""
        if self.status != "pending":
            raise CrawlStateError(f"A {self.status} crawl cannot start.")
        done = min(already_done, self.max_pages)
        return attrs.evolve(self, status="crawling", pages_crawled=done, total_pages_found=done)._ratcheted()

    def found(self, total: int) -> CrawlTally:
        """`total` distinct pages known so far (kept if lower than what was already counted)."""
        self._require_crawling()
        return attrs.evolve(self, total_pages_found=max(self.total_pages_found, total, self.attempted))._ratcheted()

    def crawled(self) -> CrawlTally:
        self._require_room()
        return attrs.evolve(self, pages_crawled=self.pages_crawled + 1)._ratcheted()

    def failed(self) -> CrawlTally:
        self._require_room()
        return attrs.evolve(self, pages_failed=self.pages_failed + 1)._ratcheted()

    def finished(self, *, start_forbidden: bool = False, stopped: bool = False) -> CrawlTally:
        """`crawling` (or `pending`, for a crawl refused before it began) -> its final status."""
        if self.status in FINAL_STATUSES:
            raise CrawlStateError("The crawl has already ended.")
        status = final_status(
            pages_crawled=self.pages_crawled,
            pages_failed=self.pages_failed,
            start_forbidden=start_forbidden,
            stopped=stopped,
        )
        return attrs.evolve(self, status=status, percent=100)

    @property
    def has_room(self) -> bool:
        return self.attempted < self.max_pages

    def _require_crawling(self) -> None:
        if self.status != "crawling":
            raise CrawlStateError(f"A {self.status} crawl counts no pages.")

    def _require_room(self) -> None:
        self._require_crawling()
        if not self.has_room:
            raise CrawlStateError("The crawl has already reached max_pages.")

    def _ratcheted(self) -> CrawlTally:
        total = max(self.total_pages_found, self.attempted)
        target = max(1, min(self.max_pages, total))
        percent = max(self.percent, min(99, self.attempted * 100 // target))
        return attrs.evolve(self, total_pages_found=total, percent=percent)


@attrs.frozen
class CrawlOutcome:
    """How a crawl ended. `error` is the `crawl_error` to show (None when `completed`)."""

    status: str
    pages_crawled: int
    pages_failed: int
    pages_skipped: int
    total_pages_found: int
    progress: CrawlProgress
    error: str | None = None
    stopped: bool = False


OnPage = Callable[[CrawledPage, CrawlProgress], None]
OnFailure = Callable[[PageFailure, CrawlProgress], None]


class Crawler(Protocol):
    def crawl(
        self,
        plan: CrawlPlan,
        *,
        on_page: OnPage,
        on_failure: OnFailure,
        should_stop: Callable[[], bool] = ...,
        already_done: Collection[str] = ...,
        known_links: Mapping[str, Sequence[str]] = ...,
    ) -> CrawlOutcome:
        """Crawl `plan` breadth-first, reporting each page and failure as it happens (see the module
        docstring for resume and stop semantics). Never raises for what a site does: a refused
        address, an error status or a timeout is a `PageFailure`; a start page robots.txt forbids,
        or no page at all, a `failed` outcome."""
        ...
