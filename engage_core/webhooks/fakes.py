"""In-memory fakes of the webhooks area's ports: subscriptions and the delivery log, the delivery
queue, a reversible cipher, a target guard that refuses nothing and a sender that records."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import attrs

from engage_core.kernel.errors import NotFound
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.memory import FakeArea, MemoryStore, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.partners.fakes import PartnerAttempt, PartnersTables
from engage_core.webhooks.model import Attempt, Claim, Completion, NextStep, Outcome, Subscription, excerpt


@attrs.define
class WebhooksTables(Tables):
    """The webhooks area's rows, by table."""

    MUTABLE_ROWS = frozenset({"attempts"})

    events: list[RecordedEvent] = attrs.Factory(list)
    webhooks: dict[int, tuple[int, Subscription]] = attrs.Factory(dict)
    webhook_secrets: dict[int, str] = attrs.Factory(dict)
    attempts: dict[int, _AttemptRow] = attrs.Factory(dict)


class _Repo(Repo):
    @property
    def _t(self) -> WebhooksTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(WebhooksTables)


@attrs.define
class _AttemptRow:
    account_id: int
    attempt: Attempt
    payload: Mapping[str, Any]
    leased_until: datetime | None = None
    lease_token: str | None = None


@attrs.define
class RecordedEvent:
    """An event as the outbox holds it."""

    account_id: int
    event: DomainEvent


class InMemoryWebhookRepository(_Repo):
    """The in-memory :class:`.WebhookRepository`."""

    def add(
        self, name: str, url: str, events: tuple[str, ...], is_active: bool, secret_ciphertext: str, now: datetime
    ) -> Subscription:
        """In memory, as :meth:`.WebhookRepository.add`."""
        subscription = Subscription(self._store.next_id(), name, url, events, is_active, now, now)
        self._t.webhooks[subscription.id] = (self._account, subscription)
        self._t.webhook_secrets[subscription.id] = secret_ciphertext
        return subscription

    def get(self, webhook_id: int) -> Subscription | None:
        """In memory, as :meth:`.WebhookRepository.get`."""
        row = self._t.webhooks.get(webhook_id)
        return None if row is None or row[0] != self._account else row[1]

    def list(self) -> Sequence[Subscription]:
        """In memory, as :meth:`.WebhookRepository.list`."""
        return sorted((s for (a, s) in self._t.webhooks.values() if a == self._account), key=lambda s: s.id)

    def active(self) -> Sequence[Subscription]:
        """In memory, as :meth:`.WebhookRepository.active`."""
        return [s for s in self.list() if s.is_active]

    def update(self, subscription: Subscription) -> None:
        """In memory, as :meth:`.WebhookRepository.update`."""
        if self.get(subscription.id) is not None:
            self._t.webhooks[subscription.id] = (self._account, subscription)

    def delete(self, webhook_id: int) -> None:
        """In memory, as :meth:`.WebhookRepository.delete`."""
        if self.get(webhook_id) is not None:
            del self._t.webhooks[webhook_id]
            del self._t.webhook_secrets[webhook_id]
            self._t.attempts = {k: v for k, v in self._t.attempts.items() if v.attempt.webhook_id != webhook_id}

    def secret_ciphertext(self, webhook_id: int) -> str:
        """In memory, as :meth:`.WebhookRepository.secret_ciphertext`."""
        if self.get(webhook_id) is None:
            raise NotFound("Webhook")
        return self._t.webhook_secrets[webhook_id]

    def set_secret(self, webhook_id: int, secret_ciphertext: str, now: datetime) -> None:
        """In memory, as :meth:`.WebhookRepository.set_secret`."""
        if self.get(webhook_id) is not None:
            self._t.webhook_secrets[webhook_id] = secret_ciphertext

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
        """In memory, as :meth:`.WebhookRepository.enqueue`."""
        if self.get(webhook_id) is None:
            raise NotFound("Webhook")
        attempt = Attempt(
            self._store.next_id(), webhook_id, delivery_id, event_type, attempt_number, "pending",
            None, None, None, due_at, now, None,
        )  # fmt: skip
        self._t.attempts[attempt.id] = _AttemptRow(self._account, attempt, dict(payload))
        return attempt

    def _log(self, webhook_id: int) -> Sequence[Attempt]:
        return [
            r.attempt
            for r in self._t.attempts.values()
            if r.account_id == self._account and r.attempt.webhook_id == webhook_id
        ]

    def attempts(self, webhook_id: int, status: str | None, page: PageRequest) -> Page[Attempt]:
        """In memory, as :meth:`.WebhookRepository.attempts`."""
        found = [a for a in self._log(webhook_id) if status is None or a.status == status]
        return paginate(sorted(found, key=lambda a: a.id, reverse=True), page)

    def delivery(self, webhook_id: int, delivery_id: str) -> Sequence[Attempt]:
        """In memory, as :meth:`.WebhookRepository.delivery`."""
        return sorted((a for a in self._log(webhook_id) if a.delivery_id == delivery_id), key=lambda a: a.id)

    def payload(self, attempt_id: int) -> Mapping[str, Any]:
        """In memory, as :meth:`.WebhookRepository.payload`."""
        row = self._t.attempts.get(attempt_id)
        if row is None or row.account_id != self._account:
            raise NotFound("Delivery")
        return row.payload


class InMemoryDeliveryQueue:
    """The delivery log as a queue, over the same store (commits directly; the store lock makes
    each call atomic). Like the SQL queue it serves both kinds of attempt: a workspace's (the rows
    of `WebhooksTables.attempts`) and a partner's (`PartnersTables.partner_attempts`), claimed
    together, earliest due first, then by id."""

    def __init__(self, store: MemoryStore) -> None:
        self._store = store

    def claim(self, now: datetime, lease_seconds: float, limit: int) -> Sequence[Claim]:
        """In memory, as :meth:`.DeliveryQueue.claim`."""
        with self._store.lock:
            s = self._store.state.of(WebhooksTables)
            partners = self._partner_attempts()
            due: list[tuple[datetime, int, _AttemptRow | int]] = [
                (r.attempt.due_at, r.attempt.id, r)
                for r in s.attempts.values()
                if r.attempt.status == "pending"
                and r.attempt.due_at <= now
                and (r.leased_until is None or r.leased_until <= now)
                and s.webhooks[r.attempt.webhook_id][1].is_active
            ]
            subscriptions = self._store.state.of(PartnersTables).partner_webhooks
            due += [
                (a.due_at, a.id, index)
                for index, a in enumerate(partners)
                if a.status == "pending"
                and a.due_at <= now
                and (a.leased_until is None or a.leased_until <= now)
                and a.webhook_id in subscriptions
                and subscriptions[a.webhook_id][1].is_active
            ]
            due.sort(key=lambda entry: (entry[0], entry[1]))
            until = now + timedelta(seconds=lease_seconds)
            return [self._lease(row, until, s, partners) for _, _, row in due[: max(limit, 0)]]

    def _lease(
        self, row: _AttemptRow | int, until: datetime, s: WebhooksTables, partners: list[PartnerAttempt]
    ) -> Claim:
        """Lease one due attempt (a workspace row, or the index of a partner attempt) and claim it."""
        token = uuid.uuid4().hex
        if isinstance(row, int):
            attempt = attrs.evolve(partners[row], leased_until=until, lease_token=token)
            partners[row] = attempt
            _, subscription, secret = self._store.state.of(PartnersTables).partner_webhooks[attempt.webhook_id]
            return Claim(
                attempt_id=attempt.id, lease_token=token, kind="partner", owner_id=attempt.partner_id,
                webhook_id=subscription.id, url=subscription.url, secret_ciphertext=secret,
                event_type=attempt.event_type, payload=attempt.payload, delivery_id=attempt.delivery_id,
                attempt_number=attempt.attempt_number,
            )  # fmt: skip
        row.leased_until = until
        row.lease_token = token
        subscription = s.webhooks[row.attempt.webhook_id][1]
        return Claim(
            attempt_id=row.attempt.id,
            lease_token=token,
            kind="workspace",
            owner_id=row.account_id,
            webhook_id=subscription.id,
            url=subscription.url,
            secret_ciphertext=s.webhook_secrets[subscription.id],
            event_type=row.attempt.event_type,
            payload=row.payload,
            delivery_id=row.attempt.delivery_id,
            attempt_number=row.attempt.attempt_number,
        )

    def _partner_attempts(self) -> list[PartnerAttempt]:
        """The partner attempts of the committed state, each numbered (the outbox leaves `id` 0)."""
        attempts = self._store.state.of(PartnersTables).partner_attempts
        for index, attempt in enumerate(attempts):
            if attempt.id == 0:
                attempts[index] = attrs.evolve(attempt, id=self._store.next_id())
        return attempts

    def complete_and_claim(
        self,
        completions: Sequence[Completion],
        now: datetime,
        lease_seconds: float,
        limit: int,
        *,
        release: Sequence[Claim] = (),
    ) -> tuple[Sequence[bool], Sequence[Claim]]:
        """In memory, as :meth:`.DeliveryQueue.complete_and_claim`."""
        with self._store.lock:  # reentrant: one atomic step, like a transaction
            recorded = [self.complete(c.claim, c.outcome, c.step, now) for c in completions]
            for claim in release:
                if claim.kind == "partner":
                    partners = self._partner_attempts()
                    index = _partner_index(partners, claim)
                    if index is not None:
                        partners[index] = attrs.evolve(partners[index], leased_until=None, lease_token=None)
                    continue
                row = self._store.state.of(WebhooksTables).attempts.get(claim.attempt_id)
                if row is not None and row.lease_token == claim.lease_token and row.attempt.status == "pending":
                    row.lease_token = None
                    row.leased_until = None
            return recorded, self.claim(now, lease_seconds, limit)

    def complete(self, claim: Claim, outcome: Outcome, step: NextStep, now: datetime) -> bool:
        """In memory, as :meth:`.DeliveryQueue.complete`."""
        with self._store.lock:
            if claim.kind == "partner":
                return self._complete_partner(claim, outcome, step, now)
            s = self._store.state.of(WebhooksTables)
            row = s.attempts.get(claim.attempt_id)
            if row is None or row.lease_token != claim.lease_token or row.attempt.status != "pending":
                return False
            row.attempt = attrs.evolve(
                row.attempt,
                status=step.status,
                response_status_code=outcome.status_code,
                response_body=excerpt(outcome.body_excerpt),
                error=excerpt(outcome.error),
                completed_at=now,
            )
            row.lease_token = None
            row.leased_until = None
            if step.retry_at is not None:
                retry = Attempt(
                    self._store.next_id(), row.attempt.webhook_id, row.attempt.delivery_id, row.attempt.event_type,
                    row.attempt.attempt_number + 1, "pending", None, None, None, step.retry_at, now, None,
                )  # fmt: skip
                s.attempts[retry.id] = _AttemptRow(row.account_id, retry, row.payload)
            return True

    def _complete_partner(self, claim: Claim, outcome: Outcome, step: NextStep, now: datetime) -> bool:
        partners = self._partner_attempts()
        index = _partner_index(partners, claim)
        if index is None:
            return False
        attempt = attrs.evolve(
            partners[index],
            status=step.status,
            response_status_code=outcome.status_code,
            response_body=excerpt(outcome.body_excerpt),
            error=excerpt(outcome.error),
            completed_at=now,
            leased_until=None,
            lease_token=None,
        )
        partners[index] = attempt
        if step.retry_at is not None:
            partners.append(
                PartnerAttempt(
                    attempt.partner_id,
                    attempt.webhook_id,
                    attempt.delivery_id,
                    attempt.event_type,
                    attempt.payload,
                    step.retry_at,
                    attempt.attempt_number + 1,
                    self._store.next_id(),
                )
            )
        return True

    def close(self) -> None:
        """In memory, as :meth:`.DeliveryQueue.close`."""
        pass


def _partner_index(attempts: Sequence[PartnerAttempt], claim: Claim) -> int | None:
    """Where the pending partner attempt `claim` still holds the lease of is, or None."""
    return next(
        (
            index
            for index, attempt in enumerate(attempts)
            if attempt.id == claim.attempt_id
            and attempt.lease_token == claim.lease_token
            and attempt.status == "pending"
        ),
        None,
    )


class FakeCipher:
    """A reversible stand-in for encryption at rest: visibly not the plaintext, trivially undone."""

    def encrypt(self, plaintext: str) -> str:
        """In memory, as :meth:`.SecretCipher.encrypt`."""
        return "fake:" + plaintext[::-1]

    def decrypt(self, ciphertext: str) -> str:
        """In memory, as :meth:`.SecretCipher.decrypt`."""
        if not ciphertext.startswith("fake:"):
            raise ValueError("not a fake ciphertext")
        return ciphertext[5:][::-1]


class AllowAllTargets:
    """A target guard that refuses nothing (the in-memory world has no network)."""

    def refusal(self, url: str) -> str | None:
        """In memory, as :meth:`.TargetGuard.refusal`."""
        return None


@attrs.define
class SentRequest:
    """One request :class:`FakeSender` was asked to send: its URL, headers and body."""

    url: str
    headers: dict[str, str]
    body: bytes


class FakeSender:
    """Records every request; answers with `respond(request)` (default: 200 OK)."""

    def __init__(self, respond: Callable[[SentRequest], Outcome] | None = None) -> None:
        self.sent: list[SentRequest] = []
        self._respond = respond or (lambda _request: Outcome(200, "ok", None))
        self._lock = threading.Lock()

    def send(self, url: str, headers: Mapping[str, str], body: bytes) -> Outcome:
        """Record the request and answer it, as :meth:`.WebhookSender.send`."""
        request = SentRequest(url, dict(headers), body)
        with self._lock:
            self.sent.append(request)
        return self._respond(request)


AREA = FakeArea(
    WebhooksTables,
    workspace={
        "webhooks": InMemoryWebhookRepository,
    },
)
