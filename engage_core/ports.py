"""Ports: what the services need from the outside world, as Protocols.

Adapters live in `engage_sql` (storage) and `engage_connectors` (outside services); in-memory
fakes of every port live in `engage_core.testing`. A workspace unit of work hands out
repositories that are already scoped to one account, so no query can forget the tenant.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self

from engage_core.accounts import Account
from engage_core.contact_lists import ContactList
from engage_core.contacts import Contact, ContactDraft, ContactFilter, Member, Note
from engage_core.events import DomainEvent
from engage_core.knowledge_base import KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_core.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft
from engage_core.pagination import Page, PageRequest
from engage_core.products import Product, ProductDraft, ProductFilter
from engage_core.segments import Segment, SegmentRules
from engage_core.tags import Tag
from engage_core.webhooks import Attempt, Claim, Completion, NextStep, Outcome, Subscription


class AccountRepository(Protocol):
    """All accounts: used by administration and authentication, never by workspace services."""

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account: ...

    def get(self, account_id: int) -> Account | None: ...

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        """The account whose key has this digest, with the stored digest (compared again in constant time)."""

    def list(self) -> Sequence[Account]: ...

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None: ...

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None: ...

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None: ...


class ContactRepository(Protocol):
    def add(self, draft: ContactDraft, now: datetime) -> Contact: ...

    def get(self, contact_id: int) -> Contact | None: ...

    def find(self, filters: ContactFilter, page: PageRequest) -> Page[Contact]:
        """Newest first (`created_at`, then `id`, descending)."""

    def by_phone(self, type: str, phone: str) -> Contact | None:
        """The contact of this channel type with this E.164 phone."""

    def update(self, contact: Contact) -> None:
        """Store every scalar field of `contact` (tags are changed through the tag repository)."""

    def delete(self, contact_id: int) -> None:
        """Delete the contact with its notes, tag links and list and segment memberships."""

    def count(self) -> int: ...


class TagRepository(Protocol):
    def add(self, title: str, now: datetime) -> Tag: ...

    def get(self, tag_id: int) -> Tag | None: ...

    def by_title(self, title: str) -> Tag | None:
        """Case-insensitive look-up (see `tags.title_key`)."""

    def list(self) -> Sequence[Tag]: ...

    def rename(self, tag_id: int, title: str, now: datetime) -> None: ...

    def delete(self, tag_id: int) -> None:
        """Delete the tag and every link to it."""

    def attach(self, contact_id: int, tag_id: int) -> bool:
        """Link the tag to the contact. False when it was already linked."""

    def detach(self, contact_id: int, tag_id: int) -> bool:
        """Unlink. False when it was not linked."""


class ContactListRepository(Protocol):
    def add(self, name: str, now: datetime) -> ContactList: ...

    def get(self, list_id: int) -> ContactList | None: ...

    def list(self) -> Sequence[ContactList]: ...

    def update(self, list_id: int, name: str, status: int, now: datetime) -> None: ...

    def delete(self, list_id: int) -> None:
        """Delete the list and its memberships (the contacts stay)."""

    def add_member(self, list_id: int, contact_id: int, now: datetime) -> bool:
        """False when the contact was already a member."""

    def remove_member(self, list_id: int, contact_id: int) -> bool:
        """False when the contact was not a member."""

    def members(self, list_id: int, page: PageRequest) -> Page[Member]:
        """Members in the order they were added."""


class SegmentRepository(Protocol):
    def add(self, name: str, description: str | None, rules: SegmentRules, now: datetime) -> Segment: ...

    def get(self, segment_id: int, now: datetime) -> Segment | None:
        """The segment with `contacts_count` evaluated at `now`."""

    def list(self, now: datetime) -> Sequence[Segment]: ...

    def update(
        self, segment_id: int, name: str, description: str | None, rules: SegmentRules, now: datetime
    ) -> None: ...

    def delete(self, segment_id: int) -> None: ...

    def include(self, segment_id: int, contact_id: int) -> None:
        """Add the contact by hand (and forget an earlier manual removal)."""

    def exclude(self, segment_id: int, contact_id: int) -> None:
        """Remove the contact by hand, even if the rules match it."""

    def members(self, segment_id: int, page: PageRequest, now: datetime) -> Page[Member]:
        """Members ordered by contact id."""

    def is_member(self, segment_id: int, contact_id: int, now: datetime) -> bool: ...


class NoteRepository(Protocol):
    def add(self, contact_id: int, content: str, now: datetime) -> Note: ...

    def for_contact(self, contact_id: int) -> Sequence[Note]:
        """Newest first."""


class WebhookRepository(Protocol):
    """Subscriptions of one account and their delivery log. Secrets are stored as ciphertext."""

    def add(
        self, name: str, url: str, events: tuple[str, ...], is_active: bool, secret_ciphertext: str, now: datetime
    ) -> Subscription: ...

    def get(self, webhook_id: int) -> Subscription | None: ...

    def list(self) -> Sequence[Subscription]:
        """Oldest first."""

    def active(self) -> Sequence[Subscription]:
        """Active subscriptions (the outbox fans events out to these)."""

    def update(self, subscription: Subscription) -> None: ...

    def delete(self, webhook_id: int) -> None:
        """Delete the subscription and its delivery log."""

    def secret_ciphertext(self, webhook_id: int) -> str: ...

    def set_secret(self, webhook_id: int, secret_ciphertext: str, now: datetime) -> None: ...

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


class KnowledgeBaseRepository(Protocol):
    """Knowledge-base entries of one account: the fields every type shares. Only what product
    catalogs need so far; each later type keeps its parts in tables of its own beside the entry."""

    def add(self, draft: KnowledgeBaseDraft, now: datetime) -> KnowledgeBaseEntry:
        """Store a new entry (`embedding_updated_at` None, `created_at` = `updated_at` = `now`)."""

    def get(self, entry_id: int) -> KnowledgeBaseEntry | None: ...


class ProductRepository(Protocol):
    """Products of one account. Each belongs to one `product_catalog` knowledge-base entry.

    Stock moves only through `take_stock` and `restore_stock`, each a single conditional `UPDATE`
    (never a read followed by a write), so concurrent orders can never drive tracked stock below
    zero on either engine. Stock moves do not change `updated_at`."""

    def add_many(self, knowledge_base_id: int, drafts: Sequence[ProductDraft], now: datetime) -> Sequence[Product]:
        """Store the products in the catalog entry; ids ascend in the order given."""

    def get(self, product_id: int) -> Product | None: ...

    def get_many(self, product_ids: Collection[int]) -> Mapping[int, Product]:
        """The products among `product_ids` that exist, by id (one query; unknown ids are left out)."""

    def find(self, filters: ProductFilter, page: PageRequest) -> Page[Product]:
        """Catalogue order: ascending id."""

    def for_catalog(self, knowledge_base_id: int) -> Sequence[Product]:
        """The products of one catalog entry, ascending id."""

    def delete(self, product_id: int) -> None:
        """Delete the product. Order items keep their snapshot, `product_id` included (no cascade)."""

    def take_stock(self, product_id: int, quantity: int) -> bool:
        """Take `quantity` (at least 1) from the product's stock if that many are on hand. True when
        taken, or when the product's stock is untracked (`stock_quantity` NULL: nothing changes);
        False when too few are on hand or the product does not exist (nothing changes).

        Atomic, one statement: `UPDATE products SET stock_quantity = stock_quantity - :q WHERE
        account_id = :account AND id = :id AND (stock_quantity IS NULL OR stock_quantity >= :q)`,
        True when it matched a row (NULL minus q stays NULL)."""

    def restore_stock(self, product_id: int, quantity: int) -> None:
        """Put `quantity` (at least 1) back: `SET stock_quantity = stock_quantity + :q` where the stock is
        tracked. Cancellations, item reductions and restocks use it. Untracked or absent: nothing."""


class OrderRepository(Protocol):
    """Orders of one account with their items."""

    def add(self, draft: OrderDraft, now: datetime) -> Order:
        """Store the order and its items (item ids ascend in the order given); `created_at` =
        `updated_at` = `now`."""

    def get(self, order_id: int) -> Order | None: ...

    def find(self, filters: OrderFilter, page: PageRequest) -> Page[Order]:
        """Newest first (`created_at`, then `id`, descending)."""

    def find_duplicate(self, key: str, since: datetime) -> Order | None:
        """The newest order whose `duplicate_key` is `key`, created strictly after `since`, and not
        cancelled.

        Concurrency: from this call until the transaction ends, no other transaction may commit an
        order with the same key, so identical creates racing each other produce exactly one order
        (the others then find it). SQLite gets this from `BEGIN IMMEDIATE` (one writer at a time).
        PostgreSQL must take a transaction-level lock on the key before it reads, for example
        `pg_advisory_xact_lock(hashtextextended(:account || ':' || :key, 0))`."""

    def by_external_reference(self, reference: str) -> Order | None:
        """The store-sourced order with this store reference (unique per account). Same concurrency
        guarantee as `find_duplicate`, for the reference: one order per reference, however many
        imports race (a unique index on `(account_id, external_reference)` backs it)."""

    def update(self, order: Order) -> None:
        """Store every scalar field of `order` (status, customer fields, currency, subtotal, total,
        shipping_address, notes, cancelled_at, cancellation_reason, duplicate_key, updated_at). Items
        change only through `replace_items`."""

    def replace_items(self, order_id: int, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        """Delete the order's items and store `items` in their place (new ids, ascending in the order
        given); returns the stored items."""


class StorePlatform(Protocol):
    """The connected online store that store-sourced orders (`created_by` `store_platform`) come from.

    The services call it before any local change and outside the database transaction."""

    def push_status(self, order: Order, slug: str) -> None:
        """Ask the store to move `order` (as it is before the change; `external_reference` is its
        id at the store) to `slug` (`orders.STORE_SLUGS`: cancelling pushes `canceled`). Returns when
        the store accepted. Raises `orders.StoreRejected` with a message for the caller when it
        refused, and also when it could not be reached: either way the local order stays as it was."""


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

    def close(self) -> None: ...


class SecretCipher(Protocol):
    """Encrypts secrets at rest (webhook signing secrets)."""

    def encrypt(self, plaintext: str) -> str: ...

    def decrypt(self, ciphertext: str) -> str: ...


class WebhookSender(Protocol):
    """Posts one delivery. Never raises for network trouble: every failure is an `Outcome`."""

    def send(self, url: str, headers: Mapping[str, str], body: bytes) -> Outcome: ...


class TargetGuard(Protocol):
    """Why a target URL may not be used (its host resolves to an internal address), or None."""

    def refusal(self, url: str) -> str | None: ...


class WorkspaceUnitOfWork(Protocol):
    """One transaction inside one account. Leaving the block without `commit()` rolls back."""

    @property
    def account_id(self) -> int: ...

    @property
    def contacts(self) -> ContactRepository: ...

    @property
    def tags(self) -> TagRepository: ...

    @property
    def lists(self) -> ContactListRepository: ...

    @property
    def segments(self) -> SegmentRepository: ...

    @property
    def notes(self) -> NoteRepository: ...

    @property
    def webhooks(self) -> WebhookRepository: ...

    @property
    def knowledge_base(self) -> KnowledgeBaseRepository: ...

    @property
    def products(self) -> ProductRepository: ...

    @property
    def orders(self) -> OrderRepository: ...

    def emit(self, event: DomainEvent) -> None:
        """Record an event. `commit()` writes it to the outbox and queues one delivery attempt for
        every active subscription that wants it, in the same transaction as the change."""

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class AdminUnitOfWork(Protocol):
    """One transaction across accounts, for administration and authentication."""

    @property
    def accounts(self) -> AccountRepository: ...

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class UnitOfWorkFactory(Protocol):
    """Opens units of work. `readonly` lets the adapter skip write locks for pure reads."""

    def workspace(self, account_id: int, *, readonly: bool = False) -> WorkspaceUnitOfWork: ...

    def admin(self, *, readonly: bool = False) -> AdminUnitOfWork: ...
