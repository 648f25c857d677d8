"""In-memory fakes of every port, shipped so that users can test code built on engage.

`InMemoryStore` holds the rows of every account; `InMemoryUnitOfWorkFactory` opens units of work
over it with the same scoping and transaction semantics as the SQL adapter: changes are applied
to a private copy and become visible only on `commit()`. `FakeClock` is a clock tests can move;
`FakeStorePlatform` is a connected store that accepts status changes until told to `reject()`.

The product repository's `take_stock` and `restore_stock` are the reference semantics of the
conditional updates the SQL adapter runs; the store lock makes each transaction serialisable, so
concurrent creates behave as `OrderRepository.find_duplicate` requires of every adapter.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import itertools
import threading
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, Self

import attrs

from engage_core.accounts.model import Account, Admission
from engage_core.bookings.catalogue import BookingType, BookingTypeDraft, Resource, ResourceDraft
from engage_core.bookings.model import Booking, BookingDraft, BookingFilter
from engage_core.bookings.working_hours import Schedule, WorkingHours
from engage_core.commerce.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft, StoreRejected
from engage_core.commerce.products import STOCK_MAX, Product, ProductDraft, ProductFilter
from engage_core.contacts.lists import ContactList
from engage_core.contacts.model import Contact, ContactDraft, ContactFilter, Member, Note
from engage_core.contacts.segments import Segment, SegmentRules, is_member
from engage_core.contacts.tags import Tag, title_key
from engage_core.kernel.errors import PlanLimitReached, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.mail import MailMessage, MailUndelivered
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_core.messaging.channels import ChannelAccount, ChannelDraft
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.messages import Message, MessageDraft
from engage_core.partners.model import Client, ClientDraft, ClientFilter, Impersonation, Partner, PartnerDraft
from engage_core.partners.model import email_key as partner_email_key
from engage_core.plans.model import CONTACTS, SEED_PLANS, Plan, ScheduledPlan
from engage_core.plans.usage import UsageCounts, WorkspaceUsage
from engage_core.support.departments import Department
from engage_core.support.departments import title_key as department_title_key
from engage_core.support.tickets import ReplyDraft, Ticket, TicketDraft, TicketFilter, TicketReply
from engage_core.team.model import MemberDraft, TeamMember, email_key
from engage_core.webhooks.model import Attempt, Claim, Completion, NextStep, Outcome, Subscription, excerpt


class FakeClock:
    """A clock that stands still until told to move."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def advance(self, **delta: float) -> datetime:
        self._now += timedelta(**delta)
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment


@attrs.define
class _AccountRow:
    account: Account
    key_digest: str


@attrs.define
class _SegmentRow:
    segment: Segment
    included: set[int] = attrs.Factory(set)
    excluded: set[int] = attrs.Factory(set)


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


@attrs.define
class _State:
    accounts: dict[int, _AccountRow] = attrs.Factory(dict)
    contacts: dict[int, tuple[int, Contact]] = attrs.Factory(dict)  # id -> (account_id, contact without tags)
    tags: dict[int, tuple[int, Tag]] = attrs.Factory(dict)
    contact_tags: set[tuple[int, int]] = attrs.Factory(set)  # (contact_id, tag_id)
    lists: dict[int, tuple[int, ContactList]] = attrs.Factory(dict)
    list_members: dict[int, list[int]] = attrs.Factory(dict)  # list_id -> contact ids in order added
    segments: dict[int, tuple[int, _SegmentRow]] = attrs.Factory(dict)
    notes: dict[int, tuple[int, Note]] = attrs.Factory(dict)
    events: list[RecordedEvent] = attrs.Factory(list)
    webhooks: dict[int, tuple[int, Subscription]] = attrs.Factory(dict)
    webhook_secrets: dict[int, str] = attrs.Factory(dict)
    attempts: dict[int, _AttemptRow] = attrs.Factory(dict)
    knowledge_base: dict[int, tuple[int, KnowledgeBaseEntry]] = attrs.Factory(dict)
    products: dict[int, tuple[int, Product]] = attrs.Factory(dict)
    orders: dict[int, tuple[int, Order]] = attrs.Factory(dict)
    channels: dict[int, tuple[int, ChannelAccount]] = attrs.Factory(dict)
    messages: dict[int, tuple[int, Message]] = attrs.Factory(dict)
    handles: dict[tuple[int, str, str], int] = attrs.Factory(dict)  # (account_id, channel, handle) -> contact id
    departments: dict[int, tuple[int, Department]] = attrs.Factory(dict)
    tickets: dict[int, tuple[int, Ticket, int | None]] = attrs.Factory(dict)  # id -> (account, ticket, department id)
    ticket_replies: dict[int, tuple[int, int, TicketReply]] = attrs.Factory(dict)  # id -> (account, ticket id, reply)
    ticket_numbers: dict[int, int] = attrs.Factory(dict)  # account_id -> last ticket number
    team_members: dict[int, tuple[int, TeamMember]] = attrs.Factory(dict)
    member_passwords: dict[int, str] = attrs.Factory(dict)  # member id -> password hash
    bookings: dict[int, tuple[int, Booking]] = attrs.Factory(dict)
    booking_types: dict[int, tuple[int, BookingType]] = attrs.Factory(dict)
    resources: dict[int, tuple[int, Resource]] = attrs.Factory(dict)
    working_hours: dict[int, WorkingHours] = attrs.Factory(dict)  # account_id -> hours
    resource_hours: dict[int, tuple[int, Schedule]] = attrs.Factory(dict)  # resource id -> (account, own)
    plans: dict[str, Plan] = attrs.Factory(lambda: {plan.slug: plan for plan in SEED_PLANS})
    partners: dict[int, tuple[Partner, str]] = attrs.Factory(dict)  # id -> (partner, key digest)
    clients: dict[int, Client] = attrs.Factory(dict)  # account id -> client
    impersonations: dict[str, tuple[Impersonation, datetime, bool]] = attrs.Factory(dict)  # (grant, expiry, used)
    partner_webhooks: dict[int, tuple[int, Subscription, str]] = attrs.Factory(dict)  # id -> (partner, sub, secret)
    partner_events: list[tuple[int, DomainEvent]] = attrs.Factory(list)  # (partner id, event): the outbox
    partner_attempts: list[PartnerAttempt] = attrs.Factory(list)

    def copy(self) -> _State:
        """A private copy for one transaction. Tables whose rows are frozen entities (or other
        immutable values) are copied and their rows shared, since a row can only be replaced, never
        changed; every other table is copied deeply. Much cheaper than a deep copy of everything."""
        values = {
            field.name: (copy.copy if field.name in _SHARED_ROW_TABLES else copy.deepcopy)(getattr(self, field.name))
            for field in attrs.fields(_State)
        }
        return _State(**values)


_SHARED_ROW_TABLES = frozenset(
    {
        "contacts",
        "tags",
        "contact_tags",
        "lists",
        "notes",
        "events",
        "webhooks",
        "webhook_secrets",
        "knowledge_base",
        "products",
        "orders",
        "channels",
        "messages",
        "handles",
        "departments",
        "tickets",
        "ticket_replies",
        "ticket_numbers",
        "team_members",
        "member_passwords",
        "bookings",
        "booking_types",
        "resources",
        "working_hours",
        "resource_hours",
        "plans",
        "partners",
        "clients",
        "impersonations",
        "partner_webhooks",
        "partner_events",
        "partner_attempts",
    }
)
"""`_State` tables whose rows are immutable once stored (replaced, never changed in place)."""


class InMemoryStore:
    """The shared state behind every fake unit of work. One lock serialises transactions."""

    def __init__(self) -> None:
        self.state = _State()
        self.lock = threading.RLock()
        self._ids = itertools.count(1)

    def next_id(self) -> int:
        return next(self._ids)

    def events(self, account_id: int | None = None) -> list[DomainEvent]:
        """Events committed to the outbox, oldest first."""
        return [r.event for r in self.state.events if account_id is None or r.account_id == account_id]


# -- repositories ----------------------------------------------------------------------------------


class _Repo:
    def __init__(self, store: InMemoryStore, state: _State, account_id: int) -> None:
        self._store = store
        self._s = state
        self._account = account_id


class InMemoryAccountRepository:
    def __init__(self, store: InMemoryStore, state: _State) -> None:
        self._store = store
        self._s = state

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account:
        account = Account(self._store.next_id(), name, True, (), key_hint, now, now)
        self._s.accounts[account.id] = _AccountRow(account, key_digest)
        return account

    def get(self, account_id: int) -> Account | None:
        row = self._s.accounts.get(account_id)
        return None if row is None else row.account

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        for row in self._s.accounts.values():
            if row.key_digest == key_digest:
                return row.account, row.key_digest
        return None

    def admission(self, key_digest: str, now: datetime, default_plan: str) -> tuple[Admission, str] | None:
        found = self.by_key_digest(key_digest)
        if found is None:
            return None
        account, digest = found
        client = self._s.clients.get(account.id)
        slug = default_plan if client is None else client.plan_at(now)
        suspended = client is not None and client.is_suspended
        pending_from = None if client is None else client.schedule.pending_from
        changes_at = pending_from if pending_from is not None and now < pending_from else None
        return Admission(account, suspended, self._s.plans.get(slug), changes_at), digest

    def list(self) -> Sequence[Account]:
        return sorted((r.account for r in self._s.accounts.values()), key=lambda a: a.id)

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        row = self._s.accounts[account_id]
        row.key_digest = key_digest
        row.account = attrs.evolve(row.account, key_hint=key_hint, updated_at=now)

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None:
        row = self._s.accounts[account_id]
        row.account = attrs.evolve(row.account, is_active=is_active, updated_at=now)

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None:
        row = self._s.accounts[account_id]
        row.account = attrs.evolve(row.account, allowed_origins=origins, updated_at=now)

    def rename(self, account_id: int, name: str, now: datetime) -> None:
        row = self._s.accounts[account_id]
        row.account = attrs.evolve(row.account, name=name, updated_at=now)

    def set_locale(self, account_id: int, locale: str, now: datetime) -> None:
        row = self._s.accounts[account_id]
        row.account = attrs.evolve(row.account, locale=locale, updated_at=now)


class InMemoryContactRepository(_Repo):
    def _with_tags(self, contact: Contact) -> Contact:
        titles = sorted(
            (self._s.tags[tag_id][1].title for (cid, tag_id) in self._s.contact_tags if cid == contact.id),
            key=str.casefold,
        )
        return attrs.evolve(contact, tags=tuple(titles))

    def _mine(self) -> list[Contact]:
        return [self._with_tags(c) for (acc, c) in self._s.contacts.values() if acc == self._account]

    def add(self, draft: ContactDraft, now: datetime, *, at_most: int | None = None) -> Contact:
        if at_most is not None and sum(acc == self._account for acc, _ in self._s.contacts.values()) >= at_most:
            raise PlanLimitReached(CONTACTS, at_most)
        if draft.phone is not None and self.by_phone(draft.type, draft.phone) is not None:
            raise ValidationFailed.on("phone", f"A {draft.type} contact with this phone already exists.")
        contact = Contact(
            id=self._store.next_id(),
            name=draft.name,
            email=draft.email,
            phone=draft.phone,
            type=draft.type,
            status=draft.status,
            blacklisted=False,
            tags=(),
            last_message_at=None,
            created_at=now,
            updated_at=now,
            source=draft.source,
            company=draft.company,
            address=draft.address,
            country_id=draft.country_id,
        )
        self._s.contacts[contact.id] = (self._account, contact)
        return contact

    def get(self, contact_id: int) -> Contact | None:
        row = self._s.contacts.get(contact_id)
        if row is None or row[0] != self._account:
            return None
        return self._with_tags(row[1])

    def by_phone(self, type: str, phone: str) -> Contact | None:
        for contact in self._mine():
            if contact.type == type and contact.phone == phone:
                return contact
        return None

    def find(self, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        def keep(c: Contact) -> bool:
            if filters.type is not None and c.type != filters.type:
                return False
            if filters.blacklisted is not None and c.blacklisted != filters.blacklisted:
                return False
            if filters.tag is not None and title_key(filters.tag) not in {title_key(t) for t in c.tags}:
                return False
            if filters.search:
                needle = filters.search.casefold()
                return any(needle in (v or "").casefold() for v in (c.name, c.email, c.phone))
            return True

        found = sorted(filter(keep, self._mine()), key=lambda c: (c.created_at, c.id), reverse=True)
        return paginate(found, page)

    def update(self, contact: Contact) -> None:
        if self.get(contact.id) is None:
            return
        if contact.phone is not None:
            other = self.by_phone(contact.type, contact.phone)
            if other is not None and other.id != contact.id:
                raise ValidationFailed.on("phone", f"A {contact.type} contact with this phone already exists.")
        self._s.contacts[contact.id] = (self._account, attrs.evolve(contact, tags=()))

    def delete(self, contact_id: int) -> None:
        if self.get(contact_id) is None:
            return
        del self._s.contacts[contact_id]
        self._s.contact_tags = {(c, t) for (c, t) in self._s.contact_tags if c != contact_id}
        for members in self._s.list_members.values():
            if contact_id in members:
                members.remove(contact_id)
        for _, row in self._s.segments.values():
            row.included.discard(contact_id)
            row.excluded.discard(contact_id)
        self._s.notes = {k: v for k, v in self._s.notes.items() if v[1].contact_id != contact_id}
        self._s.messages = {k: v for k, v in self._s.messages.items() if v[1].contact_id != contact_id}
        self._s.handles = {k: v for k, v in self._s.handles.items() if v != contact_id}

    def count(self) -> int:
        return len(self._mine())


class InMemoryTagRepository(_Repo):
    def _count(self, tag_id: int) -> int:
        return sum(1 for (_, t) in self._s.contact_tags if t == tag_id)

    def _fresh(self, tag: Tag) -> Tag:
        return attrs.evolve(tag, contacts_count=self._count(tag.id))

    def add(self, title: str, now: datetime) -> Tag:
        tag = Tag(self._store.next_id(), title, 0, now, now)
        self._s.tags[tag.id] = (self._account, tag)
        return tag

    def get(self, tag_id: int) -> Tag | None:
        row = self._s.tags.get(tag_id)
        return None if row is None or row[0] != self._account else self._fresh(row[1])

    def by_title(self, title: str) -> Tag | None:
        key = title_key(title)
        for acc, tag in self._s.tags.values():
            if acc == self._account and title_key(tag.title) == key:
                return self._fresh(tag)
        return None

    def list(self) -> Sequence[Tag]:
        return sorted((self._fresh(t) for (a, t) in self._s.tags.values() if a == self._account), key=lambda t: t.id)

    def rename(self, tag_id: int, title: str, now: datetime) -> None:
        tag = self.get(tag_id)
        if tag is not None:
            self._s.tags[tag_id] = (self._account, attrs.evolve(tag, title=title, updated_at=now))

    def delete(self, tag_id: int) -> None:
        if self.get(tag_id) is not None:
            del self._s.tags[tag_id]
            self._s.contact_tags = {(c, t) for (c, t) in self._s.contact_tags if t != tag_id}

    def attach(self, contact_id: int, tag_id: int) -> bool:
        if (contact_id, tag_id) in self._s.contact_tags:
            return False
        self._s.contact_tags.add((contact_id, tag_id))
        return True

    def detach(self, contact_id: int, tag_id: int) -> bool:
        if (contact_id, tag_id) not in self._s.contact_tags:
            return False
        self._s.contact_tags.discard((contact_id, tag_id))
        return True


class InMemoryContactListRepository(_Repo):
    def _fresh(self, item: ContactList) -> ContactList:
        return attrs.evolve(item, contacts_count=len(self._s.list_members.get(item.id, [])))

    def add(self, name: str, now: datetime) -> ContactList:
        item = ContactList(self._store.next_id(), name, 1, 0, now, now)
        self._s.lists[item.id] = (self._account, item)
        self._s.list_members[item.id] = []
        return item

    def get(self, list_id: int) -> ContactList | None:
        row = self._s.lists.get(list_id)
        return None if row is None or row[0] != self._account else self._fresh(row[1])

    def list(self) -> Sequence[ContactList]:
        return sorted((self._fresh(i) for (a, i) in self._s.lists.values() if a == self._account), key=lambda i: i.id)

    def update(self, list_id: int, name: str, status: int, now: datetime) -> None:
        item = self.get(list_id)
        if item is not None:
            self._s.lists[list_id] = (self._account, attrs.evolve(item, name=name, status=status, updated_at=now))

    def delete(self, list_id: int) -> None:
        if self.get(list_id) is not None:
            del self._s.lists[list_id]
            del self._s.list_members[list_id]

    def add_member(self, list_id: int, contact_id: int, now: datetime) -> bool:
        members = self._s.list_members[list_id]
        if contact_id in members:
            return False
        members.append(contact_id)
        return True

    def remove_member(self, list_id: int, contact_id: int) -> bool:
        members = self._s.list_members[list_id]
        if contact_id not in members:
            return False
        members.remove(contact_id)
        return True

    def members(self, list_id: int, page: PageRequest) -> Page[Member]:
        contacts = [self._s.contacts[cid][1] for cid in self._s.list_members.get(list_id, [])]
        return paginate([Member(c.id, c.name, c.phone, c.type) for c in contacts], page)


class InMemorySegmentRepository(_Repo):
    def _contacts(self) -> InMemoryContactRepository:
        return InMemoryContactRepository(self._store, self._s, self._account)

    def _member_ids(self, row: _SegmentRow, now: datetime) -> list[int]:
        rules = SegmentRules(row.segment.match, row.segment.conditions)
        return sorted(
            c.id
            for c in self._contacts()._mine()
            if is_member(rules, c, now, included=c.id in row.included, excluded=c.id in row.excluded)
        )

    def _row(self, segment_id: int) -> _SegmentRow | None:
        found = self._s.segments.get(segment_id)
        return None if found is None or found[0] != self._account else found[1]

    def add(self, name: str, description: str | None, rules: SegmentRules, now: datetime) -> Segment:
        segment = Segment(self._store.next_id(), name, description, rules.match, rules.conditions, None, now, now)
        self._s.segments[segment.id] = (self._account, _SegmentRow(segment))
        return attrs.evolve(segment, contacts_count=self._member_ids(self._s.segments[segment.id][1], now).__len__())

    def get(self, segment_id: int, now: datetime) -> Segment | None:
        row = self._row(segment_id)
        if row is None:
            return None
        return attrs.evolve(row.segment, contacts_count=len(self._member_ids(row, now)))

    def list(self, now: datetime) -> Sequence[Segment]:
        ids = sorted(sid for sid, (acc, _) in self._s.segments.items() if acc == self._account)
        return [s for sid in ids if (s := self.get(sid, now)) is not None]

    def update(self, segment_id: int, name: str, description: str | None, rules: SegmentRules, now: datetime) -> None:
        row = self._row(segment_id)
        if row is not None:
            row.segment = attrs.evolve(
                row.segment,
                name=name,
                description=description,
                match=rules.match,
                conditions=rules.conditions,
                updated_at=now,
            )

    def delete(self, segment_id: int) -> None:
        if self._row(segment_id) is not None:
            del self._s.segments[segment_id]

    def include(self, segment_id: int, contact_id: int) -> None:
        row = self._row(segment_id)
        if row is not None:
            row.included.add(contact_id)
            row.excluded.discard(contact_id)

    def exclude(self, segment_id: int, contact_id: int) -> None:
        row = self._row(segment_id)
        if row is not None:
            row.included.discard(contact_id)
            row.excluded.add(contact_id)

    def members(self, segment_id: int, page: PageRequest, now: datetime) -> Page[Member]:
        row = self._row(segment_id)
        ids = [] if row is None else self._member_ids(row, now)
        contacts = [self._s.contacts[cid][1] for cid in ids]
        return paginate([Member(c.id, c.name, c.phone, c.type) for c in contacts], page)

    def is_member(self, segment_id: int, contact_id: int, now: datetime) -> bool:
        row = self._row(segment_id)
        return row is not None and contact_id in self._member_ids(row, now)


class InMemoryNoteRepository(_Repo):
    def add(self, contact_id: int, content: str, now: datetime) -> Note:
        note = Note(self._store.next_id(), contact_id, content, now, now)
        self._s.notes[note.id] = (self._account, note)
        return note

    def for_contact(self, contact_id: int) -> Sequence[Note]:
        notes = [n for (a, n) in self._s.notes.values() if a == self._account and n.contact_id == contact_id]
        return sorted(notes, key=lambda n: (n.created_at, n.id), reverse=True)


class InMemoryWebhookRepository(_Repo):
    def add(
        self, name: str, url: str, events: tuple[str, ...], is_active: bool, secret_ciphertext: str, now: datetime
    ) -> Subscription:
        subscription = Subscription(self._store.next_id(), name, url, events, is_active, now, now)
        self._s.webhooks[subscription.id] = (self._account, subscription)
        self._s.webhook_secrets[subscription.id] = secret_ciphertext
        return subscription

    def get(self, webhook_id: int) -> Subscription | None:
        row = self._s.webhooks.get(webhook_id)
        return None if row is None or row[0] != self._account else row[1]

    def list(self) -> Sequence[Subscription]:
        return sorted((s for (a, s) in self._s.webhooks.values() if a == self._account), key=lambda s: s.id)

    def active(self) -> Sequence[Subscription]:
        return [s for s in self.list() if s.is_active]

    def update(self, subscription: Subscription) -> None:
        if self.get(subscription.id) is not None:
            self._s.webhooks[subscription.id] = (self._account, subscription)

    def delete(self, webhook_id: int) -> None:
        if self.get(webhook_id) is not None:
            del self._s.webhooks[webhook_id]
            del self._s.webhook_secrets[webhook_id]
            self._s.attempts = {k: v for k, v in self._s.attempts.items() if v.attempt.webhook_id != webhook_id}

    def secret_ciphertext(self, webhook_id: int) -> str:
        return self._s.webhook_secrets[webhook_id]

    def set_secret(self, webhook_id: int, secret_ciphertext: str, now: datetime) -> None:
        if self.get(webhook_id) is not None:
            self._s.webhook_secrets[webhook_id] = secret_ciphertext

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
        attempt = Attempt(
            self._store.next_id(), webhook_id, delivery_id, event_type, attempt_number, "pending",
            None, None, None, due_at, now, None,
        )  # fmt: skip
        self._s.attempts[attempt.id] = _AttemptRow(self._account, attempt, dict(payload))
        return attempt

    def _log(self, webhook_id: int) -> Sequence[Attempt]:
        return [
            r.attempt
            for r in self._s.attempts.values()
            if r.account_id == self._account and r.attempt.webhook_id == webhook_id
        ]

    def attempts(self, webhook_id: int, status: str | None, page: PageRequest) -> Page[Attempt]:
        found = [a for a in self._log(webhook_id) if status is None or a.status == status]
        return paginate(sorted(found, key=lambda a: a.id, reverse=True), page)

    def delivery(self, webhook_id: int, delivery_id: str) -> Sequence[Attempt]:
        return sorted((a for a in self._log(webhook_id) if a.delivery_id == delivery_id), key=lambda a: a.id)

    def payload(self, attempt_id: int) -> Mapping[str, Any]:
        return self._s.attempts[attempt_id].payload


class InMemoryKnowledgeBaseRepository(_Repo):
    def add(self, draft: KnowledgeBaseDraft, now: datetime) -> KnowledgeBaseEntry:
        entry = KnowledgeBaseEntry(
            id=self._store.next_id(),
            title=draft.title,
            type=draft.type,
            description=draft.description,
            business_description=draft.business_description,
            status=draft.status,
            embedding_updated_at=None,
            created_at=now,
            updated_at=now,
        )
        self._s.knowledge_base[entry.id] = (self._account, entry)
        return entry

    def get(self, entry_id: int) -> KnowledgeBaseEntry | None:
        row = self._s.knowledge_base.get(entry_id)
        return None if row is None or row[0] != self._account else row[1]


class InMemoryProductRepository(_Repo):
    """Products; the stock methods are the conditional updates the SQL adapter runs."""

    def _mine(self) -> list[Product]:
        return sorted((p for (a, p) in self._s.products.values() if a == self._account), key=lambda p: p.id)

    def add_many(self, knowledge_base_id: int, drafts: Sequence[ProductDraft], now: datetime) -> Sequence[Product]:
        added = []
        for draft in drafts:
            product = Product(
                id=self._store.next_id(),
                knowledge_base_id=knowledge_base_id,
                name=draft.name,
                description=draft.description,
                sku=draft.sku,
                category=draft.category,
                price=draft.price,
                currency=draft.currency,
                stock_quantity=draft.stock_quantity,
                image_url=draft.image_url,
                is_available=draft.is_available,
                product_attributes=dict(draft.product_attributes),
                media_file_ids=(),
                created_at=now,
                updated_at=now,
            )
            self._s.products[product.id] = (self._account, product)
            added.append(product)
        return added

    def get(self, product_id: int) -> Product | None:
        row = self._s.products.get(product_id)
        return None if row is None or row[0] != self._account else row[1]

    def get_many(self, product_ids: Collection[int]) -> Mapping[int, Product]:
        return {pid: product for pid in product_ids if (product := self.get(pid)) is not None}

    def find(self, filters: ProductFilter, page: PageRequest) -> Page[Product]:
        def keep(p: Product) -> bool:
            if filters.category is not None and (p.category or "").casefold() != filters.category.casefold():
                return False
            if filters.search:
                needle = filters.search.casefold()
                return any(needle in (v or "").casefold() for v in (p.name, p.sku, p.category))
            return True

        return paginate([p for p in self._mine() if keep(p)], page)

    def for_catalog(self, knowledge_base_id: int) -> Sequence[Product]:
        return [p for p in self._mine() if p.knowledge_base_id == knowledge_base_id]

    def delete(self, product_id: int) -> None:
        if self.get(product_id) is not None:
            del self._s.products[product_id]

    def take_stock(self, product_id: int, quantity: int) -> bool:
        product = self.get(product_id)
        if product is None:
            return False
        if product.stock_quantity is None:
            return True
        if product.stock_quantity < quantity:
            return False
        self._s.products[product_id] = (
            self._account,
            attrs.evolve(product, stock_quantity=product.stock_quantity - quantity),
        )
        return True

    def restore_stock(self, product_id: int, quantity: int) -> bool:
        product = self.get(product_id)
        if product is None:
            return False
        if product.stock_quantity is None:
            return True
        if product.stock_quantity > STOCK_MAX - quantity:
            return False
        self._s.products[product_id] = (
            self._account,
            attrs.evolve(product, stock_quantity=product.stock_quantity + quantity),
        )
        return True


class InMemoryOrderRepository(_Repo):
    def _mine(self) -> list[Order]:
        return [o for (a, o) in self._s.orders.values() if a == self._account]

    def _items(self, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        return tuple(
            OrderItem(
                self._store.next_id(), i.product_id, i.product_name, i.product_sku, i.quantity, i.unit_price,
                i.total_price,
            )
            for i in items
        )  # fmt: skip

    def add(self, draft: OrderDraft, now: datetime) -> Order:
        if draft.external_reference is not None and self.by_external_reference(draft.external_reference):
            raise ValidationFailed.on("external_reference", "An order with this external reference already exists.")
        order = Order(
            id=self._store.next_id(),
            contact_id=draft.contact_id,
            customer_name=draft.customer_name,
            customer_phone=draft.customer_phone,
            customer_email=draft.customer_email,
            status=draft.status,
            subtotal=draft.subtotal,
            total=draft.total,
            currency=draft.currency,
            shipping_address=draft.shipping_address,
            notes=draft.notes,
            created_by=draft.created_by,
            items=self._items(draft.items),
            cancelled_at=draft.cancelled_at,
            cancellation_reason=draft.cancellation_reason,
            created_at=now,
            updated_at=now,
            external_reference=draft.external_reference,
            duplicate_key=draft.duplicate_key,
        )
        self._s.orders[order.id] = (self._account, order)
        return order

    def get(self, order_id: int) -> Order | None:
        row = self._s.orders.get(order_id)
        return None if row is None or row[0] != self._account else row[1]

    def find(self, filters: OrderFilter, page: PageRequest) -> Page[Order]:
        found = sorted(
            (o for o in self._mine() if filters.matches(o)), key=lambda o: (o.created_at, o.id), reverse=True
        )
        return paginate(found, page)

    def find_duplicate(self, key: str, since: datetime) -> Order | None:
        found = [o for o in self._mine() if o.duplicate_key == key and o.created_at > since and o.status != "cancelled"]
        return max(found, key=lambda o: (o.created_at, o.id), default=None)

    def by_external_reference(self, reference: str) -> Order | None:
        return next((o for o in self._mine() if o.external_reference == reference), None)

    def update(self, order: Order) -> None:
        current = self.get(order.id)
        if current is not None:
            self._s.orders[order.id] = (self._account, attrs.evolve(order, items=current.items))

    def replace_items(self, order_id: int, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        current = self.get(order_id)
        if current is None:
            return ()
        stored = self._items(items)
        self._s.orders[order_id] = (self._account, attrs.evolve(current, items=stored))
        return stored


class InMemoryDeliveryQueue:
    """The delivery log as a queue, over the same store (commits directly; the store lock makes
    each call atomic)."""

    def __init__(self, store: InMemoryStore) -> None:
        self._store = store

    def claim(self, now: datetime, lease_seconds: float, limit: int) -> Sequence[Claim]:
        with self._store.lock:
            s = self._store.state
            due = sorted(
                (
                    r
                    for r in s.attempts.values()
                    if r.attempt.status == "pending"
                    and r.attempt.due_at <= now
                    and (r.leased_until is None or r.leased_until <= now)
                    and s.webhooks[r.attempt.webhook_id][1].is_active
                ),
                key=lambda r: (r.attempt.due_at, r.attempt.id),
            )[:limit]
            claims = []
            for row in due:
                row.leased_until = now + timedelta(seconds=lease_seconds)
                row.lease_token = uuid.uuid4().hex
                subscription = s.webhooks[row.attempt.webhook_id][1]
                claims.append(
                    Claim(
                        attempt_id=row.attempt.id,
                        lease_token=row.lease_token,
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
                )
            return claims

    def complete_and_claim(
        self,
        completions: Sequence[Completion],
        now: datetime,
        lease_seconds: float,
        limit: int,
        *,
        release: Sequence[Claim] = (),
    ) -> tuple[Sequence[bool], Sequence[Claim]]:
        with self._store.lock:  # reentrant: one atomic step, like a transaction
            recorded = [self.complete(c.claim, c.outcome, c.step, now) for c in completions]
            for claim in release:
                row = self._store.state.attempts.get(claim.attempt_id)
                if row is not None and row.lease_token == claim.lease_token and row.attempt.status == "pending":
                    row.lease_token = None
                    row.leased_until = None
            return recorded, self.claim(now, lease_seconds, limit)

    def complete(self, claim: Claim, outcome: Outcome, step: NextStep, now: datetime) -> bool:
        with self._store.lock:
            s = self._store.state
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

    def close(self) -> None:
        pass


class FakeCipher:
    """A reversible stand-in for encryption at rest: visibly not the plaintext, trivially undone."""

    def encrypt(self, plaintext: str) -> str:
        return "fake:" + plaintext[::-1]

    def decrypt(self, ciphertext: str) -> str:
        if not ciphertext.startswith("fake:"):
            raise ValueError("not a fake ciphertext")
        return ciphertext[5:][::-1]


class AllowAllTargets:
    """A target guard that refuses nothing (the in-memory world has no network)."""

    def refusal(self, url: str) -> str | None:
        return None


@attrs.define
class SentRequest:
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
        request = SentRequest(url, dict(headers), body)
        with self._lock:
            self.sent.append(request)
        return self._respond(request)


@attrs.frozen
class StorePush:
    """A status change a store platform accepted."""

    order_id: int
    external_reference: str | None
    slug: str


class FakeStorePlatform:
    """A store that accepts every status change (recorded in `pushes`) until told to `reject()`."""

    def __init__(self) -> None:
        self.pushes: list[StorePush] = []
        self.rejecting: str | None = None

    def reject(self, message: str = "The store refused the status change.") -> None:
        """Refuse every push from now on, with `message`."""
        self.rejecting = message

    def accept(self) -> None:
        self.rejecting = None

    def push_status(self, account_id: int, order: Order, slug: str) -> None:
        if self.rejecting is not None:
            raise StoreRejected(self.rejecting)
        self.pushes.append(StorePush(order.id, order.external_reference, slug))


# -- units of work ---------------------------------------------------------------------------------


class _InMemoryUnitOfWork:
    """Works on a deep copy of the state; `commit()` swaps it in. Holds the store lock throughout,
    which makes every transaction serialisable (like SQLite's single writer)."""

    def __init__(self, store: InMemoryStore) -> None:
        self._store = store
        self._committed = False

    def _begin(self) -> _State:
        self._store.lock.acquire()
        self._committed = False
        return self._store.state.copy()

    def _finish(self, state: _State) -> None:
        self._store.state = state
        self._committed = True

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._store.lock.release()


class InMemoryWorkspaceUnitOfWork(_InMemoryUnitOfWork):
    def __init__(self, store: InMemoryStore, account_id: int) -> None:
        super().__init__(store)
        self.account_id = account_id
        self._pending: list[DomainEvent] = []

    def __enter__(self) -> Self:
        self._state = self._begin()
        self._pending = []
        args: tuple[Any, ...] = (self._store, self._state, self.account_id)
        self.contacts = InMemoryContactRepository(*args)
        self.tags = InMemoryTagRepository(*args)
        self.lists = InMemoryContactListRepository(*args)
        self.segments = InMemorySegmentRepository(*args)
        self.notes = InMemoryNoteRepository(*args)
        self.webhooks = InMemoryWebhookRepository(*args)
        self.knowledge_base = InMemoryKnowledgeBaseRepository(*args)
        self.products = InMemoryProductRepository(*args)
        self.orders = InMemoryOrderRepository(*args)
        self.channels = InMemoryChannelAccountRepository(*args)
        self.messages = InMemoryMessageRepository(*args)
        self.handles = InMemoryContactHandleRepository(*args)
        self.departments = InMemoryDepartmentRepository(*args)
        self.tickets = InMemoryTicketRepository(*args)
        self.team = InMemoryTeamMemberRepository(*args)
        self.bookings = InMemoryBookingRepository(*args)
        self.booking_types = InMemoryBookingTypeRepository(*args)
        self.resources = InMemoryResourceRepository(*args)
        self.working_hours = InMemoryWorkingHoursRepository(*args)
        self.usage = InMemoryUsageRepository(*args)
        return self

    def emit(self, event: DomainEvent) -> None:
        self._pending.append(event)

    def commit(self) -> None:
        self._state.events.extend(RecordedEvent(self.account_id, e) for e in self._pending)
        for event in self._pending:  # the transactional outbox: deliveries commit with the change
            for subscription in self.webhooks.active():
                if subscription.wants(event.name):
                    self.webhooks.enqueue(
                        subscription.id,
                        event.name,
                        event.payload,
                        str(uuid.uuid4()),
                        1,
                        event.occurred_at,
                        event.occurred_at,
                    )
        self._pending = []
        self._finish(self._state)
        self._state = self._state.copy()


class InMemoryAdminUnitOfWork(_InMemoryUnitOfWork):
    def __enter__(self) -> Self:
        self._state = self._begin()
        self.accounts = InMemoryAccountRepository(self._store, self._state)
        self.channel_directory = InMemoryChannelDirectory(self._state)
        return self

    def commit(self) -> None:
        self._finish(self._state)
        self._state = self._state.copy()


class InMemoryUnitOfWorkFactory:
    def __init__(self, store: InMemoryStore | None = None) -> None:
        self.store = store or InMemoryStore()

    def workspace(self, account_id: int, *, readonly: bool = False) -> InMemoryWorkspaceUnitOfWork:
        return InMemoryWorkspaceUnitOfWork(self.store, account_id)

    def admin(self, *, readonly: bool = False) -> InMemoryAdminUnitOfWork:
        return InMemoryAdminUnitOfWork(self.store)

    def partners(self, *, readonly: bool = False) -> InMemoryPartnerUnitOfWork:
        return InMemoryPartnerUnitOfWork(self.store)

    def transaction_memo(self) -> None:
        """Units of work here never share a transaction: nothing to memoise."""
        return None


# -- channels and messaging ------------------------------------------------------------------------


class InMemoryChannelAccountRepository(_Repo):
    def _mine(self) -> list[ChannelAccount]:
        return sorted((c for (a, c) in self._s.channels.values() if a == self._account), key=lambda c: c.id)

    def add(self, draft: ChannelDraft, now: datetime) -> ChannelAccount:
        if self.by_type(draft.type) is not None:
            raise ValueError(f"the account already has a {draft.type} channel")
        if draft.provider_account_id is not None and any(
            c.provider_account_id == draft.provider_account_id for (_, c) in self._s.channels.values()
        ):
            raise ValueError("the provider account already has a channel setting")
        account = ChannelAccount(
            id=self._store.next_id(),
            type=draft.type,
            provider_account_id=draft.provider_account_id,
            username=draft.username,
            sync_status="CONNECTING",
            is_connected=False,
            last_synced_at=None,
            created_at=now,
            updated_at=now,
            checkpoint_type=draft.checkpoint_type,
        )
        self._s.channels[account.id] = (self._account, account)
        return account

    def by_type(self, type: str) -> ChannelAccount | None:
        return next((c for c in self._mine() if c.type == type), None)

    def by_provider_account(self, provider_account_id: str) -> ChannelAccount | None:
        return next((c for c in self._mine() if c.provider_account_id == provider_account_id), None)

    def list(self) -> Sequence[ChannelAccount]:
        return self._mine()

    def update(self, account: ChannelAccount) -> None:
        row = self._s.channels.get(account.id)
        if row is not None and row[0] == self._account:
            stored = row[1]
            self._s.channels[account.id] = (
                self._account,
                attrs.evolve(account, type=stored.type, created_at=stored.created_at),
            )

    def delete(self, channel_id: int) -> None:
        row = self._s.channels.get(channel_id)
        if row is not None and row[0] == self._account:
            del self._s.channels[channel_id]


class InMemoryContactHandleRepository(_Repo):
    def contact_for(self, channel: str, handle: str) -> int | None:
        return self._s.handles.get((self._account, channel, handle))

    def handle_of(self, contact_id: int, channel: str) -> str | None:
        return next(
            (
                h
                for (a, c, h), cid in self._s.handles.items()
                if a == self._account and c == channel and cid == contact_id
            ),
            None,
        )

    def link(self, contact_id: int, channel: str, handle: str) -> None:
        owner = self.contact_for(channel, handle)
        if owner is not None and owner != contact_id:
            raise ValueError(f"the {channel} handle {handle} belongs to another contact")
        previous = self.handle_of(contact_id, channel)
        if previous is not None:
            del self._s.handles[(self._account, channel, previous)]
        self._s.handles[(self._account, channel, handle)] = contact_id


def _newest_first(message: Message) -> tuple[datetime, int]:
    return (message.created_at, message.id)


class InMemoryMessageRepository(_Repo):
    """The reference semantics of `MessageRepository`: plain scans, fine for tests."""

    def _mine(self) -> list[Message]:
        return [m for (a, m) in self._s.messages.values() if a == self._account]

    def add(self, draft: MessageDraft, now: datetime) -> Message:
        if draft.provider_message_id is not None and self.by_provider_id(draft.channel, draft.provider_message_id):
            raise ValueError("a message with this provider message id is already stored")
        message = Message(
            id=self._store.next_id(),
            contact_id=draft.contact_id,
            direction=draft.direction,
            channel=draft.channel,
            content=draft.content,
            status=draft.status,
            sent_at=draft.sent_at,
            created_at=now,
            updated_at=now,
            error=draft.error,
            provider_message_id=draft.provider_message_id,
        )
        self._s.messages[message.id] = (self._account, message)
        return message

    def get(self, message_id: int) -> Message | None:
        row = self._s.messages.get(message_id)
        return None if row is None or row[0] != self._account else row[1]

    def by_provider_id(self, channel: str, provider_message_id: str) -> Message | None:
        return next(
            (m for m in self._mine() if m.channel == channel and m.provider_message_id == provider_message_id), None
        )

    def update(self, message: Message) -> None:
        current = self.get(message.id)
        if current is not None:
            self._s.messages[message.id] = (
                self._account,
                attrs.evolve(
                    current,
                    status=message.status,
                    sent_at=message.sent_at,
                    error=message.error,
                    provider_message_id=message.provider_message_id,
                    updated_at=message.updated_at,
                ),
            )

    def for_contact(self, contact_id: int, direction: str | None, page: PageRequest) -> Page[Message]:
        found = [
            m for m in self._mine() if m.contact_id == contact_id and (direction is None or m.direction == direction)
        ]
        return paginate(sorted(found, key=_newest_first, reverse=True), page)

    def conversations(self, filters: ConversationFilter, page: PageRequest) -> Page[ConversationSummary]:
        by_contact: dict[int, list[Message]] = {}
        for m in self._mine():
            if filters.channel is not None and m.channel != filters.channel:
                continue
            if filters.contact_id is not None and m.contact_id != filters.contact_id:
                continue
            by_contact.setdefault(m.contact_id, []).append(m)
        summaries: list[tuple[tuple[datetime, int], ConversationSummary]] = []
        for contact_id, messages in by_contact.items():
            last = max(messages, key=_newest_first)
            summary = ConversationSummary(
                contact_id=contact_id,
                contact_name=self._s.contacts[contact_id][1].name,
                channel=last.channel,
                last_message=last.content,
                last_message_at=last.created_at,
                unread_count=sum(1 for m in messages if m.is_unread),
            )
            summaries.append((_newest_first(last), summary))
        summaries.sort(key=lambda pair: pair[0], reverse=True)
        return paginate([summary for _, summary in summaries], page)

    def mark_read(self, contact_id: int, now: datetime) -> int:
        unread = [m for m in self._mine() if m.contact_id == contact_id and m.is_unread]
        for m in unread:
            self._s.messages[m.id] = (self._account, attrs.evolve(m, status="read", updated_at=now))
        return len(unread)


class InMemoryChannelDirectory:
    """Finds the account owning a provider account, across accounts."""

    def __init__(self, state: _State) -> None:
        self._s = state

    def owner_of(self, provider_account_id: str) -> int | None:
        return next((a for (a, c) in self._s.channels.values() if c.provider_account_id == provider_account_id), None)


# -- support tickets and team members --------------------------------------------------------------


class InMemoryDepartmentRepository(_Repo):
    def _mine(self) -> list[Department]:
        return sorted((d for (a, d) in self._s.departments.values() if a == self._account), key=lambda d: d.id)

    def _taken(self, title: str, other_than: int | None = None) -> None:
        found = self.by_title(title)
        if found is not None and found.id != other_than:
            raise ValidationFailed.on("title", "A department with this title already exists.")

    def ensure_default(self, title: str, now: datetime) -> Department:
        mine = self._mine()
        return mine[0] if mine else self.add(title, now)

    def add(self, title: str, now: datetime) -> Department:
        self._taken(title)
        department = Department(self._store.next_id(), title, now, now)
        self._s.departments[department.id] = (self._account, department)
        return department

    def get(self, department_id: int) -> Department | None:
        row = self._s.departments.get(department_id)
        return None if row is None or row[0] != self._account else row[1]

    def by_title(self, title: str) -> Department | None:
        key = department_title_key(title)
        return next((d for d in self._mine() if department_title_key(d.title) == key), None)

    def list(self) -> Sequence[Department]:
        return self._mine()

    def rename(self, department_id: int, title: str, now: datetime) -> None:
        department = self.get(department_id)
        if department is not None:
            self._taken(title, other_than=department_id)
            self._s.departments[department_id] = (self._account, attrs.evolve(department, title=title, updated_at=now))

    def delete(self, department_id: int) -> None:
        if self.get(department_id) is None:
            return
        del self._s.departments[department_id]
        for ticket_id, (account, ticket, filed_under) in list(self._s.tickets.items()):
            if filed_under == department_id:
                self._s.tickets[ticket_id] = (account, ticket, None)


class InMemoryTicketRepository(_Repo):
    """Ticket rows keep the department's id; reads join the department as it is now."""

    def _joined(self, ticket: Ticket, department_id: int | None) -> Ticket:
        department = None if department_id is None else self._s.departments[department_id][1]
        return attrs.evolve(ticket, department=department)

    def _mine(self) -> list[Ticket]:
        return [self._joined(t, d) for (a, t, d) in self._s.tickets.values() if a == self._account]

    def _store_row(self, ticket: Ticket) -> None:
        self._s.tickets[ticket.id] = (self._account, attrs.evolve(ticket, department=None), ticket.department_id)

    def next_number(self) -> int:
        number = self._s.ticket_numbers.get(self._account, 0) + 1
        self._s.ticket_numbers[self._account] = number
        return number

    def add(self, draft: TicketDraft, now: datetime) -> Ticket:
        if any(t.ticket_id == draft.ticket_id for t in self._mine()):
            raise ValueError(f"the reference {draft.ticket_id} is already taken in this account")
        ticket = Ticket(
            id=self._store.next_id(),
            ticket_id=draft.ticket_id,
            subject=draft.subject,
            body=draft.body,
            priority=draft.priority,
            status=draft.status,
            department=None,
            assignee_id=draft.assignee_id,
            last_reply_at=None,
            closed_at=None,
            created_at=now,
            updated_at=now,
        )
        self._s.tickets[ticket.id] = (self._account, ticket, draft.department_id)
        return self._joined(ticket, draft.department_id)

    def get(self, ticket_id: int) -> Ticket | None:
        row = self._s.tickets.get(ticket_id)
        return None if row is None or row[0] != self._account else self._joined(row[1], row[2])

    def by_reference(self, reference: str) -> Ticket | None:
        return next((t for t in self._mine() if t.ticket_id == reference), None)

    def find(self, filters: TicketFilter, page: PageRequest) -> Page[Ticket]:
        found = sorted(
            (t for t in self._mine() if filters.matches(t)), key=lambda t: (t.created_at, t.id), reverse=True
        )
        return paginate(found, page)

    def update(self, ticket: Ticket) -> None:
        current = self.get(ticket.id)
        if current is not None:
            self._store_row(
                attrs.evolve(
                    current,
                    status=ticket.status,
                    priority=ticket.priority,
                    department=ticket.department,
                    assignee_id=ticket.assignee_id,
                    last_reply_at=ticket.last_reply_at,
                    closed_at=ticket.closed_at,
                    updated_at=ticket.updated_at,
                )
            )

    def add_reply(self, ticket_id: int, draft: ReplyDraft, now: datetime) -> TicketReply:
        reply = TicketReply(self._store.next_id(), draft.reply, draft.type, draft.author_id, now)
        self._s.ticket_replies[reply.id] = (self._account, ticket_id, reply)
        return reply

    def replies(self, ticket_id: int) -> Sequence[TicketReply]:
        found = [r for (a, t, r) in self._s.ticket_replies.values() if a == self._account and t == ticket_id]
        return sorted(found, key=lambda r: (r.created_at, r.id))

    def unassign_member(self, member_id: int, now: datetime) -> Sequence[Ticket]:
        assigned = sorted((t for t in self._mine() if t.assignee_id == member_id), key=lambda t: t.id)
        unassigned = [attrs.evolve(t, assignee_id=None, updated_at=now) for t in assigned]
        for ticket in unassigned:
            self._store_row(ticket)
        return unassigned


class InMemoryTeamMemberRepository(_Repo):
    def _mine(self) -> list[TeamMember]:
        return sorted((m for (a, m) in self._s.team_members.values() if a == self._account), key=lambda m: m.id)

    def _taken(self, email: str, other_than: int | None = None) -> None:
        found = self.by_email(email)
        if found is not None and found.id != other_than:
            raise ValidationFailed.on("email", "The email has already been taken.")

    def add(self, draft: MemberDraft, password_hash: str, now: datetime) -> TeamMember:
        self._taken(draft.email)
        member = TeamMember(self._store.next_id(), draft.name, draft.email, draft.role, draft.status, now, now)
        self._s.team_members[member.id] = (self._account, member)
        self._s.member_passwords[member.id] = password_hash
        return member

    def get(self, member_id: int) -> TeamMember | None:
        row = self._s.team_members.get(member_id)
        return None if row is None or row[0] != self._account else row[1]

    def by_email(self, email: str) -> TeamMember | None:
        key = email_key(email)
        return next((m for m in self._mine() if email_key(m.email) == key), None)

    def find(self, role: str | None, page: PageRequest) -> Page[TeamMember]:
        return paginate([m for m in self._mine() if role is None or m.role == role], page)

    def update(self, member: TeamMember) -> None:
        current = self.get(member.id)
        if current is not None:
            self._taken(member.email, other_than=member.id)
            self._s.team_members[member.id] = (
                self._account,
                attrs.evolve(
                    current,
                    name=member.name,
                    email=member.email,
                    role=member.role,
                    status=member.status,
                    updated_at=member.updated_at,
                ),
            )

    def password_hash(self, member_id: int) -> str | None:
        return self._s.member_passwords.get(member_id) if self.get(member_id) is not None else None

    def set_password_hash(self, member_id: int, password_hash: str, now: datetime) -> None:
        member = self.get(member_id)
        if member is not None:
            self._s.member_passwords[member_id] = password_hash
            self._s.team_members[member_id] = (self._account, attrs.evolve(member, updated_at=now))

    def delete(self, member_id: int) -> None:
        if self.get(member_id) is not None:
            del self._s.team_members[member_id]
            del self._s.member_passwords[member_id]


class FakePasswordHasher:
    """A fast stand-in for argon2id: a salted SHA-256, visibly not the password, in the same
    self-describing shape (`fake$<salt>$<digest>`), so hashing twice gives two hashes."""

    def hash(self, password: str) -> str:
        salt = uuid.uuid4().hex[:16]
        return f"fake${salt}${hashlib.sha256((salt + password).encode()).hexdigest()}"

    def verify(self, password_hash: str, password: str) -> bool:
        parts = password_hash.split("$")
        if len(parts) != 3 or parts[0] != "fake":
            return False
        expected = hashlib.sha256((parts[1] + password).encode()).hexdigest()
        return hmac.compare_digest(parts[2], expected)


class FakeMailer:
    """Records every message in `sent` until told to `fail()`; then raises `MailUndelivered`."""

    def __init__(self) -> None:
        self.sent: list[MailMessage] = []
        self.failing: str | None = None

    def fail(self, reason: str = "The mail server could not be reached.") -> None:
        self.failing = reason

    def recover(self) -> None:
        self.failing = None

    def send(self, message: MailMessage) -> None:
        if self.failing is not None:
            raise MailUndelivered(self.failing)
        self.sent.append(message)


# -- bookings --------------------------------------------------------------------------------------


class InMemoryBookingRepository(_Repo):
    """The reference semantics of `BookingRepository`. The store lock already serialises every
    transaction, so `lock_resource` only records the lock; `overlapping` refuses to run on a
    calendar not locked in this transaction, holding the services to the order every adapter's
    double-booking guarantee relies on."""

    def __init__(self, store: InMemoryStore, state: _State, account_id: int) -> None:
        super().__init__(store, state, account_id)
        self.locked: list[int | None] = []
        """Calendars locked in this transaction, in the order they were locked."""

    def _mine(self) -> list[Booking]:
        found = [b for (a, b) in self._s.bookings.values() if a == self._account]
        return sorted(found, key=lambda b: (b.starts_at, b.id))

    def lock_resource(self, resource_id: int | None) -> None:
        if resource_id not in self.locked:
            self.locked.append(resource_id)

    def add(self, draft: BookingDraft, now: datetime) -> Booking:
        booking = Booking(
            id=self._store.next_id(),
            contact_id=draft.contact_id,
            booking_type_id=draft.booking_type_id,
            resource_id=draft.resource_id,
            title=draft.title,
            starts_at=draft.starts_at,
            ends_at=draft.ends_at,
            status=draft.status,
            notes=draft.notes,
            created_at=now,
            updated_at=now,
        )
        self._s.bookings[booking.id] = (self._account, booking)
        return booking

    def get(self, booking_id: int) -> Booking | None:
        row = self._s.bookings.get(booking_id)
        return None if row is None or row[0] != self._account else row[1]

    def find(self, filters: BookingFilter, page: PageRequest) -> Page[Booking]:
        return paginate([b for b in self._mine() if filters.matches(b)], page)

    def update(self, booking: Booking) -> None:
        current = self.get(booking.id)
        if current is not None:
            self._s.bookings[booking.id] = (
                self._account,
                attrs.evolve(
                    current,
                    status=booking.status,
                    starts_at=booking.starts_at,
                    ends_at=booking.ends_at,
                    resource_id=booking.resource_id,
                    notes=booking.notes,
                    cancelled_at=booking.cancelled_at,
                    cancellation_reason=booking.cancellation_reason,
                    updated_at=booking.updated_at,
                ),
            )

    def overlapping(
        self, resource_id: int | None, starts_at: datetime, ends_at: datetime, exclude_id: int | None = None
    ) -> Sequence[Booking]:
        if resource_id not in self.locked:
            raise RuntimeError(f"overlapping({resource_id}) before lock_resource({resource_id}) in this transaction")
        return [
            b
            for b in self._mine()
            if b.resource_id == resource_id
            and b.is_live
            and b.id != exclude_id
            and b.starts_at < ends_at
            and starts_at < b.ends_at
        ]

    def live_between(self, starts_at: datetime, ends_at: datetime) -> Sequence[Booking]:
        return [b for b in self._mine() if b.is_live and b.starts_at < ends_at and starts_at < b.ends_at]


class InMemoryBookingTypeRepository(_Repo):
    def add(self, draft: BookingTypeDraft, now: datetime) -> BookingType:
        booking_type = BookingType(
            self._store.next_id(), draft.name, draft.duration_minutes, draft.description, draft.is_active, now, now
        )
        self._s.booking_types[booking_type.id] = (self._account, booking_type)
        return booking_type

    def get(self, booking_type_id: int) -> BookingType | None:
        row = self._s.booking_types.get(booking_type_id)
        return None if row is None or row[0] != self._account else row[1]

    def list(self) -> Sequence[BookingType]:
        return sorted((t for (a, t) in self._s.booking_types.values() if a == self._account), key=lambda t: t.id)

    def update(self, booking_type: BookingType) -> None:
        current = self.get(booking_type.id)
        if current is not None:
            self._s.booking_types[booking_type.id] = (
                self._account,
                attrs.evolve(booking_type, created_at=current.created_at),
            )


class InMemoryResourceRepository(_Repo):
    def add(self, draft: ResourceDraft, now: datetime) -> Resource:
        resource = Resource(self._store.next_id(), draft.name, draft.type, draft.is_active, now, now)
        self._s.resources[resource.id] = (self._account, resource)
        return resource

    def get(self, resource_id: int) -> Resource | None:
        row = self._s.resources.get(resource_id)
        return None if row is None or row[0] != self._account else row[1]

    def list(self) -> Sequence[Resource]:
        return sorted((r for (a, r) in self._s.resources.values() if a == self._account), key=lambda r: r.id)

    def update(self, resource: Resource) -> None:
        current = self.get(resource.id)
        if current is not None:
            self._s.resources[resource.id] = (self._account, attrs.evolve(resource, created_at=current.created_at))


class InMemoryWorkingHoursRepository(_Repo):
    def get(self) -> WorkingHours | None:
        return self._s.working_hours.get(self._account)

    def put(self, hours: WorkingHours) -> None:
        self._s.working_hours[self._account] = hours

    def resource_schedules(self) -> Mapping[int, Schedule]:
        return {rid: schedule for rid, (a, schedule) in self._s.resource_hours.items() if a == self._account}

    def put_resource(self, resource_id: int, schedule: Schedule) -> None:
        self._s.resource_hours[resource_id] = (self._account, schedule)

    def clear_resource(self, resource_id: int) -> bool:
        row = self._s.resource_hours.get(resource_id)
        if row is None or row[0] != self._account:
            return False
        del self._s.resource_hours[resource_id]
        return True


# -- plans, partners and usage ---------------------------------------------------------------------


@attrs.frozen
class PartnerAttempt:
    """A partner-level delivery attempt as the outbox queues it (kind `partner`, owner the partner)."""

    partner_id: int
    webhook_id: int
    delivery_id: str
    event_type: str
    payload: Mapping[str, Any]
    due_at: datetime


class InMemoryUsageRepository(_Repo):
    def lock(self) -> None:
        """Nothing to do: the store lock already serialises every transaction."""

    def count(self, limit: str, since: datetime) -> int:
        mine = self._account
        if limit == "contacts":
            return sum(1 for a, _ in self._s.contacts.values() if a == mine)
        if limit == "team_members":
            return sum(1 for a, _ in self._s.team_members.values() if a == mine)
        if limit == "channels":
            return sum(1 for a, _ in self._s.channels.values() if a == mine)
        if limit == "messages_per_month":
            return sum(
                1
                for a, m in self._s.messages.values()
                if a == mine and m.direction == "outbound" and m.created_at >= since
            )
        raise ValueError(f"unknown limit {limit!r}")

    def report(self, start: datetime, end: datetime) -> WorkspaceUsage:
        mine = self._account
        contacts = [c for a, c in self._s.contacts.values() if a == mine]
        messages = [m for a, m in self._s.messages.values() if a == mine and start <= m.created_at < end]
        bookings = [b for a, b in self._s.bookings.values() if a == mine]
        return WorkspaceUsage(
            contacts_total=len(contacts),
            contacts_created=sum(1 for c in contacts if start <= c.created_at < end),
            contacts_blacklisted=sum(1 for c in contacts if c.blacklisted),
            messages_sent=sum(1 for m in messages if m.direction == "outbound" and m.status != "failed"),
            messages_received=sum(1 for m in messages if m.direction == "inbound"),
            messages_failed=sum(1 for m in messages if m.status == "failed"),
            bookings_total=len(bookings),
            bookings_completed=sum(1 for b in bookings if b.status == "completed"),
            bookings_cancelled=sum(1 for b in bookings if b.status == "cancelled"),
            team_members=sum(1 for a, _ in self._s.team_members.values() if a == mine),
            channels_connected=tuple(
                sorted(c.type for a, c in self._s.channels.values() if a == mine and c.is_connected)
            ),
        )


class InMemoryPlanRepository:
    def __init__(self, state: _State) -> None:
        self._s = state

    def list(self) -> Sequence[Plan]:
        return sorted(self._s.plans.values(), key=lambda p: p.id)

    def by_slug(self, slug: str) -> Plan | None:
        return self._s.plans.get(slug)

    def in_force(self, account_id: int, now: datetime, default_plan: str) -> Plan | None:
        client = self._s.clients.get(account_id)
        return self._s.plans.get(default_plan if client is None else client.schedule.plan_at(now))

    def update(self, plan: Plan) -> None:
        current = self._s.plans.get(plan.slug)
        if current is not None:
            self._s.plans[plan.slug] = attrs.evolve(
                current, name=plan.name, limits=dict(plan.limits), features=frozenset(plan.features)
            )


class InMemoryPartnerRepository:
    def __init__(self, store: InMemoryStore, state: _State) -> None:
        self._store = store
        self._s = state

    def add(self, draft: PartnerDraft, key_digest: str, key_hint: str, now: datetime) -> Partner:
        if self.slug_taken(draft.slug):
            raise ValueError(f"duplicate partner slug {draft.slug!r}")  # the unique index
        partner = Partner(
            self._store.next_id(), draft.company_name, draft.slug, draft.email, draft.plan, "active",
            draft.client_seats_max, key_hint, now, now,
        )  # fmt: skip
        self._s.partners[partner.id] = (partner, key_digest)
        return partner

    def get(self, partner_id: int) -> Partner | None:
        row = self._s.partners.get(partner_id)
        return None if row is None else row[0]

    def by_key_digest(self, key_digest: str) -> tuple[Partner, str] | None:
        return next(((p, d) for p, d in self._s.partners.values() if d == key_digest), None)

    def slug_taken(self, slug: str) -> bool:
        return any(p.slug == slug for p, _ in self._s.partners.values())

    def list(self) -> Sequence[Partner]:
        return sorted((p for p, _ in self._s.partners.values()), key=lambda p: p.id)

    def set_key(self, partner_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        partner, _ = self._s.partners[partner_id]
        self._s.partners[partner_id] = (attrs.evolve(partner, key_hint=key_hint, updated_at=now), key_digest)

    def update(self, partner: Partner) -> None:
        current, digest = self._s.partners[partner.id]
        self._s.partners[partner.id] = (attrs.evolve(partner, slug=current.slug, key_hint=current.key_hint), digest)


class InMemoryClientRepository:
    def __init__(self, state: _State) -> None:
        self._s = state

    def _of(self, partner_id: int) -> list[Client]:
        return sorted((c for c in self._s.clients.values() if c.partner_id == partner_id), key=lambda c: c.id)

    def lock_partner(self, partner_id: int) -> None:
        """Nothing to do: the store lock already serialises every transaction."""

    def add(self, partner_id: int, account_id: int, draft: ClientDraft, now: datetime) -> Client:
        if self.email_in_use(draft.primary_user.email) or self.slug_taken(draft.slug):
            raise ValueError("duplicate client e-mail or slug")  # the unique indexes
        client = Client(
            account_id, partner_id, draft.company_name, draft.slug, "pending_setup",
            ScheduledPlan(draft.plan, now), draft.primary_user, draft.timezone, draft.country_id, now, now,
        )  # fmt: skip
        self._s.clients[account_id] = client
        return client

    def get(self, partner_id: int, client_id: int) -> Client | None:
        client = self._s.clients.get(client_id)
        return client if client is not None and client.partner_id == partner_id else None

    def of_account(self, account_id: int) -> Client | None:
        return self._s.clients.get(account_id)

    def find(self, partner_id: int, filters: ClientFilter, page: PageRequest, now: datetime) -> Page[Client]:
        found = [c for c in self._of(partner_id) if filters.matches(c, now)]
        return paginate(sorted(found, key=lambda c: (c.created_at, c.id), reverse=True), page)

    def list(self, partner_id: int) -> Sequence[Client]:
        return self._of(partner_id)

    def usage(self, partner_id: int, start: datetime, end: datetime) -> Mapping[int, UsageCounts]:
        ids = {c.id for c in self._of(partner_id)}
        contacts = Counter(a for a, _ in self._s.contacts.values() if a in ids)
        sent = Counter(
            a
            for a, m in self._s.messages.values()
            if a in ids and start <= m.created_at < end and m.direction == "outbound" and m.status != "failed"
        )
        return {i: UsageCounts(messages_sent=sent[i], contacts_total=contacts[i]) for i in sorted(ids)}

    def count(self, partner_id: int) -> int:
        return len(self._of(partner_id))

    def email_in_use(self, email: str) -> bool:
        key = partner_email_key(email)
        return any(partner_email_key(c.primary_user.email) == key for c in self._s.clients.values())

    def slug_taken(self, slug: str) -> bool:
        return any(c.slug == slug for c in self._s.clients.values())

    def update(self, client: Client) -> None:
        current = self._s.clients.get(client.id)
        if current is not None and current.partner_id == client.partner_id:
            self._s.clients[client.id] = attrs.evolve(
                client,
                slug=current.slug,
                created_at=current.created_at,
                primary_user=attrs.evolve(current.primary_user, id=client.primary_user.id),
            )

    def delete(self, partner_id: int, client_id: int) -> None:
        if self.get(partner_id, client_id) is not None:
            purge_account(self._s, client_id)


def purge_account(state: _State, account_id: int) -> None:
    """Remove every row of the account from every table of `state`: the in-memory reference of
    "every table with `account_id`". Ids come from one counter across all tables, so a key equal
    to the account id can only be the account's own. A row belongs to the account when its key is
    the account id (or a tuple starting with it), or its value is a tuple starting with the
    account id or has an `account_id` attribute equal to it; rows keyed by the id of a removed row (secrets, passwords,
    memberships) go with it."""
    removed: set[int] = {account_id}

    def owned(key: object, value: object) -> bool:
        if key == account_id or (isinstance(key, tuple) and key and key[0] == account_id):
            return True
        if isinstance(value, tuple) and value and value[0] == account_id and not isinstance(value[0], bool):
            return True
        return getattr(value, "account_id", None) == account_id

    tables = {field.name: getattr(state, field.name) for field in attrs.fields(_State)}
    for table in tables.values():
        if isinstance(table, dict):
            for key in [k for k, v in table.items() if owned(k, v)]:
                del table[key]
                if isinstance(key, int):
                    removed.add(key)
    for table in tables.values():  # dependants of removed rows
        if isinstance(table, dict):
            for key in [k for k in table if k in removed]:
                del table[key]
        elif isinstance(table, set):
            table.difference_update({row for row in table if isinstance(row, tuple) and set(row) & removed})
        elif isinstance(table, list):
            table[:] = [row for row in table if getattr(row, "account_id", None) != account_id]


class InMemoryImpersonationRepository:
    def __init__(self, state: _State) -> None:
        self._s = state

    def add(self, token_digest: str, grant: Impersonation, expires_at: datetime, now: datetime) -> None:
        self._s.impersonations[token_digest] = (grant, expires_at, False)

    def redeem(self, token_digest: str, now: datetime) -> Impersonation | None:
        row = self._s.impersonations.get(token_digest)
        if row is None or row[2] or now >= row[1]:
            return None
        self._s.impersonations[token_digest] = (row[0], row[1], True)
        return row[0]


class InMemoryPartnerWebhookRepository:
    def __init__(self, store: InMemoryStore, state: _State) -> None:
        self._store = store
        self._s = state

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
        subscription = Subscription(self._store.next_id(), name, url, events, is_active, now, now)
        self._s.partner_webhooks[subscription.id] = (partner_id, subscription, secret_ciphertext)
        return subscription

    def get(self, partner_id: int, webhook_id: int) -> Subscription | None:
        row = self._s.partner_webhooks.get(webhook_id)
        return None if row is None or row[0] != partner_id else row[1]

    def list(self, partner_id: int) -> Sequence[Subscription]:
        return sorted((s for p, s, _ in self._s.partner_webhooks.values() if p == partner_id), key=lambda s: s.id)

    def update(self, partner_id: int, subscription: Subscription) -> None:
        row = self._s.partner_webhooks.get(subscription.id)
        if row is not None and row[0] == partner_id:
            self._s.partner_webhooks[subscription.id] = (partner_id, subscription, row[2])

    def delete(self, partner_id: int, webhook_id: int) -> None:
        if self.get(partner_id, webhook_id) is not None:
            del self._s.partner_webhooks[webhook_id]
            self._s.partner_attempts[:] = [a for a in self._s.partner_attempts if a.webhook_id != webhook_id]


class InMemoryPartnerUnitOfWork(_InMemoryUnitOfWork):
    def __enter__(self) -> Self:
        self._state = self._begin()
        self._pending: list[tuple[int, DomainEvent]] = []
        self.partners = InMemoryPartnerRepository(self._store, self._state)
        self.clients = InMemoryClientRepository(self._state)
        self.plans = InMemoryPlanRepository(self._state)
        self.accounts = InMemoryAccountRepository(self._store, self._state)
        self.impersonations = InMemoryImpersonationRepository(self._state)
        self.partner_webhooks = InMemoryPartnerWebhookRepository(self._store, self._state)
        return self

    def emit(self, partner_id: int, event: DomainEvent) -> None:
        self._pending.append((partner_id, event))

    def commit(self) -> None:
        for partner_id, event in self._pending:  # the outbox: deliveries commit with the change
            self._state.partner_events.append((partner_id, event))
            for subscription in self.partner_webhooks.list(partner_id):
                if subscription.wants(event.name):
                    self._state.partner_attempts.append(
                        PartnerAttempt(
                            partner_id, subscription.id, str(uuid.uuid4()), event.name, event.payload, event.occurred_at
                        )
                    )
        self._pending = []
        self._finish(self._state)
        self._state = self._state.copy()
