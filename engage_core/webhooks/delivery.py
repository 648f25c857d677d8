"""The delivery worker: lease due attempts, sign, send, record, schedule the retry.

At least once: an attempt is recorded after it is sent, so a worker killed in between leaves the
lease to expire and the attempt is sent again, with the same `delivery_id` for the receiver to
deduplicate on. Each attempt is rendered when it is sent, so its timestamp is fresh and passes the
receiver's five-minute replay check even on the 30-minute retry.

`DeliveryWorker.run_until` (what `engage worker` and `engage serve` run) pipelines the sends, claims
ahead while its leases allow it, and records the sends in batches: one transaction per turn of its
loop, not per attempt. `run_once` delivers one batch, claiming no more than it sends at once.

A workspace whose plan in force lacks webhooks gets no deliveries: given a `DeliveryGate`, the
worker asks it once per workspace for each batch it claims, and records that workspace's attempts
`failed` without sending them, with the error `NOT_IN_PLAN` and no retry (queued before the plan
changed or since, alike). Partner-level attempts are not a workspace's and are not asked about.

Every attempt is logged on one line of the `engage.delivery` logger: event type, `delivery_id`,
attempt number, subscription id, and the outcome (status code or error, and when the next attempt
is due). Never the URL, the secret, the signature or the body.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import attrs

from engage_core.kernel.clock import Clock, format_timestamp
from engage_core.webhooks.model import (
    Claim,
    Completion,
    NextStep,
    Outcome,
    after_attempt,
    envelope,
    partner_envelope,
)
from engage_core.webhooks.ports import DeliveryGate, DeliveryQueue, SecretCipher, WebhookSender
from engage_core.webhooks.signatures import sign_body, sign_partner_body, standard_signature

USER_AGENT = "engage-webhooks/1"
DEFAULT_LEASE_SECONDS = 60.0  # above the 30-second response timeout, so a live send never loses its lease

RECORD_WITHIN_SECONDS = 0.1
"""The longest a sent attempt waits to be recorded (`run_until` records finished sends in batches)."""
STOP_CHECK_SECONDS = 0.1
RECORD_MARGIN_SECONDS = 5.0
"""Of a lease, what is kept (at most half of what the timeout leaves) for recording an attempt."""
AHEAD_PER_SLOT = 2
"""Attempts `run_until` may claim ahead per send slot, at least: enough that the slots rarely run
dry while the loop commits, and larger batches per commit (fewer transactions per attempt)."""
AHEAD_PER_SLOT_MOST = 8
"""...and at most, when receivers answer fast (`ahead_per_slot`)."""
AHEAD_SECONDS = 0.05
"""Claimed ahead per slot: what it sends in this long, at the pace of its recent sends."""
SECRET_CACHE_SIZE = 1024
"""Decrypted secrets a worker keeps (by ciphertext); the cache is emptied when it is full."""

NOT_IN_PLAN = "Not sent: the workspace's plan does not include webhooks."
"""The error of an attempt the worker did not send because the workspace's plan lacks webhooks."""
_NOT_SENT = NextStep("failed", None)

log = logging.getLogger("engage.delivery")


def ahead_per_slot(send_seconds: float | None) -> int:
    """Attempts to claim ahead per send slot when a send takes `send_seconds` (None: not known yet):
    what a slot sends in `AHEAD_SECONDS`, from `AHEAD_PER_SLOT` to `AHEAD_PER_SLOT_MOST`. Fast
    receivers get bigger batches per commit (the commit is then most of an attempt's cost); slow
    ones no more than before, so that one worker does not hold attempts that another could send."""
    if send_seconds is None or send_seconds <= 0:
        return AHEAD_PER_SLOT if send_seconds is None else AHEAD_PER_SLOT_MOST
    return max(AHEAD_PER_SLOT, min(AHEAD_PER_SLOT_MOST, int(AHEAD_SECONDS / send_seconds)))


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
        timeout_seconds: float | None = None,
        gate: DeliveryGate | None = None,
        on_attempt: Callable[[str], None] | None = None,
    ) -> None:
        """`timeout_seconds`: the longest a send of `sender` takes (its deadline); without it,
        `run_until` claims nothing ahead, since it cannot tell how long a claim may wait. `gate`:
        which workspaces may receive deliveries (None: every one). `on_attempt` is told each
        attempt's outcome, as logged (`delivered`, `retry`, `failed`, `not-recorded`), whatever the
        log level (metrics count them)."""
        self._queue = queue
        self._on_attempt = on_attempt
        self._gate = gate
        self._sender = sender
        self._cipher = cipher
        self._clock = clock
        self._lease = lease_seconds
        # `run_once` claims no more than it sends at once, so every attempt it claims starts at
        # once and finishes (timeout < lease) before its lease ends. `run_until` also claims ahead,
        # but sends such an attempt only while its lease outlasts a whole send and its record.
        self._batch = max(1, concurrency)
        if timeout_seconds is None:
            self._hold = 0.0
        else:
            spare = lease_seconds - timeout_seconds
            self._hold = spare - min(RECORD_MARGIN_SECONDS, spare / 2)
        self._executor = ThreadPoolExecutor(concurrency, "engage-delivery") if concurrency > 1 else None
        self._secrets: dict[str, str] = {}

    def run_once(self) -> int:
        """Claim one batch and deliver it concurrently. Returns how many attempts were claimed."""
        claims = self._queue.claim(self._clock.now(), self._lease, self._batch)
        sendable = self._refuse_undeliverable(claims)
        if sendable:
            list((self._executor.map if self._executor else map)(self.deliver, sendable))
        return len(claims)

    def _refuse_undeliverable(self, claims: Sequence[Claim]) -> list[Claim]:
        """The claims the gate lets through; the others are recorded failed (`NOT_IN_PLAN`), unsent.
        The gate is asked once per workspace of the batch."""
        if self._gate is None or not claims:
            return list(claims)
        delivers: dict[int, bool] = {}
        sendable: list[Claim] = []
        refused: list[_Sent] = []
        for claim in claims:
            if claim.kind == "partner":
                sendable.append(claim)
                continue
            allowed = delivers.get(claim.owner_id)
            if allowed is None:
                allowed = delivers[claim.owner_id] = self._gate.delivers(claim.owner_id)
            if allowed:
                sendable.append(claim)
            else:
                refused.append(_Sent(Completion(claim, Outcome(None, None, NOT_IN_PLAN), _NOT_SENT), 0.0))
        if refused:
            self._record_and_claim(refused, 0)
        return sendable

    def deliver(self, claim: Claim) -> bool:
        """Send one claimed attempt and record it. False when the lease had been lost meanwhile."""
        sent = self._send(claim)
        outcome, step = sent.completion.outcome, sent.completion.step
        recorded = self._queue.complete(claim, outcome, step, self._clock.now())
        self._attempted(sent, recorded)
        return recorded

    def _send(self, claim: Claim) -> _Sent:
        """Decrypt the secret, render, sign and send one attempt; never raises."""
        now = self._clock.now()
        started = time.monotonic()
        try:
            secret = self._secret(claim.secret_ciphertext)
        except Exception:
            # Loud: every delivery of the subscription fails until the right key is back (a restored
            # copy without its key file, a changed ENGAGE_SECRET_KEY).
            log.error(
                "The signing secret of webhook %s could not be decrypted: the secret key (ENGAGE_SECRET_KEY or "
                "the database's .secret-key file) is not the one it was encrypted with. No delivery of it can "
                "succeed until that key is restored.",
                claim.webhook_id,
            )
            outcome = Outcome(None, None, "The signing secret could not be decrypted.")
        else:
            try:
                headers, body = render(claim, secret, int(now.timestamp()), format_timestamp(now))
                outcome = self._sender.send(claim.url, headers, body)
            except Exception as exc:  # one bad attempt must not stop the worker; it fails and is retried
                outcome = Outcome(None, None, f"The attempt could not be sent: {type(exc).__name__}.")
        elapsed = time.monotonic() - started
        step = after_attempt(claim.attempt_number, outcome, self._clock.now())
        return _Sent(Completion(claim, outcome, step), elapsed)

    def _secret(self, ciphertext: str) -> str:
        """The plaintext of a subscription's secret, decrypted once per ciphertext (a regenerated
        secret has a new one). The worker holds the key that decrypts them all anyway."""
        secret = self._secrets.get(ciphertext)
        if secret is None:
            secret = self._cipher.decrypt(ciphertext)
            if len(self._secrets) >= SECRET_CACHE_SIZE:
                self._secrets.clear()
            self._secrets[ciphertext] = secret
        return secret

    def run_until(self, stop: threading.Event, *, idle_seconds: float = 0.5, max_backoff: float = 30.0) -> None:
        """Deliver until `stop` is set, then let the sends in progress finish (each ends within the
        sender's timeout), record them and return.

        Sends are pipelined. The send threads only send: when one finishes, it takes the next
        attempt claimed ahead, if there is one, at once. This loop records what they sent and
        claims more in one transaction (`DeliveryQueue.complete_and_claim`), so one commit serves
        many attempts: whenever at least half of the `concurrency` sends could start, or be
        claimed ahead, and at the latest `RECORD_WITHIN_SECONDS` after a send ended.

        Claiming ahead never lets a lease run out under a send: up to `ahead_per_slot` (from 2 to
        8, by how fast the recent sends went) times `concurrency` attempts wait for a free send
        slot, and only while their lease still leaves room for a whole send and its record
        (`timeout_seconds` and a margin); one that waited longer is not sent but released, for the
        next claim to take. Without a known `timeout_seconds` nothing is claimed ahead. On stop,
        what was claimed ahead is released too.

        With nothing due, the loop asks again after `idle_seconds`. A failing queue (database
        restarting, lock timeout) is logged and retried with a growing pause: the worker outlives
        the outage instead of dying with it (what could not be recorded is sent again when its
        lease ends)."""
        claims_ahead = self._executor is not None and self._hold > 0
        pipe = _Pipeline(self._batch, stop, claims_ahead=claims_ahead)
        refill = max(1, self._batch // 2)
        backoff = idle_seconds
        claim_at = 0.0  # time.monotonic() before which the queue is not asked (it was empty, or failed)
        try:
            while not stop.is_set():
                sent, stale = pipe.wait(refill, claim_at, stop)
                claiming = not stop.is_set() and pipe.room >= refill and time.monotonic() >= claim_at
                limit = pipe.room if claiming else 0
                if not sent and not stale and not limit:
                    continue
                claimed_at = time.monotonic()
                try:
                    claims = self._refuse_undeliverable(self._record_and_claim(sent, limit, stale))
                except Exception:
                    log.exception("delivery worker: the queue failed; retrying in %.1f s", backoff)
                    claim_at = time.monotonic() + backoff
                    backoff = min(max_backoff, backoff * 2)
                    continue
                if not limit:
                    continue
                backoff = idle_seconds
                if not claims:
                    claim_at = time.monotonic() + idle_seconds
                for claim in pipe.dispatch(claims, claimed_at + self._hold):
                    if self._executor is None:
                        pipe.finish(self._send(claim))
                        continue
                    try:
                        self._executor.submit(self._send_in_slot, claim, pipe)
                    except BaseException:  # the threads were shut down: the slot was never used
                        pipe.idle()
                        raise
        finally:
            left_ahead = pipe.close()
            sent, stale = pipe.wait_all()
            if sent or stale or left_ahead:
                try:
                    self._record_and_claim(sent, 0, [*stale, *left_ahead])
                except Exception:
                    log.exception("delivery worker: the queue failed to record the last attempts")

    def _send_in_slot(self, claim: Claim | None, pipe: _Pipeline) -> None:
        """Send `claim`, then each attempt claimed ahead that the pipeline hands this slot next."""
        while claim is not None:
            sent = None
            try:
                sent = self._send(claim)
            finally:
                claim = pipe.finish(sent)

    def _record_and_claim(self, sent: Sequence[_Sent], limit: int, release: Sequence[Claim] = ()) -> Sequence[Claim]:
        """Record the attempts `sent`, release `release` (claimed, never sent) and claim up to
        `limit` more, in one transaction; log each attempt sent. When that fails, they are logged
        as not recorded (their leases end and they are sent again) and the error is raised."""
        try:
            recorded, claims = self._queue.complete_and_claim(
                [one.completion for one in sent], self._clock.now(), self._lease, limit, release=release
            )
        except Exception:
            for one in sent:
                self._attempted(one, False)
            raise
        for one, was_recorded in zip(sent, recorded, strict=True):
            self._attempted(one, was_recorded)
        return claims

    def _attempted(self, sent: _Sent, recorded: bool) -> None:
        """Log an attempt and tell `on_attempt` its outcome; a failing hook never stops the worker."""
        result = _log_attempt(sent, recorded)
        if self._on_attempt is not None:
            try:
                self._on_attempt(result)
            except Exception:
                log.exception("The attempt hook failed.")

    def close(self) -> None:
        """Wait for sends in progress and release the threads."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)


@attrs.frozen
class _Sent:
    completion: Completion
    elapsed: float  # seconds the attempt took to send


class _Pipeline:
    """The send slots of a worker (`capacity` sends at once), the attempts claimed ahead for them
    (with `claims_ahead`, `ahead_per_slot` of the recent sends' pace per slot, each usable until a
    moment of `time.monotonic()`), and the attempts sent but not recorded yet. Shared by the loop
    and the send threads."""

    def __init__(self, capacity: int, stop: threading.Event, *, claims_ahead: bool) -> None:
        self._capacity = capacity
        self._stop = stop  # once set, a slot that frees up starts nothing more
        self._claims_ahead = claims_ahead
        self._ahead_max = ahead_per_slot(None) * capacity if claims_ahead else 0
        self._send_seconds: float | None = None  # a moving average of the sends' durations
        self.free = capacity  # send slots idle
        self._ahead: collections.deque[tuple[Claim, float]] = collections.deque()
        self._sent: list[_Sent] = []
        self._stale: list[Claim] = []
        self._first_sent_at = 0.0
        self._wanted = 1
        self._changed = threading.Condition()

    @property
    def room(self) -> int:
        """How many attempts could be claimed now: idle slots, and room to claim ahead."""
        return self.free + self._ahead_max - len(self._ahead)

    def dispatch(self, claims: Sequence[Claim], usable_until: float) -> list[Claim]:
        """The claims to start now, one per idle slot (taken); the rest wait, claimed ahead."""
        with self._changed:
            now = claims[: self.free]
            self.free -= len(now)
            self._ahead.extend((claim, usable_until) for claim in claims[len(now) :])
            return list(now)

    def finish(self, sent: _Sent | None) -> Claim | None:
        """A send ended (`sent` is None when it ended without an outcome: it is sent again later).
        The next attempt claimed ahead for this slot to send, or None when the slot falls idle."""
        with self._changed:
            first = sent is not None and not self._sent
            if sent is not None:
                if first:
                    self._first_sent_at = time.monotonic()
                self._sent.append(sent)
                self._paced(sent.elapsed)
            following = self._next_ahead()
            if following is None:
                self.free += 1
            # Wake the loop only when it has something new to do: claim, time the record, or stop.
            if first or self.room == self._wanted or self.free == self._capacity:
                self._changed.notify_all()
            return following

    def _paced(self, elapsed: float) -> None:
        """Count a send's duration in the pace, and size the claims ahead to it."""
        average = self._send_seconds
        self._send_seconds = average = elapsed if average is None else average + (elapsed - average) / 8
        if self._claims_ahead:
            self._ahead_max = ahead_per_slot(average) * self._capacity

    def idle(self) -> None:
        """A slot taken by `dispatch` was never used."""
        with self._changed:
            self.free += 1
            self._changed.notify_all()

    def _next_ahead(self) -> Claim | None:
        now = time.monotonic()
        while self._ahead and not self._stop.is_set():
            claim, usable_until = self._ahead.popleft()
            if now < usable_until:
                return claim
            self._stale.append(claim)  # waited too long: its lease may not outlast a send
        return None

    def wait(self, wanted: int, claim_at: float, stop: threading.Event) -> tuple[list[_Sent], list[Claim]]:
        """Wait until `wanted` attempts could be claimed and `claim_at` has come, `stop` is set,
        or a sent attempt has waited `RECORD_WITHIN_SECONDS` to be recorded; take the attempts sent
        meanwhile, and those claimed ahead that went stale."""
        with self._changed:
            self._wanted = wanted
            while not stop.is_set():
                now = time.monotonic()
                if self.room >= wanted and now >= claim_at:
                    break
                if self._sent and now - self._first_sent_at >= RECORD_WITHIN_SECONDS:
                    break
                pause = STOP_CHECK_SECONDS  # `stop` is an Event of its own: look at it now and then
                if self.room >= wanted:
                    pause = min(pause, claim_at - now)
                if self._sent:
                    pause = min(pause, self._first_sent_at + RECORD_WITHIN_SECONDS - now)
                self._changed.wait(max(pause, 0.001))
            return self._take()

    def close(self) -> list[Claim]:
        """The attempts claimed ahead, never sent (`stop` is set: no slot takes them any more)."""
        with self._changed:
            left = [claim for claim, _ in self._ahead]
            self._ahead.clear()
            return left

    def wait_all(self) -> tuple[list[_Sent], list[Claim]]:
        """Wait until no send is in progress; take the attempts sent, and those gone stale."""
        with self._changed:
            self._changed.wait_for(lambda: self.free == self._capacity)
            return self._take()

    def _take(self) -> tuple[list[_Sent], list[Claim]]:
        sent, self._sent = self._sent, []
        stale, self._stale = self._stale, []
        return sent, stale


def _log_attempt(sent: _Sent, recorded: bool) -> str:
    """One line per attempt: what was sent (by name only) and what came of it; returns `outcome`:
    `delivered`, `retry` (with `next_attempt_at`), `failed` (the last attempt failed) or
    `not-recorded` (the lease was lost, or the queue failed, before the outcome could be recorded:
    the attempt is sent again once its lease ends)."""
    claim, outcome, step = sent.completion.claim, sent.completion.outcome, sent.completion.step
    if not recorded:
        level, result = logging.WARNING, "not-recorded"
    elif step.status == "delivered":
        level, result = logging.INFO, "delivered"
    elif step.retry_at is not None:
        level, result = logging.INFO, "retry"
    else:
        level, result = logging.WARNING, "failed"
    if not log.isEnabledFor(level):
        return result
    details = f"status={'none' if outcome.status_code is None else outcome.status_code}"
    details += f" duration_ms={round(sent.elapsed * 1000)}"
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
    return result
