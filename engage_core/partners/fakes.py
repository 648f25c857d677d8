"""In-memory fakes of the partners area's ports."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import attrs

from engage_core.agents.fakes import AgentsTables
from engage_core.contacts.fakes import ContactsTables
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.messaging.fakes import MessagingTables
from engage_core.partners.model import Client, ClientDraft, ClientFilter, Impersonation, Partner, PartnerDraft
from engage_core.partners.model import email_key as partner_email_key
from engage_core.plans.model import ScheduledPlan
from engage_core.plans.usage import UsageCounts
from engage_core.webhooks.model import Subscription


@attrs.define
class PartnersTables(Tables):
    """The partners area's rows, by table."""

    partners: dict[int, tuple[Partner, str]] = attrs.Factory(dict)  # id -> (partner, key digest)
    clients: dict[int, Client] = attrs.Factory(dict)  # account id -> client
    impersonations: dict[str, tuple[Impersonation, datetime, bool]] = attrs.Factory(dict)  # (grant, expiry, used)
    partner_webhooks: dict[int, tuple[int, Subscription, str]] = attrs.Factory(dict)  # id -> (partner, sub, secret)
    partner_events: list[tuple[int, DomainEvent]] = attrs.Factory(list)  # (partner id, event): the outbox
    partner_attempts: list[PartnerAttempt] = attrs.Factory(list)


class _Repo(Repo):
    @property
    def _t(self) -> PartnersTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(PartnersTables)


@attrs.frozen
class PartnerAttempt:
    """A partner-level delivery attempt as the outbox queues it (kind `partner`, owner the partner).

    The fields after `due_at` are the delivery queue's (`engage_core.webhooks.fakes.InMemoryDeliveryQueue`):
    the outbox leaves them at their defaults, and the queue numbers an attempt (`id`) when it first
    sees it, then records its lease and outcome, and queues its retry, by replacing it."""

    partner_id: int
    webhook_id: int
    delivery_id: str
    event_type: str
    payload: Mapping[str, Any]
    due_at: datetime
    attempt_number: int = 1
    id: int = 0
    status: str = "pending"
    leased_until: datetime | None = None
    lease_token: str | None = None
    response_status_code: int | None = None
    response_body: str | None = None
    error: str | None = None
    completed_at: datetime | None = None


class InMemoryPartnerRepository(_Repo):
    """The in-memory :class:`.PartnerRepository`."""

    def add(self, draft: PartnerDraft, key_digest: str, key_hint: str, now: datetime) -> Partner | None:
        """In memory, as :meth:`.PartnerRepository.add`."""
        if self.slug_taken(draft.slug):
            return None  # the unique index
        partner = Partner(
            self._store.next_id(), draft.company_name, draft.slug, draft.email, draft.plan, "active",
            draft.client_seats_max, key_hint, now, now,
        )  # fmt: skip
        self._t.partners[partner.id] = (partner, key_digest)
        return partner

    def get(self, partner_id: int) -> Partner | None:
        """In memory, as :meth:`.PartnerRepository.get`."""
        row = self._t.partners.get(partner_id)
        return None if row is None else row[0]

    def by_key_digest(self, key_digest: str) -> tuple[Partner, str] | None:
        """In memory, as :meth:`.PartnerRepository.by_key_digest`."""
        return next(((p, d) for p, d in self._t.partners.values() if d == key_digest), None)

    def slug_taken(self, slug: str) -> bool:
        """In memory, as :meth:`.PartnerRepository.slug_taken`."""
        return any(p.slug == slug for p, _ in self._t.partners.values())

    def list(self) -> Sequence[Partner]:
        """In memory, as :meth:`.PartnerRepository.list`."""
        return sorted((p for p, _ in self._t.partners.values()), key=lambda p: p.id)

    def set_key(self, partner_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        """In memory, as :meth:`.PartnerRepository.set_key`."""
        partner, _ = self._t.partners[partner_id]
        changed = attrs.evolve(partner, key_hint=key_hint, updated_at=now, key_generation=partner.key_generation + 1)
        self._t.partners[partner_id] = (changed, key_digest)

    def advance_key_generation(self, partner_id: int) -> None:
        """In memory, as :meth:`.PartnerRepository.advance_key_generation`."""
        partner, digest = self._t.partners[partner_id]
        self._t.partners[partner_id] = (attrs.evolve(partner, key_generation=partner.key_generation + 1), digest)

    def update(self, partner: Partner) -> None:
        """In memory, as :meth:`.PartnerRepository.update`."""
        current, digest = self._t.partners[partner.id]
        kept = attrs.evolve(
            partner, slug=current.slug, key_hint=current.key_hint, key_generation=current.key_generation
        )
        self._t.partners[partner.id] = (kept, digest)


class InMemoryClientRepository(_Repo):
    """The in-memory :class:`.ClientRepository`."""

    def _of(self, partner_id: int) -> list[Client]:
        return sorted((c for c in self._t.clients.values() if c.partner_id == partner_id), key=lambda c: c.id)

    def lock_partner(self, partner_id: int) -> None:
        """Nothing to do: the store lock already serialises every transaction."""

    def add(self, partner_id: int, account_id: int, draft: ClientDraft, now: datetime) -> Client | None:
        """In memory, as :meth:`.ClientRepository.add`."""
        if self.email_in_use(draft.primary_user.email) or self.slug_taken(draft.slug):
            return None  # the unique indexes
        client = Client(
            account_id, partner_id, draft.company_name, draft.slug, "pending_setup",
            ScheduledPlan(draft.plan, now), draft.primary_user, draft.timezone, draft.country_id, now, now,
        )  # fmt: skip
        self._t.clients[account_id] = client
        return client

    def get(self, partner_id: int, client_id: int) -> Client | None:
        """In memory, as :meth:`.ClientRepository.get`."""
        client = self._t.clients.get(client_id)
        return client if client is not None and client.partner_id == partner_id else None

    def of_account(self, account_id: int) -> Client | None:
        """In memory, as :meth:`.ClientRepository.of_account`."""
        return self._t.clients.get(account_id)

    def find(self, partner_id: int, filters: ClientFilter, page: PageRequest, now: datetime) -> Page[Client]:
        """In memory, as :meth:`.ClientRepository.find`."""
        found = [c for c in self._of(partner_id) if filters.matches(c, now)]
        return paginate(sorted(found, key=lambda c: (c.created_at, c.id), reverse=True), page)

    def list(self, partner_id: int) -> Sequence[Client]:
        """In memory, as :meth:`.ClientRepository.list`."""
        return self._of(partner_id)

    def usage(self, partner_id: int, start: datetime, end: datetime) -> Mapping[int, UsageCounts]:
        """In memory, as :meth:`.ClientRepository.usage`."""
        ids = {c.id for c in self._of(partner_id)}
        contacts = Counter(a for a, _ in self._state.of(ContactsTables).contacts.values() if a in ids)
        sent = Counter(
            a
            for a, m in self._state.of(MessagingTables).messages.values()
            if a in ids and start <= m.created_at < end and m.direction == "outbound" and m.status != "failed"
        )
        sessions = Counter(
            r.account_id
            for r in {
                (r.account_id, r.contact_id): r
                for r in self._state.of(AgentsTables).ai_replies.values()
                if r.account_id in ids and start <= r.created_at < end
            }.values()
        )
        return {
            i: UsageCounts(messages_sent=sent[i], contacts_total=contacts[i], ai_agent_sessions=sessions[i])
            for i in sorted(ids)
        }

    def count(self, partner_id: int) -> int:
        """In memory, as :meth:`.ClientRepository.count`."""
        return len(self._of(partner_id))

    def email_in_use(self, email: str) -> bool:
        """In memory, as :meth:`.ClientRepository.email_in_use`."""
        key = partner_email_key(email)
        return any(partner_email_key(c.primary_user.email) == key for c in self._t.clients.values())

    def slug_taken(self, slug: str) -> bool:
        """In memory, as :meth:`.ClientRepository.slug_taken`."""
        return any(c.slug == slug for c in self._t.clients.values())

    def update(self, client: Client) -> None:
        """In memory, as :meth:`.ClientRepository.update`."""
        current = self._t.clients.get(client.id)
        if current is not None and current.partner_id == client.partner_id:
            self._t.clients[client.id] = attrs.evolve(
                client,
                slug=current.slug,
                created_at=current.created_at,
                primary_user=attrs.evolve(current.primary_user, id=client.primary_user.id),
            )

    def delete(self, partner_id: int, client_id: int) -> None:
        """In memory, as :meth:`.ClientRepository.delete`."""
        if self.get(partner_id, client_id) is not None:
            self._state.purge_account(client_id)


class InMemoryImpersonationRepository(_Repo):
    """The in-memory :class:`.ImpersonationRepository`."""

    def add(self, token_digest: str, grant: Impersonation, expires_at: datetime, now: datetime) -> None:
        """In memory, as :meth:`.ImpersonationRepository.add`."""
        self._t.impersonations[token_digest] = (grant, expires_at, False)

    def redeem(self, token_digest: str, now: datetime) -> Impersonation | None:
        """In memory, as :meth:`.ImpersonationRepository.redeem`."""
        row = self._t.impersonations.get(token_digest)
        if row is None or row[2] or now >= row[1]:
            return None
        self._t.impersonations[token_digest] = (row[0], row[1], True)
        return row[0]


class InMemoryPartnerWebhookRepository(_Repo):
    """The in-memory :class:`.PartnerWebhookRepository`."""

    def add(
        self,
        partner_id: int,
        name: str,
        url: str,
        events: tuple[str, ...],
        is_active: bool,
        secret_ciphertext: str,
        now: datetime,
    ) -> Subscription:
        """In memory, as :meth:`.PartnerWebhookRepository.add`."""
        subscription = Subscription(self._store.next_id(), name, url, events, is_active, now, now)
        self._t.partner_webhooks[subscription.id] = (partner_id, subscription, secret_ciphertext)
        return subscription

    def get(self, partner_id: int, webhook_id: int) -> Subscription | None:
        """In memory, as :meth:`.PartnerWebhookRepository.get`."""
        row = self._t.partner_webhooks.get(webhook_id)
        return None if row is None or row[0] != partner_id else row[1]

    def list(self, partner_id: int) -> Sequence[Subscription]:
        """In memory, as :meth:`.PartnerWebhookRepository.list`."""
        return sorted((s for p, s, _ in self._t.partner_webhooks.values() if p == partner_id), key=lambda s: s.id)

    def update(self, partner_id: int, subscription: Subscription) -> None:
        """In memory, as :meth:`.PartnerWebhookRepository.update`."""
        row = self._t.partner_webhooks.get(subscription.id)
        if row is not None and row[0] == partner_id:
            self._t.partner_webhooks[subscription.id] = (partner_id, subscription, row[2])

    def delete(self, partner_id: int, webhook_id: int) -> None:
        """In memory, as :meth:`.PartnerWebhookRepository.delete`."""
        if self.get(partner_id, webhook_id) is not None:
            del self._t.partner_webhooks[webhook_id]
            self._t.partner_attempts[:] = [a for a in self._t.partner_attempts if a.webhook_id != webhook_id]


AREA = FakeArea(
    PartnersTables,
    partners={
        "partners": InMemoryPartnerRepository,
        "clients": InMemoryClientRepository,
        "impersonations": InMemoryImpersonationRepository,
        "partner_webhooks": InMemoryPartnerWebhookRepository,
    },
)
