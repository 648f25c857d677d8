"""What webhooks need from the outside world: storage of subscriptions and the delivery log, the
delivery queue, encryption of secrets at rest, the sender and the SSRF guard of targets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.webhooks.model import Attempt, Claim, Completion, NextStep, Outcome, Subscription


class WebhookRepository(Protocol):
    """Subscriptions of one account and their delivery log. Secrets are stored as ciphertext."""

    def add(
        self, name: str, url: str, events: tuple[str, ...], is_active: bool, secret_ciphertext: str, now: datetime
    ) -> Subscription:
        """Store a new subscription with its encrypted secret."""

    def get(self, webhook_id: int) -> Subscription | None:
        """The subscription `webhook_id`, or None."""

    def list(self) -> Sequence[Subscription]:
        """Oldest first."""

    def active(self) -> Sequence[Subscription]:
        """Active subscriptions (the outbox fans events out to these)."""

    def update(self, subscription: Subscription) -> None:
        """Store `name`, `url`, `events`, `is_active` and `updated_at`."""

    def delete(self, webhook_id: int) -> None:
        """Delete the subscription and its delivery log."""

    def secret_ciphertext(self, webhook_id: int) -> str:
        """The subscription's encrypted signing secret."""

    def set_secret(self, webhook_id: int, secret_ciphertext: str, now: datetime) -> None:
        """Replace the subscription's encrypted signing secret."""

    def enqueue(
        self,
        webhook_id: int,
        event_type: str,
        payload: Mapping[str, Any],
        delivery_id: str,
        attempt_number: int,
        due_at: datetime,
        now: datetime,
    ) -> Attempt:
        """Queue one attempt (status `pending`)."""

    def attempts(self, webhook_id: int, status: str | None, page: PageRequest) -> Page[Attempt]:
        """The delivery log, newest first."""

    def delivery(self, webhook_id: int, delivery_id: str) -> Sequence[Attempt]:
        """Every attempt of one delivery, oldest first."""

    def payload(self, attempt_id: int) -> Mapping[str, Any]:
        """The event data an attempt carries."""


class DeliveryQueue(Protocol):
    """The delivery log seen as a queue, across accounts: used by the worker only."""

    def claim(self, now: datetime, lease_seconds: float, limit: int) -> Sequence[Claim]:
        """Lease up to `limit` due `pending` attempts of active subscriptions whose lease is free or
        expired. Atomic: two workers never hold the same attempt at once. Attempts of a disabled
        subscription wait until it is enabled again."""

    def complete(self, claim: Claim, outcome: Outcome, step: NextStep, now: datetime) -> bool:
        """Record the outcome and, when `step.retry_at` is set, queue the next attempt of the same
        delivery. Does nothing and returns False when the lease was lost (expired and re-claimed)."""

    def complete_and_claim(
        self,
        completions: Sequence[Completion],
        now: datetime,
        lease_seconds: float,
        limit: int,
        *,
        release: Sequence[Claim] = (),
    ) -> tuple[Sequence[bool], Sequence[Claim]]:
        """`complete` each of `completions`, end the lease of each of `release` (claimed but never
        sent: due again at once), then `claim` up to `limit` attempts, in one transaction (a
        worker's loop pays one commit for all): whether each completion was recorded, in order,
        and the new claims. A claim given twice is recorded once; a lost lease is not released."""

    def close(self) -> None:
        """Release what the queue holds, if anything; the worker calls it when it stops."""


class SecretCipher(Protocol):
    """Encrypts secrets at rest (webhook signing secrets)."""

    def encrypt(self, plaintext: str) -> str:
        """The ciphertext of `plaintext`, as text."""

    def decrypt(self, ciphertext: str) -> str:
        """The plaintext of `ciphertext`."""


class WebhookSender(Protocol):
    """Posts one delivery. Never raises for network trouble: every failure is an `Outcome`."""

    def send(self, url: str, headers: Mapping[str, str], body: bytes) -> Outcome:
        """Post `body` with `headers` to `url`; the outcome, failures included."""


class TargetGuard(Protocol):
    """Why a target URL may not be used (its host resolves to an internal address), or None."""

    def refusal(self, url: str) -> str | None:
        """Why `url` may not be used, or None when it may."""


class WebhooksRepositories(Protocol):
    """The webhooks area's repositories, as a workspace unit of work hands them out."""

    @property
    def webhooks(self) -> WebhookRepository:
        """The subscriptions and their delivery log."""


class DeliveryGate(Protocol):
    """Whether a workspace may receive webhook deliveries now: its plan in force has the feature
    (`engage_core.plans.entitlements.Entitlements.delivers`)."""

    def delivers(self, account_id: int) -> bool:
        """Whether the workspace `account_id` may receive deliveries now."""
