"""Webhook subscriptions and deliveries: the rules, free of transport and storage.

A *delivery* is one event for one subscription; it keeps its `delivery_id` across attempts.
Each *attempt* is a row of the delivery log (SPEC 2, Webhook records). The first attempt is due
when the event is committed; after a failure the next one is due 2, 10 and 30 minutes later; the
fourth failure is final. A 2xx answer within the timeout is the only success (SPEC 6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import attrs

from engage_core.kernel.events import OPT_IN, SUBSCRIBABLE

RETRY_DELAYS: tuple[timedelta, ...] = (timedelta(minutes=2), timedelta(minutes=10), timedelta(minutes=30))
MAX_ATTEMPTS = 1 + len(RETRY_DELAYS)
RESPONSE_TIMEOUT_SECONDS = 30.0
RESPONSE_EXCERPT_LIMIT = 2048
NAME_MAX = 255
URL_MAX = 2048

DELIVERY_STATUSES = ("pending", "delivered", "failed")


@attrs.frozen
class Subscription:
    """A webhook subscription. The secret is kept apart: it is shown once and stored encrypted."""

    id: int
    name: str
    url: str
    events: tuple[str, ...]
    is_active: bool
    created_at: datetime
    updated_at: datetime

    def wants(self, event_name: str) -> bool:
        """Active, and the event is listed. An empty list means every event of SPEC 6's catalogue;
        the extension events (`events.EXTENSIONS`) go only to subscriptions that list them.
        `webhook.test` is never emitted as an event: it is queued directly by
        `POST /webhooks/{id}/test`."""
        if not self.is_active:
            return False
        return event_name in self.events if self.events else event_name not in OPT_IN


@attrs.frozen
class Attempt:
    """One row of the delivery log."""

    id: int
    webhook_id: int
    delivery_id: str
    event_type: str
    attempt_number: int
    status: str
    response_status_code: int | None
    response_body: str | None
    error: str | None
    due_at: datetime
    created_at: datetime
    completed_at: datetime | None


@attrs.frozen
class Claim:
    """An attempt a worker has leased: everything needed to send it, and the lease that proves it
    is still this worker's to complete."""

    attempt_id: int
    lease_token: str
    kind: str  # "workspace" or "partner": which envelope and signature header to use
    owner_id: int  # account id, or partner id for partner-level subscriptions
    webhook_id: int
    url: str
    secret_ciphertext: str
    event_type: str
    payload: Mapping[str, Any]
    delivery_id: str
    attempt_number: int


@attrs.frozen
class Outcome:
    """What happened when an attempt was sent."""

    status_code: int | None
    body_excerpt: str | None
    error: str | None

    @property
    def succeeded(self) -> bool:
        return self.error is None and self.status_code is not None and 200 <= self.status_code < 300


@attrs.frozen
class NextStep:
    """The decision after an attempt: its final status, and when the next attempt is due (if any)."""

    status: str
    retry_at: datetime | None


@attrs.frozen
class Completion:
    """A sent attempt waiting to be recorded: the claim it was sent under, what happened, what next."""

    claim: Claim
    outcome: Outcome
    step: NextStep


def after_attempt(attempt_number: int, outcome: Outcome, now: datetime) -> NextStep:
    """Success ends the delivery; a failure schedules the next attempt until the fourth fails."""
    if outcome.succeeded:
        return NextStep("delivered", None)
    if attempt_number >= MAX_ATTEMPTS:
        return NextStep("failed", None)
    return NextStep("failed", now + RETRY_DELAYS[attempt_number - 1])


def excerpt(text: str | None) -> str | None:
    """The bounded part of a response body we keep."""
    if text is None:
        return None
    return text[:RESPONSE_EXCERPT_LIMIT]


def check_events(events: Sequence[str]) -> list[str]:
    """Unknown event names in `events` (empty when all are known)."""
    return [name for name in events if name not in SUBSCRIBABLE]


def check_target(url: str) -> str | None:
    """Why `url` cannot be a webhook target, or None. Only absolute `https://` URLs are accepted;
    where the host points is checked by the transport's SSRF guard, at creation and at send."""
    if len(url) > URL_MAX:
        return f"The url may not be greater than {URL_MAX} characters."
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        return "The url may not contain spaces or control characters."
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        return "The url must be a valid URL."
    if parts.scheme != "https":
        return "The url must use https."
    if not parts.hostname:
        return "The url must name a host."
    if parts.username or parts.password:
        return "The url may not contain credentials."
    return None


def envelope(event: str, delivery_id: str, timestamp: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """The workspace delivery body (SPEC 6, Envelope)."""
    return {"event": event, "delivery_id": delivery_id, "timestamp": timestamp, "data": dict(data)}


def partner_envelope(event: str, timestamp_iso: str, partner_id: int, data: Mapping[str, Any]) -> dict[str, Any]:
    """The partner-level delivery body (SPEC 6, Partner events)."""
    return {"event": event, "timestamp": timestamp_iso, "partner_id": partner_id, "data": dict(data)}
