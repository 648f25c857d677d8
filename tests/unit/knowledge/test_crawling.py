"""Crawl plans, the final status rule and the crawl state machine (SPEC 3, crawl states)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engage_core.knowledge.crawling import (
    CRAWL_STATUSES,
    FINAL_STATUSES,
    CrawlPlan,
    CrawlStateError,
    CrawlTally,
    final_status,
    parse_path_prefixes,
    path_matches,
)


def test_a_crawl_with_pages_and_no_failure_is_completed() -> None:
    """Every page attempted was stored: completed."""
    assert final_status(pages_crawled=3, pages_failed=0) == "completed"


def test_a_crawl_with_some_failed_pages_is_partial() -> None:
    """Some pages stored, some failed: partial."""
    assert final_status(pages_crawled=3, pages_failed=1) == "partial"


def test_a_crawl_without_any_stored_page_has_failed() -> None:
    """Nothing stored, whatever the failures: failed."""
    assert final_status(pages_crawled=0, pages_failed=2) == "failed"


def test_a_start_page_forbidden_by_robots_fails_the_crawl() -> None:
    """robots.txt forbids the start page: failed, even with pages counted from an earlier run."""
    assert final_status(pages_crawled=2, pages_failed=0, start_forbidden=True) == "failed"


def test_a_stopped_crawl_with_pages_is_partial() -> None:
    """Stopped early with pages stored: partial, since the site was not fully read."""
    assert final_status(pages_crawled=2, pages_failed=0, stopped=True) == "partial"


@given(st.integers(0, 200), st.integers(0, 200), st.booleans(), st.booleans())
def test_the_final_status_is_always_one_of_the_final_states(
    crawled: int, failed: int, forbidden: bool, stopped: bool
) -> None:
    """completed, partial or failed, and completed only without failures, stop or refusal."""
    status = final_status(pages_crawled=crawled, pages_failed=failed, start_forbidden=forbidden, stopped=stopped)
    assert status in FINAL_STATUSES
    assert (status == "completed") == (crawled > 0 and failed == 0 and not forbidden and not stopped)


@pytest.mark.parametrize(("field", "value"), [("max_pages", 0), ("max_pages", 101), ("max_depth", 0), ("max_depth", 6)])
def test_a_plan_refuses_limits_out_of_range(field: str, value: int) -> None:
    """max_pages is 1-100 and max_depth 1-5 (SPEC 8)."""
    with pytest.raises(ValueError, match=field):
        CrawlPlan("https://example.com/", **{field: value})


def test_path_prefixes_are_read_from_comma_separated_text() -> None:
    """Blank items dropped, a leading slash added, duplicates dropped, order kept."""
    assert parse_path_prefixes(" blog, /docs/ ,, blog") == ("/blog", "/docs/")


@pytest.mark.parametrize(
    ("path", "prefix", "expected"),
    [("/blog", "/blog", True), ("/blog/a", "/blog", True), ("/blogger", "/blog", False), ("/docs", "/docs/", True)],
)
def test_a_path_prefix_matches_on_a_segment_boundary(path: str, prefix: str, expected: bool) -> None:
    """`/blog` covers `/blog` and `/blog/...` but not `/blogger`."""
    assert path_matches(path, prefix) is expected


def test_excluded_paths_win_over_allowed_paths() -> None:
    """A path both allowed and excluded is not crawled."""
    plan = CrawlPlan("https://example.com/", allowed_paths=("/docs",), excluded_paths=("/docs/old",))
    assert (plan.path_in_scope("/docs/new"), plan.path_in_scope("/docs/old/a"), plan.path_in_scope("/x")) == (
        True,
        False,
        False,
    )


def test_counting_a_page_before_the_crawl_starts_is_refused() -> None:
    """A pending crawl counts nothing."""
    with pytest.raises(CrawlStateError):
        CrawlTally(max_pages=5).crawled()


class CrawlMachine(RuleBasedStateMachine):
    """pending -> crawling -> completed/partial/failed, with progress monotone and in 0-100."""

    @initialize(max_pages=st.integers(1, 100))
    def create(self, max_pages: int) -> None:
        self.tally = CrawlTally(max_pages=max_pages)
        self.history = [self.tally]

    def _step(self, tally: CrawlTally) -> None:
        self.tally = tally
        self.history.append(tally)

    @precondition(lambda self: self.tally.status == "pending")
    @rule(already_done=st.integers(0, 120))
    def start(self, already_done: int) -> None:
        self._step(self.tally.started(already_done=already_done))

    @precondition(lambda self: self.tally.status == "crawling")
    @rule(total=st.integers(0, 500))
    def find(self, total: int) -> None:
        self._step(self.tally.found(total))

    @precondition(lambda self: self.tally.status == "crawling" and self.tally.has_room)
    @rule(succeeded=st.booleans())
    def attempt(self, succeeded: bool) -> None:
        self._step(self.tally.crawled() if succeeded else self.tally.failed())

    @precondition(lambda self: self.tally.status == "crawling" and not self.tally.has_room)
    @rule()
    def one_page_too_many_is_refused(self) -> None:
        with pytest.raises(CrawlStateError):
            self.tally.crawled()

    @precondition(lambda self: self.tally.status in ("pending", "crawling"))
    @rule(forbidden=st.booleans(), stopped=st.booleans())
    def finish(self, forbidden: bool, stopped: bool) -> None:
        self._step(self.tally.finished(start_forbidden=forbidden, stopped=stopped))

    @precondition(lambda self: self.tally.status in FINAL_STATUSES)
    @rule()
    def an_ended_crawl_does_not_change(self) -> None:
        with pytest.raises(CrawlStateError):
            self.tally.finished()
        with pytest.raises(CrawlStateError):
            self.tally.found(1)

    @invariant()
    def counts_stay_within_max_pages(self) -> None:
        assert 0 <= self.tally.pages_crawled <= self.tally.max_pages
        assert self.tally.attempted <= self.tally.max_pages
        assert self.tally.pages_crawled <= self.tally.total_pages_found or self.tally.status == "pending"

    @invariant()
    def progress_is_monotone_and_in_range(self) -> None:
        percents = [t.percent for t in self.history]
        totals = [t.total_pages_found for t in self.history]
        assert percents == sorted(percents) and all(0 <= p <= 100 for p in percents)
        assert totals == sorted(totals)
        assert (self.tally.percent == 100) == (self.tally.status in FINAL_STATUSES)

    @invariant()
    def states_follow_the_order(self) -> None:
        order = [CRAWL_STATUSES.index(t.status) if t.status not in FINAL_STATUSES else 2 for t in self.history]
        assert order == sorted(order)


TestCrawlMachine = CrawlMachine.TestCase
