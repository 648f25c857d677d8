"""RedisRateLimiter against the local Redis (127.0.0.1:6379, or `ENGAGE_TEST_REDIS_URL`).

Each test uses its own key prefix and deletes its keys afterwards; without a reachable Redis the
tests are skipped with the reason.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import redis

from engage_connectors.redis_rate_limiter import EXPIRY_SLACK_MS, RedisRateLimiter
from engage_core.kernel.rate_limits import InMemoryRateLimiter, LimiterUnavailable

REDIS_URL = os.environ.get("ENGAGE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
WINDOW_START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def _client() -> redis.Redis:
    return redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


@pytest.fixture
def prefix() -> Iterator[str]:
    """A fresh key prefix; every key under it is deleted after the test."""
    client = _client()
    try:
        client.ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at {REDIS_URL} is unreachable: {exc}")
    value = f"engage-test:{uuid.uuid4().hex}:"
    yield value
    keys = list(client.scan_iter(match=value + "*"))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture
def limiter(prefix: str) -> Iterator[RedisRateLimiter]:
    made = RedisRateLimiter.from_url(REDIS_URL, prefix=prefix)
    yield made
    made.close()


def test_the_121st_hit_of_a_minute_is_refused(limiter: RedisRateLimiter) -> None:
    """120 hits in a window pass; the 121st is refused with a retry hint."""
    now = WINDOW_START + timedelta(seconds=10)
    decisions = [limiter.hit("key", 120, 60, now) for _ in range(121)]
    assert all(d.allowed for d in decisions[:120])
    assert (decisions[120].allowed, decisions[120].retry_after) == (False, 50)


def test_count_reads_the_window_without_counting(limiter: RedisRateLimiter) -> None:
    """`count` is the window's hits so far, unchanged by asking, and 0 in the next window."""
    limiter.hit("key", 5, 60, WINDOW_START)
    limiter.hit("key", 5, 60, WINDOW_START)
    assert [limiter.count("key", 60, WINDOW_START) for _ in range(2)] == [2, 2]
    assert limiter.count("key", 60, WINDOW_START + timedelta(seconds=60)) == 0


def test_it_answers_like_the_in_memory_limiter(limiter: RedisRateLimiter) -> None:
    """The same hits across two windows give the same decisions as InMemoryRateLimiter."""
    memory = InMemoryRateLimiter()
    moments = [WINDOW_START + timedelta(seconds=s) for s in (0, 1, 2, 3, 59, 60, 61, 62, 119.5)]
    assert [limiter.hit("k", 3, 60, m) for m in moments] == [memory.hit("k", 3, 60, m) for m in moments]


def test_keys_are_counted_apart(limiter: RedisRateLimiter) -> None:
    """A key's allowance is its own."""
    limiter.hit("a", 1, 60, WINDOW_START)
    assert limiter.hit("b", 1, 60, WINDOW_START).allowed


def test_the_counter_lives_one_window_and_the_slack(limiter: RedisRateLimiter, prefix: str) -> None:
    """The window's counter gets a time to live of one window plus the slack, from its first hit."""
    limiter.hit("key", 5, 60, WINDOW_START)
    limiter.hit("key", 5, 60, WINDOW_START)
    client = _client()
    (key,) = list(client.scan_iter(match=prefix + "*"))
    ttl_ms = client.pttl(key)
    client.close()
    assert 60_000 + EXPIRY_SLACK_MS - 2_000 < ttl_ms <= 60_000 + EXPIRY_SLACK_MS


def test_threads_never_exceed_the_limit(limiter: RedisRateLimiter) -> None:
    """Eight threads sharing one key, 40 hits each, get exactly 120 allowed hits."""
    allowed: list[bool] = []
    lock = threading.Lock()

    def hammer() -> None:
        for _ in range(40):
            decision = limiter.hit("shared", 120, 60, WINDOW_START)
            with lock:
                allowed.append(decision.allowed)

    threads = [threading.Thread(target=hammer) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (len(allowed), sum(allowed)) == (320, 120)


def _hammer_from_a_process(prefix: str, hits: int) -> int:
    """Runs in a child process: its own connection, `hits` hits; how many were allowed."""
    limiter = RedisRateLimiter.from_url(REDIS_URL, prefix=prefix)
    try:
        return sum(limiter.hit("shared", 120, 60, WINDOW_START).allowed for _ in range(hits))
    finally:
        limiter.close()


def test_processes_never_exceed_the_limit(prefix: str) -> None:
    """Four processes with their own connections, 60 hits each, get 120 allowed hits in all."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(4) as pool:
        allowed = pool.starmap(_hammer_from_a_process, [(prefix, 60)] * 4)
    assert sum(allowed) == 120


def test_an_unreachable_redis_is_limiter_unavailable() -> None:
    """A Redis nobody listens on raises the core's LimiterUnavailable, within the timeout."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        limiter = RedisRateLimiter.from_url(f"redis://127.0.0.1:{port}/0", timeout=0.5)
        with pytest.raises(LimiterUnavailable):
            limiter.hit("account:1", 120, 60, datetime.now(UTC))
    limiter.close()
