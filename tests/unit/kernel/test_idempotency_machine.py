"""The idempotency key store as a state machine (`engage_core.kernel.idempotency`), driven by Hypothesis.

Rules claim keys for one of two requests, complete or release claims (current ones and stale ones,
whose lease ended and whose key was taken over), purge, and move a fake clock. A plain model says
what each key holds, and every answer of the store must agree with it: a key is kept for a day,
held by one claim at a time, taken over only once its lease has ended, and changed only by the
claim that holds it; after every step the store keeps exactly what the model does.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import attrs
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from engage_core.kernel.fakes import FakeClock
from engage_core.kernel.idempotency import ClaimState, InMemoryIdempotencyStore, StoredResponse

from ..factories import START

SCOPE = "account:1"
KEYS = ("k-1", "k-2")
PRINTS = ("a" * 64, "b" * 64)
DAY = timedelta(hours=24)
LEASE = timedelta(seconds=60)
"""The rules (docs/api.md, "Idempotent requests") written out here rather than imported, so the test
checks the code against them."""


@attrs.define
class Kept:
    """The model of one key."""

    fingerprint: str
    token: str | None
    leased_until: datetime | None
    expires_at: datetime
    response: StoredResponse | None = None


class IdempotencyMachine(RuleBasedStateMachine):
    claims = Bundle("claims")

    @initialize()
    def start(self) -> None:
        self.clock = FakeClock(START)
        self.store = InMemoryIdempotencyStore()
        self.model: dict[str, Kept] = {}

    def _live(self, key: str) -> Kept | None:
        kept = self.model.get(key)
        return kept if kept is not None and kept.expires_at > self.clock.now() else None

    @rule(target=claims, key=st.sampled_from(KEYS), request=st.sampled_from(PRINTS))
    def a_request_claims(self, key: str, request: str) -> tuple[str, str]:
        now = self.clock.now()
        claim = self.store.claim(SCOPE, key, request, now)
        kept = self._live(key)
        if kept is not None and kept.fingerprint != request:
            assert claim.state is ClaimState.MISMATCH
        elif kept is not None and kept.response is not None:
            assert (claim.state, claim.response) == (ClaimState.COMPLETED, kept.response)
        elif kept is not None and kept.leased_until is not None and kept.leased_until > now:
            assert claim.state is ClaimState.IN_PROGRESS
        else:  # free, expired or abandoned: taken, under a token no one else holds
            assert claim.state is ClaimState.CLAIMED and claim.token is not None
            assert kept is None or claim.token != kept.token
            self.model[key] = Kept(request, claim.token, now + LEASE, now + DAY)
        return key, claim.token or ""

    @rule(claim=claims, status=st.sampled_from([200, 201, 404, 422]), body=st.binary(max_size=8))
    def a_claim_completes(self, claim: tuple[str, str], status: int, body: bytes) -> None:
        key, token = claim
        response = StoredResponse(status, body, (("content-type", "application/json"),))
        kept = self.model.get(key)
        holds = kept is not None and token != "" and kept.token == token

        assert self.store.complete(SCOPE, key, token, response) is holds
        if holds:
            assert kept is not None
            kept.token, kept.leased_until, kept.response = None, None, response

    @rule(claim=claims)
    def a_claim_is_released(self, claim: tuple[str, str]) -> None:
        key, token = claim
        kept = self.model.get(key)
        holds = kept is not None and token != "" and kept.token == token

        assert self.store.release(SCOPE, key, token) is holds
        if holds:
            del self.model[key]

    @rule()
    def expired_keys_are_purged(self) -> None:
        expired = [key for key, kept in self.model.items() if kept.expires_at <= self.clock.now()]

        assert self.store.purge(self.clock.now()) == len(expired)
        for key in expired:
            del self.model[key]

    @rule(seconds=st.sampled_from([1, 30, 59, 60, 61, 3600, 86399, 86400]))
    def time_passes(self, seconds: int) -> None:
        self.clock.advance(seconds=seconds)

    @invariant()
    def the_store_keeps_what_the_model_does(self) -> None:
        if not hasattr(self, "store"):
            return
        kept = {key: (r.fingerprint, r.token, r.response) for _, key, r in self.store.records()}
        assert kept == {key: (k.fingerprint, k.token, k.response) for key, k in self.model.items()}


IdempotencyMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)
test_idempotency_machine = IdempotencyMachine.TestCase
test_idempotency_machine.__doc__ = "Claims, completions, releases and expiry of keys follow the rules of a key."
