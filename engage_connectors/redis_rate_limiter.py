"""The `RateLimiter` for several processes: fixed-window counters in Redis.

The same algorithm as `engage_core.kernel.rate_limits.InMemoryRateLimiter` (read that module for the
choice), so both answer alike. One counter per key and window, named
`<prefix><key>:<window seconds>:<window start>`; a hit is one Lua script run, which Redis executes
atomically: increment the counter and, on the window's first hit, give it a time to live of one
window plus `EXPIRY_SLACK_MS`. However many processes hit one key at once, the counter goes up by
exactly one per hit, so at most `limit` hits of a window are allowed.

The window is chosen from the `now` the caller passes (the service's clock), not from Redis'
clock: processes agree on windows as far as their clocks agree, and tests can move time. The
time to live is relative (Redis' clock), never an absolute instant from the caller's clock, so a
caller whose clock is off can never make a counter expire early; a counter that lives past its
window is harmless, as its name holds the window's start.

A Redis failure (unreachable, timeout, an error answer) raises the core's `LimiterUnavailable`;
the API then serves the request unlimited (`engage_http.rate_limit`).
"""

from __future__ import annotations

from datetime import datetime

import redis

from engage_core.kernel.rate_limits import Decision, LimiterUnavailable, decide, window_bounds

DEFAULT_PREFIX = "engage:ratelimit:"
EXPIRY_SLACK_MS = 5_000

_HIT = """
local count = redis.call('INCR', KEYS[1])
if count == 1 then
    redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return count
"""


class RedisRateLimiter:
    def __init__(self, client: redis.Redis, prefix: str = DEFAULT_PREFIX) -> None:
        self._client = client
        self._prefix = prefix
        self._hit = client.register_script(_HIT)

    @classmethod
    def from_url(cls, url: str, prefix: str = DEFAULT_PREFIX, timeout: float = 2.0) -> RedisRateLimiter:
        """Connect to `redis://host:port/db` (or `rediss://` for TLS), with `timeout` seconds for
        connecting and for each answer."""
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        return cls(client, prefix)

    def hit(self, key: str, limit: int, window_seconds: int, now: datetime) -> Decision:
        start, reset_at = window_bounds(now, window_seconds)
        counter = f"{self._prefix}{key}:{window_seconds}:{start}"
        try:
            count = int(self._hit(keys=[counter], args=[window_seconds * 1000 + EXPIRY_SLACK_MS]))
        except redis.RedisError as exc:
            raise LimiterUnavailable(f"Redis did not answer: {type(exc).__name__}") from exc
        return decide(count, limit, reset_at, now)

    def count(self, key: str, window_seconds: int, now: datetime) -> int:
        start, _ = window_bounds(now, window_seconds)
        try:
            found = self._client.get(f"{self._prefix}{key}:{window_seconds}:{start}")
        except redis.RedisError as exc:
            raise LimiterUnavailable(f"Redis did not answer: {type(exc).__name__}") from exc
        return 0 if found is None else int(found)

    def close(self) -> None:
        self._client.close()
