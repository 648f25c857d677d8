"""The delivery worker: lease due attempts, sign, send, record, schedule the retry.

At least once: an attempt is recorded after it is sent, so a worker killed in between leaves the
lease to expire and the attempt is sent again, with the same `delivery_id` for the receiver to
deduplicate on. Each attempt is rendered when it is sent, so its timestamp is fresh and passes the
receiver's five-minute replay check even on the 30-minute retry.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from engage_core.clock import Clock, format_timestamp
from engage_core.ports import DeliveryQueue, SecretCipher, WebhookSender
from engage_core.signatures import sign_body, sign_partner_body, standard_signature
from engage_core.webhooks import Claim, Outcome, after_attempt, envelope, partner_envelope

USER_AGENT = "engage-webhooks/1"
DEFAULT_LEASE_SECONDS = 60.0  # above the 30-second response timeout, so a live send never loses its lease

T = TypeVar("T")
R = TypeVar("R")
Mapper = Callable[[Callable[[T], R], Iterable[T]], Iterator[R]]


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
        batch_size: int = 20,
    ) -> None:
        self._queue = queue
        self._sender = sender
        self._cipher = cipher
        self._clock = clock
        self._lease = lease_seconds
        self._batch = batch_size

    def run_once(self, mapper: Mapper[Claim, bool] | None = None) -> int:
        """Claim one batch and deliver it (concurrently when given a `map` such as an executor's).
        Returns how many attempts were claimed."""
        claims = self._queue.claim(self._clock.now(), self._lease, self._batch)
        if claims:
            list((mapper or map)(self.deliver, claims))
        return len(claims)

    def deliver(self, claim: Claim) -> bool:
        """Send one claimed attempt and record it. False when the lease had been lost meanwhile."""
        now = self._clock.now()
        try:
            secret = self._cipher.decrypt(claim.secret_ciphertext)
        except Exception:
            outcome = Outcome(None, None, "The signing secret could not be decrypted.")
        else:
            headers, body = render(claim, secret, int(now.timestamp()), format_timestamp(now))
            outcome = self._sender.send(claim.url, headers, body)
        finished = self._clock.now()
        return self._queue.complete(claim, outcome, after_attempt(claim.attempt_number, outcome, finished), finished)

    def run_until(
        self, stop: threading.Event, *, idle_seconds: float = 0.5, mapper: Mapper[Claim, bool] | None = None
    ) -> None:
        """Deliver until `stop` is set, sleeping `idle_seconds` whenever the queue is empty."""
        while not stop.is_set():
            if self.run_once(mapper) == 0:
                stop.wait(idle_seconds)
