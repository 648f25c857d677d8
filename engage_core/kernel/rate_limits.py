"""Rate limiting: 120 requests per minute per key (SPEC 8), behind the `RateLimiter` port.

Algorithm: a fixed window. Time is cut into windows of `window_seconds` aligned to the Unix epoch;
each key has one counter per window, and a hit is allowed while the counter, after counting it,
is at most `limit`. Chosen because it is exact, O(1) per key, and the same two operations
(increment, expire at the window's end) are atomic in Redis, so the in-memory limiter and
`engage_connectors.redis_rate_limiter.RedisRateLimiter` give identical answers. The known cost: a
client can fit up to twice the limit into a short span straddling a boundary (the end of one
window and the start of the next); for a per-minute abuse guard that is acceptable.

Refused hits are counted too (a client hammering a closed window learns nothing new), and the
decision carries what the `X-RateLimit-*` and `Retry-After` headers need.
"""

from __future__ import annotations

import functools
import math
import threading
from datetime import UTC, datetime
from typing import Protocol

import attrs

from engage_core.kernel.errors import RateLimited

DEFAULT_LIMIT = 120
DEFAULT_WINDOW_SECONDS = 60


class LimiterUnavailable(Exception):
    """The limiter's shared store (Redis) could not be asked. The API then serves the request
    unlimited rather than failing it: the limit protects the service, it is not a rule of the data."""


@attrs.frozen
class RateLimitPolicy:
    """How many hits a key gets per window (`ENGAGE_RATE_LIMIT`-style settings feed this)."""

    limit: int = DEFAULT_LIMIT
    window_seconds: int = DEFAULT_WINDOW_SECONDS

    def __attrs_post_init__(self) -> None:
        if self.limit < 1 or self.window_seconds < 1:
            raise ValueError("a rate limit needs a limit and a window of at least 1")


@attrs.frozen
class Decision:
    """The answer to one hit. `remaining` is what is left in the window after it; `reset_at` is
    when the window ends; `retry_after` is whole seconds until then when refused, else 0."""

    allowed: bool
    limit: int
    remaining: int
    reset_at: datetime
    retry_after: int

    def headers(self) -> dict[str, str]:
        """`X-RateLimit-Limit`, `-Remaining`, `-Reset` (Unix seconds), and `Retry-After` when refused."""
        values = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(math.ceil(self.reset_at.timestamp())),
        }
        if not self.allowed:
            values["Retry-After"] = str(self.retry_after)
        return values

    def raise_if_refused(self) -> None:
        if not self.allowed:
            raise RateLimited(self.limit, self.retry_after)


def window_bounds(now: datetime, window_seconds: int) -> tuple[int, datetime]:
    """The window containing `now`: its start (Unix seconds) and its end."""
    start = int(now.timestamp()) // window_seconds * window_seconds
    return start, _moment(start + window_seconds)


@functools.lru_cache(maxsize=64)
def _moment(unix_seconds: int) -> datetime:
    """A window's end as an aware datetime: the same few for every request of a window."""
    return datetime.fromtimestamp(unix_seconds, UTC)


def decide(count: int, limit: int, reset_at: datetime, now: datetime) -> Decision:
    """The decision for the `count`-th hit of a window (counting this one)."""
    allowed = count <= limit
    retry_after = 0 if allowed else max(1, math.ceil((reset_at - now).total_seconds()))
    return Decision(allowed, limit, max(0, limit - count), reset_at, retry_after)


class InMemoryRateLimiter:
    """One process's counters; thread-safe. Counters of ended windows are dropped in a sweep
    whenever the table has doubled since the last one, so memory stays bounded by the keys active
    in one window."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counters: dict[tuple[str, int, int], int] = {}  # (key, window length, start) -> hits
        self._sweep_at = 1024

    def hit(self, key: str, limit: int, window_seconds: int, now: datetime) -> Decision:
        start, reset_at = window_bounds(now, window_seconds)
        with self._lock:
            slot = (key, window_seconds, start)
            count = self._counters.get(slot, 0) + 1
            self._counters[slot] = count
            if len(self._counters) >= self._sweep_at:
                self._sweep(now)
        return decide(count, limit, reset_at, now)

    def count(self, key: str, window_seconds: int, now: datetime) -> int:
        start, _ = window_bounds(now, window_seconds)
        with self._lock:
            return self._counters.get((key, window_seconds, start), 0)

    def _sweep(self, now: datetime) -> None:
        moment = now.timestamp()
        self._counters = {slot: n for slot, n in self._counters.items() if slot[2] + slot[1] > moment}
        self._sweep_at = max(1024, 2 * len(self._counters))


class RateLimiter(Protocol):
    """Counts hits per key in fixed windows (`engage_core.kernel.rate_limits`): in memory for one process
    (`rate_limits.InMemoryRateLimiter`), in Redis for several
    (`engage_connectors.redis_rate_limiter.RedisRateLimiter`). Atomic per hit: however many hits of
    one key race, at most `limit` of a window are allowed."""

    def hit(self, key: str, limit: int, window_seconds: int, now: datetime) -> Decision:
        """Count one hit of `key` in the window containing `now` and decide it. A store that cannot
        be asked raises `rate_limits.LimiterUnavailable`."""

    def count(self, key: str, window_seconds: int, now: datetime) -> int:
        """How many hits `key` has had in the window containing `now`, without counting one (a
        lockout asks before it decides whether to check a password). Raises `LimiterUnavailable`
        like `hit`."""
