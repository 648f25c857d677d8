"""The crawl job as a state machine over the fakes: runs, shutdowns mid-crawl and crashes mid-crawl
(the process dying after any page) in any order keep the website record's counts and progress true,
never store or report a page twice, and end with every page read and chunked, announced once."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping, Sequence

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engage_core.jobs.model import RetryLater
from engage_core.jobs.runner import JobContext, JobRunner
from engage_core.knowledge.crawling import (
    CRAWL_STATUSES,
    CrawledPage,
    CrawlOutcome,
    CrawlPlan,
    CrawlProgress,
    OnFailure,
    OnPage,
)
from engage_core.knowledge.website_fakes import ScriptedCrawler
from engage_core.knowledge.websites import CRAWL_JOB, Website, WebsiteInput
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryJobQueue, InMemoryUnitOfWorkFactory
from engage_core.webhooks.fakes import AllowAllTargets

from ..factories import START

SITE = "https://example.com/"
LEASE = 60.0


class Crash(Exception):
    """The process running the job died."""


class SteppedCrawler:
    """Wraps the scripted crawler: after `after` pages stored, either sets `stop` (a shutdown) or
    raises `Crash` (a process killed just after a commit)."""

    def __init__(self, inner: ScriptedCrawler) -> None:
        self.inner = inner
        self.after: int | None = None
        self.crash = False
        self.stop: threading.Event | None = None
        self.stored: list[str] = []

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
        seen = 0

        def page(crawled: CrawledPage, progress: CrawlProgress) -> None:
            nonlocal seen
            on_page(crawled, progress)
            self.stored.append(crawled.url)
            seen += 1
            if self.after is not None and seen >= self.after:
                if self.crash:
                    raise Crash(crawled.url)
                assert self.stop is not None
                self.stop.set()

        return self.inner.crawl(
            plan,
            on_page=page,
            on_failure=on_failure,
            should_stop=should_stop,
            already_done=already_done,
            known_links=known_links,
        )


class CrawlMachine(RuleBasedStateMachine):
    @initialize(pages=st.integers(1, 6), max_pages=st.integers(1, 8))
    def start(self, pages: int, max_pages: int) -> None:
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        script = [CrawledPage(f"{SITE}p{i}", f"{SITE}p{i}", f"Page {i}", f"Text of page {i}.", 1) for i in range(pages)]
        self.crawler = SteppedCrawler(ScriptedCrawler(script))
        self.services = Services.build(self.uow, self.clock, guard=AllowAllTargets(), crawler=self.crawler)
        self.handlers = self.services.job_handlers()
        self.queue = InMemoryJobQueue(self.uow.store)
        self.account = self.services.accounts.create("Acme").account.id
        created = self.services.websites.create(
            self.account, WebsiteInput(title="Site", website_url=SITE, max_pages=max_pages)
        )
        self.entry = created.knowledge_base.id
        self.expected = min(pages, max_pages)
        self.crashes = 0
        self.recrawls = 0
        self.last_progress = 0

    def _website(self) -> Website:
        with self.uow.workspace(self.account, readonly=True) as uow:
            website = uow.knowledge_websites.get(self.entry)
        assert website is not None
        return website

    def _pages(self) -> int:
        with self.uow.workspace(self.account, readonly=True) as uow:
            return len(uow.knowledge_websites.pages(self.entry))

    def _done(self) -> bool:
        with self.uow.workspace(self.account, readonly=True) as uow:
            job = uow.jobs.find(CRAWL_JOB, f"entry:{self.entry}")
        return job is not None and job.finished

    def _drive(self, after: int, *, crash: bool) -> None:
        """Run one attempt by hand, interrupted after `after` pages."""
        claims = self.queue.claim({CRAWL_JOB}, self.clock.now(), LEASE, 1)
        if not claims:
            return
        claim = claims[0]
        stop = threading.Event()
        self.crawler.after, self.crawler.crash, self.crawler.stop = after, crash, stop
        try:
            self.handlers[CRAWL_JOB](JobContext(claim, stop))
        except Crash:
            self.crashes += 1
            self.clock.advance(seconds=LEASE + 1)  # nothing recorded: the lease runs out
            return
        except RetryLater as later:
            self.queue.retry(claim, str(later), self.clock.now(), self.clock.now(), counts=False)
            return
        finally:
            self.crawler.after = None
        self.queue.succeed(claim, self.clock.now())

    @precondition(lambda self: not self._done())
    @rule(after=st.integers(1, 3))
    def shutdown_mid_crawl(self, after: int) -> None:
        self._drive(after, crash=False)

    @precondition(lambda self: not self._done() and self.crashes < 3)
    @rule(after=st.integers(1, 3))
    def crash_mid_crawl(self, after: int) -> None:
        self._drive(after, crash=True)

    @precondition(lambda self: not self._done())
    @rule()
    def run_to_the_end(self) -> None:
        JobRunner(self.queue, self.handlers, self.clock, lease_seconds=LEASE).run_once()

    @rule(seconds=st.sampled_from([1, 30, LEASE + 1]))
    def time_passes(self, seconds: float) -> None:
        self.clock.advance(seconds=seconds)

    @precondition(lambda self: self._done())
    @rule()
    def recrawl(self) -> None:
        self.services.websites.recrawl(self.account, self.entry)
        self.recrawls += 1
        self.crashes = 0
        self.last_progress = 0
        self.crawler.stored.clear()

    @invariant()
    def no_page_is_stored_twice(self) -> None:
        if hasattr(self, "crawler"):
            assert len(self.crawler.stored) == len(set(self.crawler.stored))

    @invariant()
    def the_record_tells_the_truth(self) -> None:
        if not hasattr(self, "crawler"):
            return
        website = self._website()
        assert website.crawl_status in CRAWL_STATUSES
        assert 0 <= website.progress_pct <= 100
        assert website.progress_pct >= self.last_progress
        self.last_progress = website.progress_pct
        assert (website.progress_pct == 100) == website.completed
        assert website.pages_crawled == self._pages() <= website.max_pages
        assert website.total_pages_found >= website.pages_crawled

    @invariant()
    def a_finished_crawl_read_every_page_and_announced_it_once(self) -> None:
        if not hasattr(self, "crawler") or not self._done():
            return
        website = self._website()
        assert website.crawl_status == "completed"
        assert website.pages_crawled == self.expected
        with self.uow.workspace(self.account, readonly=True) as uow:
            chunks = uow.knowledge_chunks.for_entry(self.entry)
        assert len(chunks) == self.expected
        events = [e.name for e in self.uow.store.events(self.account)]
        assert events.count("knowledge_base.processing.completed") == self.recrawls + 1


CrawlMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=15, deadline=None)
test_crawl_machine = CrawlMachine.TestCase
test_crawl_machine.__doc__ = "Runs, shutdowns and crashes in any order end in one complete crawl, no page twice."
