"""Idempotent POSTs: a request with an `Idempotency-Key` header runs once per key, and a retry with
the same key and the same request gets the first response again (docs/api.md "Idempotent requests").

The rules of a key are the core's (`engage_core.kernel.idempotency`); this module is the HTTP side,
`IdempotentRequests.respond`, which `routing.py` calls once the request is authenticated, admitted
and parsed (so a request refused before its handler runs, 401, 403 or 422, leaves no trace):

1. claim the key, in a transaction of its own. Another request with the key: 422 (`errors` names
   `Idempotency-Key`). The same request kept: its response, byte for byte, with
   `Idempotent-Replayed: true`. The same request still running: wait for it, polling, up to
   `WAIT_SECONDS`, then replay it; past that, 409 with `Retry-After`.
2. run the handler; its domain errors become their responses here, so that they can be kept.
3. keep a response below 500 on the key (a success or a domain error, as Stripe keeps them); a
   5xx, or an exception (storage unavailable, a bug), releases the claim instead: nothing is kept
   and a retry runs again.

Keeping the response is a transaction of its own after the handler's: if it fails (the storage
went away in between), the response is still sent, and the claim, never completed, lapses after
its lease (`LEASE`); a retry after that runs the request again. A request without the header, or
any method but POST, never comes here: the only cost to them is looking for the header (POSTs).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable

from starlette.responses import Response
from starlette.types import Scope

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import EngageError, ValidationFailed
from engage_core.kernel.idempotency import Claim, ClaimState, IdempotencyStore, StoredResponse, key_problem
from engage_http import envelope
from engage_http.errors import engage_error_response

logger = logging.getLogger("engage.http")

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"

WAIT_SECONDS = 10.0
"""How long a request waits for another running with its key before answering 409."""

RETRY_AFTER_SECONDS = 1
"""The `Retry-After` of that 409."""

PURGE_INTERVAL_SECONDS = 600.0
"""How often (at most) a process deletes the expired keys, on an idempotent request."""

MISMATCH_MESSAGE = "This Idempotency-Key was already used with a different request. Use a new key for a new request."
IN_PROGRESS_MESSAGE = "A request with this Idempotency-Key is still in progress. Retry later."

_HEADER = HEADER.lower().encode()
_KEPT_HEADERS = frozenset({b"content-type", b"location"})
"""The response headers replayed with a kept response (the others are the request's own: its id,
rate-limit counters, CORS)."""


def requested_key(scope: Scope) -> str | None:
    """The request's `Idempotency-Key` (the first, when repeated), or None: one pass over the raw headers."""
    for name, value in scope["headers"]:
        if name == _HEADER:
            return str(value.decode("latin-1"))
    return None


def fingerprint(method: str, path: str, query: bytes, body: bytes) -> str:
    """The SHA-256 (hex) of what makes a request this request: method, path, query and raw body."""
    digest = hashlib.sha256(method.encode("ascii"))
    digest.update(b" " + path.encode("utf-8") + b"?" + query + b"\n")
    digest.update(body)
    return digest.hexdigest()


def check_key(key: str) -> None:
    """Refuse an empty key or one too long (422 on `Idempotency-Key`)."""
    problem = key_problem(key)
    if problem is not None:
        raise ValidationFailed.on(HEADER, problem)


def replay(stored: StoredResponse) -> Response:
    """A kept response, byte for byte, marked as replayed."""
    headers = dict(stored.headers)
    headers[REPLAYED_HEADER.lower()] = "true"
    return Response(stored.body, status_code=stored.status, headers=headers)


def kept(response: Response) -> StoredResponse:
    """What is kept of `response`: status, body and the headers worth replaying."""
    headers = tuple(
        (name.decode("latin-1"), value.decode("latin-1"))
        for name, value in response.raw_headers
        if name in _KEPT_HEADERS
    )
    return StoredResponse(response.status_code, bytes(response.body), headers)


class IdempotentRequests:
    """Runs requests once per idempotency key, over a store of keys. Thread-safe."""

    def __init__(
        self,
        store: IdempotencyStore,
        clock: Clock,
        *,
        wait_seconds: float = WAIT_SECONDS,
        poll_seconds: float = 0.05,
        purge_interval_seconds: float = PURGE_INTERVAL_SECONDS,
    ) -> None:
        self.store = store
        self._clock = clock
        self._wait = wait_seconds
        self._poll = poll_seconds
        self._purge_interval = purge_interval_seconds
        self._next_purge = 0.0

    def respond(self, scope: str, key: str, request_print: str, run: Callable[[], Response]) -> Response:
        """The response of `run()` for the request of `request_print` with `key` of caller `scope`,
        run at most once per key (module docstring)."""
        self._purge_now_and_then()
        claim = self._claim(scope, key, request_print)
        if claim.state is ClaimState.MISMATCH:
            raise ValidationFailed.on(HEADER, MISMATCH_MESSAGE)
        if claim.state is ClaimState.COMPLETED:
            assert claim.response is not None
            return replay(claim.response)
        if claim.state is ClaimState.IN_PROGRESS:
            return envelope.error(409, IN_PROGRESS_MESSAGE, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
        token = claim.token
        assert token is not None
        try:
            try:
                response = run()
            except EngageError as exc:
                response = engage_error_response(exc)
        except BaseException:
            self._release(scope, key, token)
            raise
        if response.status_code >= 500:
            self._release(scope, key, token)
        else:
            self._complete(scope, key, token, response)
        return response

    def _claim(self, scope: str, key: str, request_print: str) -> Claim:
        """The claim, once no other request runs with the key or `wait_seconds` have passed."""
        deadline = time.monotonic() + self._wait
        pause = self._poll
        while True:
            claim = self.store.claim(scope, key, request_print, self._clock.now())
            left = deadline - time.monotonic()
            if claim.state is not ClaimState.IN_PROGRESS or left <= 0:
                return claim
            time.sleep(min(pause, left))
            pause = min(pause * 2, 0.5)

    def _complete(self, scope: str, key: str, token: str, response: Response) -> None:
        try:
            if not self.store.complete(scope, key, token, kept(response)):
                logger.warning("Idempotency key of %s lost before its response was kept (its lease ended).", scope)
        except Exception:  # the request has run: its response goes out; the claim lapses with its lease
            logger.warning("Could not keep the response of an idempotency key of %s.", scope, exc_info=True)

    def _release(self, scope: str, key: str, token: str) -> None:
        try:
            self.store.release(scope, key, token)
        except Exception:  # the claim lapses with its lease
            logger.warning("Could not release an idempotency key of %s.", scope, exc_info=True)

    def _purge_now_and_then(self) -> None:
        """Delete the expired keys, at most once per `purge_interval_seconds` in this process."""
        moment = time.monotonic()
        if moment < self._next_purge:
            return
        self._next_purge = moment + self._purge_interval
        try:
            self.store.purge(self._clock.now())
        except Exception:
            logger.warning("Could not purge the expired idempotency keys.", exc_info=True)
