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
import itertools
import threading
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from types import TracebackType
from typing import Any, Self

import attrs

from engage_core.accounts import Account
from engage_core.contact_lists import ContactList
from engage_core.contacts import Contact, ContactDraft, ContactFilter, Member, Note
from engage_core.errors import ValidationFailed
from engage_core.events import DomainEvent
from engage_core.knowledge_base import KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_core.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft, StoreRejected
from engage_core.pagination import Page, PageRequest, paginate
from engage_core.products import Product, ProductDraft, ProductFilter
from engage_core.segments import Segment, SegmentRules, is_member
from engage_core.tags import Tag, title_key
from engage_core.webhooks import Attempt, Claim, Completion, NextStep, Outcome, Subscription, excerpt


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


class InMemoryContactRepository(_Repo):
    def _with_tags(self, contact: Contact) -> Contact:
        titles = sorted(
            (self._s.tags[tag_id][1].title for (cid, tag_id) in self._s.contact_tags if cid == contact.id),
            key=str.casefold,
        )
        return attrs.evolve(contact, tags=tuple(titles))

    def _mine(self) -> list[Contact]:
        return [self._with_tags(c) for (acc, c) in self._s.contacts.values() if acc == self._account]

    def add(self, draft: ContactDraft, now: datetime) -> Contact:
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

    def restore_stock(self, product_id: int, quantity: int) -> None:
        product = self.get(product_id)
        if product is not None and product.stock_quantity is not None:
            self._s.products[product_id] = (
                self._account,
                attrs.evolve(product, stock_quantity=product.stock_quantity + quantity),
            )


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

    def push_status(self, order: Order, slug: str) -> None:
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
