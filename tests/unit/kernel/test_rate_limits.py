"""The in-memory fixed-window rate limiter and its decisions (`engage_core.kernel.rate_limits`)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest

from engage_core.kernel.errors import RateLimited
from engage_core.kernel.rate_limits import DEFAULT_LIMIT, InMemoryRateLimiter, RateLimitPolicy, decide, window_bounds

WINDOW_START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""A minute boundary: 1767268800 is a multiple of 60."""


def test_the_default_is_120_per_minute() -> None:
    """SPEC 8: 120 requests per minute per key."""
    assert (RateLimitPolicy().limit, RateLimitPolicy().window_seconds) == (DEFAULT_LIMIT, 60) == (120, 60)


def test_a_policy_needs_a_positive_limit_and_window() -> None:
    """A limit or window below 1 is refused."""
    with pytest.raises(ValueError, match="at least 1"):
        RateLimitPolicy(limit=0)


def test_windows_align_to_the_epoch() -> None:
    """A moment 42 seconds into a minute belongs to that minute's window."""
    start, reset_at = window_bounds(WINDOW_START + timedelta(seconds=42.5), 60)
    assert (start, reset_at) == (int(WINDOW_START.timestamp()), WINDOW_START + timedelta(minutes=1))


def test_the_limit_th_hit_is_allowed_and_the_next_refused() -> None:
    """Hits 1 to 120 pass, the 121st is refused (SPEC: the 121st is 429)."""
    limiter = InMemoryRateLimiter()
    decisions = [limiter.hit("key", 120, 60, WINDOW_START + timedelta(seconds=1)) for _ in range(121)]
    assert all(d.allowed for d in decisions[:120])
    assert not decisions[120].allowed


def test_remaining_counts_down_to_zero() -> None:
    """remaining is what is left after the hit, never below zero."""
    limiter = InMemoryRateLimiter()
    remaining = [limiter.hit("key", 3, 60, WINDOW_START).remaining for _ in range(5)]
    assert remaining == [2, 1, 0, 0, 0]


def test_a_refused_hit_says_when_to_retry() -> None:
    """retry_after is the whole seconds left in the window, reset_at its end."""
    limiter = InMemoryRateLimiter()
    now = WINDOW_START + timedelta(seconds=20.5)
    limiter.hit("key", 1, 60, now)
    refused = limiter.hit("key", 1, 60, now)
    assert (refused.retry_after, refused.reset_at) == (40, WINDOW_START + timedelta(minutes=1))


def test_an_allowed_hit_has_no_retry_after() -> None:
    """retry_after is 0 when the hit is allowed."""
    assert InMemoryRateLimiter().hit("key", 5, 60, WINDOW_START).retry_after == 0


def test_the_next_window_starts_afresh() -> None:
    """After the window ends the key is allowed again."""
    limiter = InMemoryRateLimiter()
    limiter.hit("key", 1, 60, WINDOW_START)
    assert not limiter.hit("key", 1, 60, WINDOW_START + timedelta(seconds=59)).allowed
    assert limiter.hit("key", 1, 60, WINDOW_START + timedelta(seconds=60)).allowed


def test_count_reads_the_window_without_counting() -> None:
    """`count` is the window's hits so far, unchanged by asking, and 0 in the next window."""
    limiter = InMemoryRateLimiter()
    limiter.hit("key", 5, 60, WINDOW_START)
    limiter.hit("key", 5, 60, WINDOW_START)
    assert [limiter.count("key", 60, WINDOW_START) for _ in range(2)] == [2, 2]
    assert limiter.count("key", 60, WINDOW_START + timedelta(seconds=60)) == 0


def test_keys_are_counted_apart() -> None:
    """One key's hits do not use another key's allowance."""
    limiter = InMemoryRateLimiter()
    limiter.hit("workspace:1", 1, 60, WINDOW_START)
    assert limiter.hit("workspace:2", 1, 60, WINDOW_START).allowed


def test_headers_of_an_allowed_hit() -> None:
    """X-RateLimit-Limit, -Remaining and -Reset (Unix seconds), no Retry-After."""
    decision = InMemoryRateLimiter().hit("key", 120, 60, WINDOW_START)
    assert decision.headers() == {
        "X-RateLimit-Limit": "120",
        "X-RateLimit-Remaining": "119",
        "X-RateLimit-Reset": str(int(WINDOW_START.timestamp()) + 60),
    }


def test_headers_of_a_refused_hit_carry_retry_after() -> None:
    """A refused decision adds Retry-After in seconds."""
    decision = decide(2, 1, WINDOW_START + timedelta(seconds=30), WINDOW_START)
    assert decision.headers()["Retry-After"] == "30"


def test_raise_if_refused_raises_rate_limited() -> None:
    """A refused decision becomes RateLimited (429) with the limit and retry hint."""
    with pytest.raises(RateLimited) as caught:
        decide(2, 1, WINDOW_START + timedelta(seconds=30), WINDOW_START).raise_if_refused()
    assert (caught.value.limit, caught.value.retry_after) == (1, 30)


def test_threads_never_get_more_than_the_limit() -> None:
    """Eight threads hitting one key 50 times each get exactly `limit` allowed hits."""
    limiter = InMemoryRateLimiter()
    allowed: list[bool] = []
    lock = threading.Lock()

    def hammer() -> None:
        for _ in range(50):
            decision = limiter.hit("shared", 120, 60, WINDOW_START)
            with lock:
                allowed.append(decision.allowed)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (len(allowed), sum(allowed)) == (400, 120)


def test_ended_windows_are_swept() -> None:
    """Counters of windows that have ended are dropped once the table grows, live ones kept."""
    limiter = InMemoryRateLimiter()
    for n in range(1100):
        limiter.hit(f"old-{n}", 5, 60, WINDOW_START)
    limiter.hit("live", 5, 60, WINDOW_START + timedelta(minutes=5))
    for n in range(1100):
        limiter.hit(f"new-{n}", 5, 60, WINDOW_START + timedelta(minutes=5))
    assert limiter.hit("live", 2, 60, WINDOW_START + timedelta(minutes=5)).remaining == 0
    assert len(limiter._counters) < 1500
