"""The delivery worker: lease due attempts, sign, send, record, schedule the retry.

At least once: an attempt is recorded after it is sent, so a worker killed in between leaves the
lease to expire and the attempt is sent again, with the same `delivery_id` for the receiver to
deduplicate on. Each attempt is rendered when it is sent, so its timestamp is fresh and passes the
receiver's five-minute replay check even on the 30-minute retry.

Every attempt is logged on one line of the `engage.delivery` logger: event type, `delivery_id`,
attempt number, subscription id, and the outcome (status code or error, and when the next attempt
is due). Never the URL, the secret, the signature or the body.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from engage_core.clock import Clock, format_timestamp
from engage_core.ports import DeliveryQueue, SecretCipher, WebhookSender
from engage_core.signatures import sign_body, sign_partner_body, standard_signature
from engage_core.webhooks import Claim, NextStep, Outcome, after_attempt, envelope, partner_envelope

USER_AGENT = "engage-webhooks/1"
DEFAULT_LEASE_SECONDS = 60.0  # above the 30-second response timeout, so a live send never loses its lease

log = logging.getLogger("engage.delivery")


def render(claim: Claim, secret: str, unix_time: int, iso_time: str) -> tuple[dict[str, str], bytes]:
    """The exact headers and body bytes of one attempt."""
    if claim.kind == "partner":
        document = partner_envelope(claim.event_type, iso_time, claim.owner_id, claim.payload)
    else:
        document = envelope(claim.event_type, claim.delivery_id, unix_time, claim.payload)
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Service-Event": claim.event_type,
        "X-Service-Delivery": claim.delivery_id,
        "X-Service-Timestamp": str(unix_time),
        "X-Service-Attempt": str(claim.attempt_number),
        "webhook-id": claim.delivery_id,
        "webhook-timestamp": str(unix_time),
        "webhook-signature": standard_signature(secret, claim.delivery_id, unix_time, body),
    }
    if claim.kind == "partner":
        headers["X-Service-Signature"] = sign_partner_body(secret, body)
    else:
        headers["X-Service-Signature-256"] = sign_body(secret, body)
    return headers, body


class DeliveryWorker:
    def __init__(
        self,
        queue: DeliveryQueue,
        sender: WebhookSender,
        cipher: SecretCipher,
        clock: Clock,
        *,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        concurrency: int = 1,
    ) -> None:
        self._queue = queue
        self._sender = sender
        self._cipher = cipher
        self._clock = clock
        self._lease = lease_seconds
        # A batch is never bigger than what is sent at once, so every claimed attempt starts at
        # once and finishes (timeout < lease) before its lease ends: no attempt waits out its lease.
        self._batch = max(1, concurrency)
        self._executor = ThreadPoolExecutor(concurrency, "engage-delivery") if concurrency > 1 else None

    def run_once(self) -> int:
        """Claim one batch and deliver it concurrently. Returns how many attempts were claimed."""
        claims = self._queue.claim(self._clock.now(), self._lease, self._batch)
        if claims:
            list((self._executor.map if self._executor else map)(self.deliver, claims))
        return len(claims)

    def deliver(self, claim: Claim) -> bool:
        """Send one claimed attempt and record it. False when the lease had been lost meanwhile."""
        now = self._clock.now()
        started = time.monotonic()
        try:
            secret = self._cipher.decrypt(claim.secret_ciphertext)
        except Exception:
            outcome = Outcome(None, None, "The signing secret could not be decrypted.")
        else:
            try:
                headers, body = render(claim, secret, int(now.timestamp()), format_timestamp(now))
                outcome = self._sender.send(claim.url, headers, body)
            except Exception as exc:  # one bad attempt must not stop the worker; it fails and is retried
                outcome = Outcome(None, None, f"The attempt could not be sent: {type(exc).__name__}.")
        elapsed = time.monotonic() - started
        finished = self._clock.now()
        step = after_attempt(claim.attempt_number, outcome, finished)
        recorded = self._queue.complete(claim, outcome, step, finished)
        _log_attempt(claim, outcome, step, recorded, elapsed)
        return recorded

    def run_until(self, stop: threading.Event, *, idle_seconds: float = 0.5, max_backoff: float = 30.0) -> None:
        """Deliver until `stop` is set, sleeping `idle_seconds` whenever the queue is empty. A failing
        queue (database restarting, lock timeout) is logged and retried with a growing pause: the
        worker outlives the outage instead of dying with it."""
        backoff = idle_seconds
        while not stop.is_set():
            try:
                claimed = self.run_once()
            except Exception:
                log.exception("delivery worker: the queue failed; retrying in %.1f s", backoff)
                stop.wait(backoff)
                backoff = min(max_backoff, backoff * 2)
                continue
            backoff = idle_seconds
            if claimed == 0:
                stop.wait(idle_seconds)

    def close(self) -> None:
        """Wait for sends in progress and release the threads."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)


def _log_attempt(claim: Claim, outcome: Outcome, step: NextStep, recorded: bool, elapsed: float) -> None:
    """One line per attempt: what was sent (by name only) and what came of it. `outcome` is
    `delivered`, `retry` (with `next_attempt_at`), `failed` (the last attempt failed) or `lost-lease`
    (the lease ended before the outcome could be recorded: the attempt is sent again)."""
    if not recorded:
        level, result = logging.WARNING, "lost-lease"
    elif step.status == "delivered":
        level, result = logging.INFO, "delivered"
    elif step.retry_at is not None:
        level, result = logging.INFO, "retry"
    else:
        level, result = logging.WARNING, "failed"
    if not log.isEnabledFor(level):
        return
    details = f"status={'none' if outcome.status_code is None else outcome.status_code}"
    details += f" duration_ms={round(elapsed * 1000)}"
    if outcome.error is not None:
        details += f" error={outcome.error!r}"
    if recorded and step.retry_at is not None:
        details += f" next_attempt_at={format_timestamp(step.retry_at)}"
    log.log(
        level,
        "webhook attempt event=%s delivery_id=%s attempt=%d webhook_id=%d outcome=%s %s",
        claim.event_type,
        claim.delivery_id,
        claim.attempt_number,
        claim.webhook_id,
        result,
        details,
    )
