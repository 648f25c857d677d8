"""Webhook subscriptions: create, change, rotate the secret, test, read the log, redeliver."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import CATALOGUE, EVENTS_MAX, EXTENSIONS, TEST_EVENT
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, Unset, pick
from engage_core.kernel.validation import ErrorCollector, required_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork
from engage_core.webhooks.model import DELIVERY_STATUSES, NAME_MAX, Attempt, Subscription, check_events, check_target
from engage_core.webhooks.ports import SecretCipher, TargetGuard
from engage_core.webhooks.signatures import generate_secret


@attrs.frozen
class WebhookInput:
    """Fields of `POST /webhooks`. No `events` subscribes to every event."""

    name: str
    url: str
    events: Sequence[str] = ()
    is_active: bool = True


@attrs.frozen
class WebhookPatch:
    """Fields of `PUT /webhooks/{id}`: any subset; `UNSET` leaves a field alone."""

    name: str | Unset = UNSET
    url: str | Unset = UNSET
    events: Sequence[str] | Unset = UNSET
    is_active: bool | Unset = UNSET


@attrs.frozen
class RevealedSecret:
    """A subscription with its plaintext secret: only ever returned by create and regenerate."""

    subscription: Subscription
    secret: str


class WebhookService:
    """Webhook subscriptions of a workspace, their signing secrets and their delivery log. Deliveries are
    queued by the outbox when events commit and sent by the delivery worker
    (:mod:`engage_core.webhooks.delivery`).

    Methods that name a subscription raise :class:`.NotFound` when it is not in the account."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, cipher: SecretCipher, guard: TargetGuard) -> None:
        self._uow = uow
        self._clock = clock
        self._cipher = cipher
        self._guard = guard

    @staticmethod
    def event_names() -> list[str]:
        """Every event a subscription can receive: SPEC 6's, `webhook.test`, then the extensions."""
        return [*CATALOGUE, TEST_EVENT, *EXTENSIONS]

    def list(self, account_id: int) -> Sequence[Subscription]:
        """Every subscription of the account, oldest first."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.webhooks.list()

    def get(self, account_id: int, webhook_id: int) -> Subscription:
        """The subscription `webhook_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _subscription(uow, webhook_id)

    def create(self, account_id: int, data: WebhookInput) -> RevealedSecret:
        """Create a subscription with a new signing secret, returned in plaintext this once.

        Raises :class:`.ValidationFailed` for a blank or too long name, a target URL that is not
        allowed (not HTTP(S), or resolving to an internal address), or unknown events (each field
        named)."""
        name, url, events = self._validated(data.name, data.url, data.events)
        assert url is not None and events is not None
        secret = generate_secret()
        with self._uow.workspace(account_id) as uow:
            created = uow.webhooks.add(
                name, url, events, data.is_active, self._cipher.encrypt(secret), self._clock.now()
            )
            uow.commit()
        return RevealedSecret(created, secret)

    def update(self, account_id: int, webhook_id: int, patch: WebhookPatch) -> Subscription:
        """Change the fields the patch sets; only those are checked, so disabling a subscription never
        fails on its unchanged target.

        Raises :class:`.NotFound` when it is not in the account; :class:`.ValidationFailed` as
        :meth:`create` does."""
        with self._uow.workspace(account_id) as uow:
            current = _subscription(uow, webhook_id)
            # Only what the patch sets is checked: disabling a webhook must not fail because its
            # unchanged target no longer resolves.
            name, url, events = self._validated(
                pick(patch.name, current.name),
                None if patch.url is UNSET else patch.url,
                None if patch.events is UNSET else patch.events,
            )
            url = url or current.url
            events = current.events if events is None else events
            changed = attrs.evolve(
                current,
                name=name,
                url=url,
                events=events,
                is_active=pick(patch.is_active, current.is_active),
                updated_at=self._clock.now(),
            )
            uow.webhooks.update(changed)
            uow.commit()
        return changed

    def delete(self, account_id: int, webhook_id: int) -> None:
        """Delete the subscription and its delivery log.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id) as uow:
            _subscription(uow, webhook_id)
            uow.webhooks.delete(webhook_id)
            uow.commit()

    def regenerate_secret(self, account_id: int, webhook_id: int) -> RevealedSecret:
        """The old secret stops signing at once: attempts sent after this use the new one."""
        secret = generate_secret()
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _subscription(uow, webhook_id)
            uow.webhooks.set_secret(webhook_id, self._cipher.encrypt(secret), now)
            current = attrs.evolve(_subscription(uow, webhook_id), updated_at=now)
            uow.webhooks.update(current)
            uow.commit()
        return RevealedSecret(current, secret)

    def send_test(self, account_id: int, webhook_id: int) -> Attempt:
        """Queue a `webhook.test` delivery, whatever events the subscription filters on. A disabled
        subscription is refused: its deliveries would wait unsent until it is enabled."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            subscription = _subscription(uow, webhook_id)
            if not subscription.is_active:
                raise ValidationFailed.on("is_active", "The webhook is disabled: enable it to send a test.")
            payload = {
                "message": "This is a test delivery.",
                "webhook_id": subscription.id,
                "webhook_name": subscription.name,
            }
            attempt = uow.webhooks.enqueue(webhook_id, TEST_EVENT, payload, str(uuid.uuid4()), 1, now, now)
            uow.commit()
        return attempt

    def deliveries(self, account_id: int, webhook_id: int, status: str | None, page: PageRequest) -> Page[Attempt]:
        """One page of the subscription's delivery log, newest first; only attempts of `status` when
        given.

        Raises :class:`.ValidationFailed` for an unknown status; :class:`.NotFound` when the
        subscription is not in the account."""
        if status is not None and status not in DELIVERY_STATUSES:
            raise ValidationFailed.on("status", "The status must be one of: " + ", ".join(DELIVERY_STATUSES) + ".")
        with self._uow.workspace(account_id, readonly=True) as uow:
            _subscription(uow, webhook_id)
            return uow.webhooks.attempts(webhook_id, status, page)

    def redeliver(self, account_id: int, webhook_id: int, delivery_id: str) -> Attempt:
        """Queue one more attempt of a failed delivery, with the same `delivery_id`. A manual attempt
        is not retried automatically when it fails."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _subscription(uow, webhook_id)
            attempts = uow.webhooks.delivery(webhook_id, delivery_id)
            if not attempts:
                raise NotFound("Delivery")
            last = attempts[-1]
            if last.status != "failed":
                raise ValidationFailed.on(
                    "delivery_id", f"Only a failed delivery can be redelivered; this one is {last.status}."
                )
            payload = uow.webhooks.payload(last.id)
            attempt = uow.webhooks.enqueue(
                webhook_id, last.event_type, payload, delivery_id, last.attempt_number + 1, now, now
            )
            uow.commit()
        return attempt

    def _validated(
        self, name: str, url: str | None, events: Sequence[str] | None
    ) -> tuple[str, str | None, tuple[str, ...] | None]:
        """Check the fields given (None: not given), all at once."""
        errors = ErrorCollector()
        clean_name = errors.run(lambda: required_text("name", name, max_length=NAME_MAX))
        clean_url = None if url is None else url.strip()
        if clean_url is not None:
            refusal = check_target(clean_url) or self._guard.refusal(clean_url)
            if refusal is not None:
                errors.errors["url"] = [refusal]
        if events is not None and len(events) > EVENTS_MAX:
            errors.errors["events"] = [f"The events may not have more than {EVENTS_MAX} items."]
            events = None
        for index, event_name in enumerate(events or ()):
            if check_events([event_name]):
                errors.errors[f"events.{index}"] = [f"Unknown event: {event_name!r}. See GET /webhooks/events."]
        errors.raise_if_any()
        assert clean_name is not None
        return clean_name, clean_url, None if events is None else tuple(dict.fromkeys(events))


def _subscription(uow: WorkspaceUnitOfWork, webhook_id: int) -> Subscription:
    found = uow.webhooks.get(webhook_id)
    if found is None:
        raise NotFound("Webhook")
    return found
