"""Rate limiting of the API (SPEC 5, SPEC 8): `limit` requests per window per key, 120 a minute
by default.

The bucket is what the key authenticates as, never the key itself: `account:<id>` for a workspace
key, `partner:<id>` for a partner key (`workspace_bucket`, `partner_bucket`). Rotating a key does
not reset its count, and no key is ever held in the limiter (nor in Redis).

Applied right after authentication, so a request without a valid key is never counted (it is
refused with 401 before any bucket is known). Every answer to an authenticated request carries
`X-RateLimit-Limit`, `-Remaining` and `-Reset`, errors included; the request past the limit is 429
with `Retry-After` as well, and the handler does not run.

When the limiter's store cannot be asked (Redis down: `LimiterUnavailable`), requests are served
unlimited and without the headers, and a warning is logged at most once a minute: an outage of the
limiter must not become an outage of the API.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from starlette.responses import Response

from engage_core.kernel.clock import Clock, SystemClock
from engage_core.kernel.errors import EngageError
from engage_core.kernel.rate_limits import Decision, LimiterUnavailable, RateLimiter, RateLimitPolicy
from engage_http.errors import engage_error_response

logger = logging.getLogger("engage.rate_limit")

OUTAGE_WARNING_INTERVAL_SECONDS = 60.0


def workspace_bucket(account_id: int) -> str:
    return f"account:{account_id}"


def partner_bucket(partner_id: int) -> str:
    return f"partner:{partner_id}"


class RequestRateLimiter:
    """A `RateLimiter` (in memory, or Redis for several processes) with the policy and clock."""

    def __init__(self, limiter: RateLimiter, policy: RateLimitPolicy | None = None, clock: Clock | None = None) -> None:
        self.limiter = limiter
        self.policy = policy or RateLimitPolicy()
        self._clock = clock or SystemClock()
        self._warned_at: float | None = None
        self._warning_lock = threading.Lock()

    def hit(self, bucket: str) -> Decision | None:
        """Count one request of `bucket` and decide it; None when the limiter cannot be asked."""
        try:
            return self.limiter.hit(bucket, self.policy.limit, self.policy.window_seconds, self._clock.now())
        except LimiterUnavailable as exc:
            self._warn(exc)
            return None

    def _warn(self, exc: LimiterUnavailable) -> None:
        now = time.monotonic()
        with self._warning_lock:
            if self._warned_at is not None and now - self._warned_at < OUTAGE_WARNING_INTERVAL_SECONDS:
                return
            self._warned_at = now
        logger.warning("Rate limiting is off until its store answers again: %s", exc)


def limited(
    limiter: RequestRateLimiter | None,
    bucket: str,
    respond: Callable[[], Response],
    errors: Callable[[EngageError], Response] = engage_error_response,
) -> Response:
    """`respond()` within the rate limit of `bucket`, its response carrying the `X-RateLimit-*`
    headers; past the limit, the 429 instead (with `Retry-After`). Domain errors raised by
    `respond` become their responses here (`errors`: the API's own format by default), so they carry
    the headers too. Without a limiter (disabled), just `respond()`.

    For partner routes: authenticate, then `limited(limiter, partner_bucket(partner.id), ...)`."""
    decision = None if limiter is None else limiter.hit(bucket)
    if decision is None:
        return respond()
    try:
        decision.raise_if_refused()
        response = respond()
    except EngageError as exc:
        response = errors(exc)
    headers = decision.headers()
    if decision.allowed:
        # Appended as they are: no response of an allowed request carries these names already (the
        # one that sets `Retry-After` is the 429 below), and `MutableHeaders` scans for each name.
        response.raw_headers.extend((name.lower().encode(), value.encode()) for name, value in headers.items())
    else:
        response.headers.update(headers)
    return response
