"""Signing in to the dashboard: who may, how often, and how long a session holds.

- A member signs in with an address and a password only (the invitation links to the sign-in page
  with the address filled in). An address may belong to several workspaces: the sign-in is offered
  to each workspace where that address and password are right and the member is active
  (`TeamService.sign_in`).
- Repeated failures lock the address: the `FAILURES_BEFORE_LOCKOUT`-th failed sign-in of an address
  within a window of `LOCKOUT_SECONDS` refuses every further attempt on it until the window ends,
  without checking the password, so a guesser learns nothing while locked (`SignInGuard`). One
  client (IP address) may also make at most `ATTEMPTS_PER_CLIENT` attempts per window, whatever the
  addresses. The counts live in the `RateLimiter` port: per process in memory, across processes in
  Redis.
- A session remembers a `password_stamp` of the member's password hash: changing the password
  (the hash changes, salt and all) ends every session signed in with the old one, everywhere, and
  so do deactivating or deleting the member (`TeamService.resume`).
"""

from __future__ import annotations

import hashlib
import logging
import math

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import RateLimited
from engage_core.kernel.rate_limits import LimiterUnavailable, RateLimiter, window_bounds
from engage_core.team.model import TeamMember, email_key

log = logging.getLogger("engage.team")

FAILURES_BEFORE_LOCKOUT = 5
LOCKOUT_SECONDS = 15 * 60
ATTEMPTS_PER_CLIENT = 30
"""Sign-in attempts one client (an IP address) may make per `LOCKOUT_SECONDS`, right or wrong, over
every address: what stops one machine from trying a password on many addresses."""


class TooManySignIns(RateLimited):
    """A sign-in refused before the password is checked; `message` says why and for how long."""

    def __init__(self, limit: int, retry_after: int, why: str) -> None:
        super().__init__(limit, retry_after)
        minutes = max(1, math.ceil(retry_after / 60))
        self.message = f"{why} Try again in {minutes} minute{'s' if minutes != 1 else ''}."
        self.args = (self.message,)


def password_stamp(password_hash: str) -> str:
    """A short fingerprint of a password hash: a session carries it, never the hash."""
    return hashlib.sha256(password_hash.encode()).hexdigest()[:24]


@attrs.frozen
class SignedIn:
    """A member whose address and password were right, in one workspace."""

    account_id: int
    workspace: str
    member: TeamMember
    stamp: str
    """`password_stamp` of the password hash the member signed in with."""


class SignInGuard:
    """Locks an address after repeated failed sign-ins (the module's rule)."""

    def __init__(
        self,
        limiter: RateLimiter,
        clock: Clock,
        failures: int = FAILURES_BEFORE_LOCKOUT,
        window_seconds: int = LOCKOUT_SECONDS,
        attempts: int = ATTEMPTS_PER_CLIENT,
    ) -> None:
        self._limiter = limiter
        self._clock = clock
        self.failures = failures
        self.attempts = attempts
        self.window_seconds = window_seconds

    def check(self, email: str, client: str | None = None) -> None:
        """Count an attempt of `client` and raise :class:`TooManySignIns` (with the seconds until
        its window ends) when the client has made too many, or while `email` is locked."""
        now = self._clock.now()
        _, ends = window_bounds(now, self.window_seconds)
        retry_after = max(1, math.ceil((ends - now).total_seconds()))
        try:
            if client is not None:
                key = f"sign-in-attempts:{client}"
                if not self._limiter.hit(key, self.attempts, self.window_seconds, now).allowed:
                    raise TooManySignIns(self.attempts, retry_after, "Too many sign-in attempts from this network.")
            failures = self._limiter.count(_key(email), self.window_seconds, now)
        except LimiterUnavailable:
            return  # an outage of the counters must not lock everybody out (nor become an outage)
        if failures >= self.failures:
            raise TooManySignIns(self.failures, retry_after, "Too many failed sign-ins for this address.")

    def failed(self, email: str) -> None:
        """Count a failed sign-in of `email` (not counted while the counters' store is down)."""
        try:
            self._limiter.hit(_key(email), self.failures, self.window_seconds, self._clock.now())
        except LimiterUnavailable:
            log.warning("A failed sign-in was not counted: the rate limiter's store did not answer")


def _key(email: str) -> str:
    return f"sign-in-failures:{email_key(email)}"
