"""Ports: what the services need from the outside world, as Protocols.

Adapters live in `engage_sql` (storage) and `engage_connectors` (outside services); in-memory
fakes of every port live in `engage_core.testing`. A workspace unit of work hands out
repositories that are already scoped to one account, so no query can forget the tenant.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, MutableMapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Protocol, Self

from engage_core.accounts import Account, Admission
from engage_core.booking_catalogue import BookingType, BookingTypeDraft, Resource, ResourceDraft
from engage_core.bookings import Booking, BookingDraft, BookingFilter
from engage_core.channel_gateway import (
    InboundMessage,
    LoginOutcome,
    QrLogin,
    Receipt,
    SentMessage,
    StatusChange,
    StatusReport,
)
from engage_core.channels import ChannelAccount, ChannelDraft
from engage_core.contact_lists import ContactList
from engage_core.contacts import Contact, ContactDraft, ContactFilter, Member, Note
from engage_core.conversations import ConversationFilter, ConversationSummary
from engage_core.departments import Department
from engage_core.events import DomainEvent
from engage_core.knowledge_base import KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_core.mail import MailMessage
from engage_core.messages import Message, MessageDraft
from engage_core.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft
from engage_core.pagination import Page, PageRequest
from engage_core.partners import Client, ClientDraft, ClientFilter, Impersonation, Partner, PartnerDraft
from engage_core.plans import Plan
from engage_core.products import Product, ProductDraft, ProductFilter
from engage_core.rate_limits import Decision
from engage_core.segments import Segment, SegmentRules
from engage_core.tags import Tag
from engage_core.team import MemberDraft, TeamMember
from engage_core.tickets import ReplyDraft, Ticket, TicketDraft, TicketFilter, TicketReply
from engage_core.usage import UsageCounts, WorkspaceUsage
from engage_core.webhooks import Attempt, Claim, Completion, NextStep, Outcome, Subscription
from engage_core.working_hours import Schedule, WorkingHours


class AccountRepository(Protocol):
    """All accounts: used by administration and authentication, never by workspace services."""

    def add(self, name: str, key_digest: str, key_hint: str, now: datetime) -> Account: ...

    def get(self, account_id: int) -> Account | None: ...

    def by_key_digest(self, key_digest: str) -> tuple[Account, str] | None:
        """The account whose key has this digest, with the stored digest (compared again in constant time)."""

    def admission(self, key_digest: str, now: datetime, default_plan: str) -> tuple[Admission, str] | None:
        """`by_key_digest` with, in the same indexed read, whether the account's workspace is
        suspended and its plan in force at `now` (its client's plan, the pending one from
        `pending_from`, or `default_plan` without a partner), and `changes_at`: the pending plan's
        `pending_from` while it is still ahead of `now`."""

    def list(self) -> Sequence[Account]: ...

    def set_key(self, account_id: int, key_digest: str, key_hint: str, now: datetime) -> None: ...

    def set_active(self, account_id: int, is_active: bool, now: datetime) -> None: ...

    def set_origins(self, account_id: int, origins: tuple[str, ...], now: datetime) -> None: ...

    def rename(self, account_id: int, name: str, now: datetime) -> None: ...

    def set_locale(self, account_id: int, locale: str, now: datetime) -> None: ...


class ContactRepository(Protocol):
    def add(self, draft: ContactDraft, now: datetime, *, at_most: int | None = None) -> Contact:
        """Store a new contact and count it in the account's contacts total. With `at_most` (the
        plan's contacts limit), raise PlanLimitReached instead when the account already has that
        many: checked and counted in one step, race-free like `services.plans.reserve`. Raises
        ValidationFailed on `phone` when the channel type already has a contact with that phone.
        After either error the unit of work must be left uncommitted."""

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
    (never a read followed by a write), so concurrent orders and restocks can never drive tracked
    stock below zero or above `STOCK_MAX` on either engine. Stock moves do not change `updated_at`."""

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

    def restore_stock(self, product_id: int, quantity: int) -> bool:
        """Add `quantity` (at least 1) to the product's stock unless that would pass `STOCK_MAX`.
        True when added, or when the stock is untracked (nothing changes); False when the sum would
        pass the maximum or the product does not exist (nothing changes). Cancellations, item
        reductions and restocks use it.

        Atomic, one statement: `UPDATE products SET stock_quantity = stock_quantity + :q WHERE
        account_id = :account AND id = :id AND (stock_quantity IS NULL OR stock_quantity <=
        :ceiling)`, with `ceiling = STOCK_MAX - q` (so the database never computes a sum that
        overflows its integer), True when it matched a row."""


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

    def push_status(self, account_id: int, order: Order, slug: str) -> None:
        """Ask the store to move `order` of workspace `account_id` (the order as it is before the
        change; `external_reference` is its id at the store) to `slug` (`orders.STORE_SLUGS`:
        cancelling pushes `canceled`). Returns when the store accepted. Raises
        `orders.StoreRejected` with a message for the caller when it refused, and also when it
        could not be reached: either way the local order stays as it was. One store connector may
        serve many workspaces, which is why the account is named."""


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

    @property
    def channels(self) -> ChannelAccountRepository: ...

    @property
    def messages(self) -> MessageRepository: ...

    @property
    def handles(self) -> ContactHandleRepository: ...

    @property
    def departments(self) -> DepartmentRepository: ...

    @property
    def tickets(self) -> TicketRepository: ...

    @property
    def team(self) -> TeamMemberRepository: ...

    @property
    def bookings(self) -> BookingRepository: ...

    @property
    def booking_types(self) -> BookingTypeRepository: ...

    @property
    def resources(self) -> ResourceRepository: ...

    @property
    def working_hours(self) -> WorkingHoursRepository: ...

    @property
    def usage(self) -> UsageRepository: ...

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

    @property
    def channel_directory(self) -> ChannelDirectory: ...

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class UnitOfWorkFactory(Protocol):
    """Opens units of work. `readonly` lets the adapter skip write locks for pure reads."""

    def workspace(self, account_id: int, *, readonly: bool = False) -> WorkspaceUnitOfWork: ...

    def admin(self, *, readonly: bool = False) -> AdminUnitOfWork: ...

    def partners(self, *, readonly: bool = False) -> PartnerUnitOfWork: ...

    def transaction_memo(self) -> MutableMapping[Hashable, Any] | None:
        """What the transaction this thread is in the middle of (a batch of units of work sharing
        one transaction) has memoised, to reuse until it ends or writes any of it; None outside
        such a transaction. The adapter empties it when the transaction ends, whenever a unit of
        work of the batch writes what may be memoised (accounts, partner clients, plans, webhook
        subscriptions) and whenever one is rolled back to its savepoint."""


# -- channels and messaging ----------------------------------------------------------------------


class ChannelAccountRepository(Protocol):
    """Channel settings of one account: at most one per channel type (a unique index on
    `(account_id, type)`), and a provider account id belongs to at most one setting across every
    account (a unique index on `provider_account_id`, which is None only for a login the provider
    refused before creating an account)."""

    def add(self, draft: ChannelDraft, now: datetime) -> ChannelAccount:
        """Store a new setting in phase `pending`: `sync_status` `CONNECTING`, `is_connected` false,
        `last_synced_at`, `error` and `connected_at` None, `created_at` = `updated_at` = `now`. The
        caller has checked that the type has no setting yet."""

    def by_type(self, type: str) -> ChannelAccount | None:
        """The setting of this channel type, if any."""

    def by_provider_account(self, provider_account_id: str) -> ChannelAccount | None:
        """The setting whose `provider_account_id` is this, if it is this account's.

        Concurrency: in a write unit of work, from this call until the transaction ends, no other
        write unit of work reads the setting (here or through `by_type`), so the provider callbacks
        of one channel apply one after the other, each seeing what the previous ones committed.
        SQLite gets this from `BEGIN IMMEDIATE` (one writer at a time), PostgreSQL from a read
        `FOR UPDATE`."""

    def list(self) -> Sequence[ChannelAccount]:
        """Every setting, ascending id."""

    def update(self, account: ChannelAccount) -> None:
        """Store every field of `account` but `id`, `type` and `created_at`."""

    def delete(self, channel_id: int) -> None:
        """Delete the setting (its messages stay: they belong to the contacts)."""


class ContactHandleRepository(Protocol):
    """How Instagram and LinkedIn address a contact: its handle on that channel (WhatsApp and
    Telegram address contacts by phone, which the contact itself holds). A handle belongs to one
    contact per channel (unique on `(account_id, channel, handle)`); a contact has at most one
    handle per channel. Deleted with the contact."""

    def contact_for(self, channel: str, handle: str) -> int | None:
        """The id of the contact with this handle on this channel (exact match), if any."""

    def handle_of(self, contact_id: int, channel: str) -> str | None: ...

    def link(self, contact_id: int, channel: str, handle: str) -> None:
        """Give the contact this handle on the channel, replacing the one it had there."""


class MessageRepository(Protocol):
    """Messages of one account. Deleted with their contact.

    Order: "newest first" always means `created_at` descending, then `id` descending (ids ascend
    with insertion, so equal timestamps keep their insertion order reversed). Every write goes
    through `add`, `update` and `mark_read`, so an adapter may keep a per-contact summary row up to
    date beside the messages instead of aggregating them for every `conversations` call."""

    def add(self, draft: MessageDraft, now: datetime) -> Message:
        """Store the message; `created_at` = `updated_at` = `now`."""

    def get(self, message_id: int) -> Message | None: ...

    def by_provider_id(self, channel: str, provider_message_id: str) -> Message | None:
        """The message of this channel with this provider message id (unique per account and
        channel where not None), if any."""

    def update(self, message: Message) -> None:
        """Store `status`, `sent_at`, `error`, `provider_message_id` and `updated_at`."""

    def for_contact(self, contact_id: int, direction: str | None, page: PageRequest) -> Page[Message]:
        """The contact's messages, newest first; only `direction`'s when it is given."""

    def conversations(self, filters: ConversationFilter, page: PageRequest) -> Page[ConversationSummary]:
        """One summary per contact that has at least one message passing `filters` (`channel`: the
        message's channel; `contact_id`: the message's contact), computed over those messages only:

        - `last_message`, `last_message_at`, `channel`: the content, `created_at` and channel of the
          contact's newest such message (newest first, as above);
        - `unread_count`: how many of them are inbound with a status other than `read`;
        - `contact_name`: the contact's current name.

        Summaries are ordered newest first by their last message (`last_message_at` descending,
        then that message's id descending). `total` counts the summaries. The adapter must not read
        every message of the account per call (an index on `(account_id, contact_id, created_at,
        id)` or a maintained summary table)."""

    def mark_read(self, contact_id: int, now: datetime) -> int:
        """Set every unread message of the contact (inbound, status not `read`) to `read` with
        `updated_at` = `now`; how many changed."""


class ChannelDirectory(Protocol):
    """Which account owns a provider account: provider callbacks name only the provider's id."""

    def owner_of(self, provider_account_id: str) -> int | None:
        """The id of the account whose channel setting has this provider account id, if any."""


class ChannelGateway(Protocol):
    """The messaging networks, through a provider (the embedded sandbox, or a hosted messaging API).

    Every call is made outside any database transaction. Each raises
    `channel_gateway.GatewayUnavailable` when the provider could not be reached or failed (nothing
    happened) and `channel_gateway.GatewayRejected` when it refused; see that module."""

    def start_qr(self, channel: str) -> QrLogin:
        """Begin linking a WhatsApp or Telegram device: a new provider account and its QR text."""

    def poll(self, provider_account_id: str) -> StatusReport:
        """The account's current status (`CONNECTING` while its QR code waits, `OK` once scanned,
        `CREATION_FAIL` when the attempt failed or the code expired, ...)."""

    def connect_credentials(self, channel: str, username: str, password: str, country: str) -> LoginOutcome:
        """Log in to Instagram or LinkedIn: authenticated, or a checkpoint to answer."""

    def solve_checkpoint(self, provider_account_id: str, code: str) -> LoginOutcome:
        """Answer the pending checkpoint: authenticated, or another checkpoint round. A wrong code
        is `GatewayRejected` and leaves the checkpoint waiting."""

    def resend_checkpoint(self, provider_account_id: str) -> None:
        """Ask the network to send the pending checkpoint's code again."""

    def refresh(self, provider_account_id: str) -> StatusReport:
        """Ask the provider to resynchronise the account; its status afterwards."""

    def disconnect(self, provider_account_id: str) -> None:
        """Delete the account at the provider. An account the provider no longer knows is not an
        error (the wanted state is reached)."""

    def send(self, provider_account_id: str, recipient: str, text: str) -> SentMessage:
        """Send `text` to `recipient` (a phone for WhatsApp and Telegram, a handle for Instagram and
        LinkedIn) from the account."""


class InboundSink(Protocol):
    """Where gateways hand what arrives from the networks (`engage_core.services.inbox`). Each call
    names the provider account; the sink finds the workspace that owns it. An account no workspace
    owns is ignored (None): a callback for an account disconnected meanwhile is not an error."""

    def receive(self, message: InboundMessage) -> Message | None: ...

    def receipt(self, receipt: Receipt) -> Message | None: ...

    def status_changed(self, change: StatusChange) -> ChannelAccount | None: ...


class CampaignGuard(Protocol):
    """Campaigns as the channel rules see them (SPEC 3 Campaign: a running or paused campaign blocks
    disconnecting its WhatsApp channel). `channels.NoActiveCampaigns` until campaigns exist."""

    def active_on(self, account_id: int, channel: str) -> bool:
        """Whether a campaign of the account is running or paused on this channel."""


class FeatureGate(Protocol):
    """Plan features (`features.LINKEDIN_ACCESS`, ...). `features.AllowAllFeatures` until plans exist."""

    def allows(self, account_id: int, feature: str) -> bool: ...


# -- support tickets and team members --------------------------------------------------------------


class DepartmentRepository(Protocol):
    """Departments of one account (`engage_core.departments`). Titles are unique per account by
    `departments.title_key` (a unique index on `(account_id, title_key)`): `add` and `rename` raise
    ValidationFailed on `title` when another department has the key."""

    def ensure_default(self, title: str, now: datetime) -> Department:
        """The account's first department (lowest id), after adding one titled `title` if the
        account has none. Concurrency: transactions seeding at once leave exactly one department;
        SQL inserts with `ON CONFLICT (account_id, title_key) DO NOTHING` and then reads."""

    def add(self, title: str, now: datetime) -> Department: ...

    def get(self, department_id: int) -> Department | None: ...

    def by_title(self, title: str) -> Department | None:
        """Case-insensitive look-up (see `departments.title_key`)."""

    def list(self) -> Sequence[Department]:
        """Ascending id: the first is the default department of new tickets."""

    def rename(self, department_id: int, title: str, now: datetime) -> None: ...

    def delete(self, department_id: int) -> None:
        """Delete the department; its tickets stay, with no department (`department_id` NULL,
        `updated_at` unchanged)."""


class TicketRepository(Protocol):
    """Support tickets of one account with their replies (`engage_core.tickets`).

    Tickets are returned with their department (id and title) joined in."""

    def next_number(self) -> int:
        """The account's next ticket number: 1 for its first ticket, then one more each time.
        Atomic: concurrent transactions of one account never get the same number. SQL keeps the
        last number on the account's `account_counters` row and takes the next with one statement,
        `UPDATE account_counters SET tickets = tickets + 1 WHERE account_id = :a RETURNING
        tickets`, whose row lock lasts until commit (a rolled-back number is handed out again);
        a unique index on `(account_id, ticket_id)` backs the guarantee."""

    def add(self, draft: TicketDraft, now: datetime) -> Ticket:
        """Store the ticket; `created_at` = `updated_at` = `now`, no replies, not closed."""

    def get(self, ticket_id: int) -> Ticket | None:
        """By numeric `id` (not the reference)."""

    def by_reference(self, reference: str) -> Ticket | None:
        """By the reference (`ticket_id`, `TKT-000123`), exactly as stored. Like `get`, in a write
        unit of work the SQL adapter locks the ticket it reads."""

    def find(self, filters: TicketFilter, page: PageRequest) -> Page[Ticket]:
        """Newest first (`created_at`, then `id`, descending)."""

    def update(self, ticket: Ticket) -> None:
        """Store `status`, `priority`, the department's id, `assignee_id`, `last_reply_at`,
        `closed_at` and `updated_at`."""

    def add_reply(self, ticket_id: int, draft: ReplyDraft, now: datetime) -> TicketReply:
        """Store a reply on the ticket; `created_at` = `now`. The ticket row itself is changed
        through `update`."""

    def replies(self, ticket_id: int) -> Sequence[TicketReply]:
        """The ticket's replies, oldest first (`created_at`, then `id`)."""

    def unassign_member(self, member_id: int, now: datetime) -> Sequence[Ticket]:
        """Set `assignee_id` to NULL and `updated_at` to `now` on every ticket assigned to the team
        member; the tickets as they are afterwards, ascending id (the service emits
        `ticket.updated` for each). Replies keep their `author_id`."""


class TeamMemberRepository(Protocol):
    """Team members of one account (`engage_core.team`). Addresses are unique per account by
    `team.email_key` (a unique index on `(account_id, email_key)`): `add` and `update` raise
    ValidationFailed on `email` when another member has the key. The password hash is stored
    beside the member, never in `TeamMember`."""

    def add(self, draft: MemberDraft, password_hash: str, now: datetime) -> TeamMember: ...

    def get(self, member_id: int) -> TeamMember | None: ...

    def by_email(self, email: str) -> TeamMember | None:
        """Case-insensitive look-up (see `team.email_key`)."""

    def find(self, role: str | None, page: PageRequest) -> Page[TeamMember]:
        """Ascending id; only members of `role` when it is given."""

    def update(self, member: TeamMember) -> None:
        """Store `name`, `email`, `role`, `status` and `updated_at`."""

    def password_hash(self, member_id: int) -> str | None: ...

    def set_password_hash(self, member_id: int, password_hash: str, now: datetime) -> None:
        """Replace the hash and set `updated_at`."""

    def delete(self, member_id: int) -> None:
        """Delete the member and its password hash. What was assigned to it is unassigned first,
        by the service, through each repository that holds assignments."""


class PasswordHasher(Protocol):
    """One-way password hashing (argon2id: `engage_connectors.passwords.Argon2idHasher`)."""

    def hash(self, password: str) -> str:
        """A self-describing hash (algorithm, parameters, salt): hashing twice gives two hashes."""

    def verify(self, password_hash: str, password: str) -> bool:
        """Whether `password` matches. False, never an error, for a mismatch or a malformed hash."""


class Mailer(Protocol):
    """Sends e-mail (`mail.LoggingMailer` by default; `engage_connectors.smtp_mailer.SmtpMailer`).

    Called outside any database transaction."""

    def send(self, message: MailMessage) -> None:
        """Hand the message over for delivery; raises `mail.MailUndelivered` when that failed."""


# -- bookings --------------------------------------------------------------------------------------


class BookingRepository(Protocol):
    """Bookings of one account.

    No double booking, on either engine, however many requests race: two live bookings (pending,
    confirmed) of one calendar never overlap. A calendar is a resource (`resource_id`), or None:
    the bookings without a resource, which a workspace without resources keeps one at a time. The
    services make every write that gives a booking a time (create, reschedule) in this order, in
    one transaction: `lock_resource(calendar)`, then `overlapping(calendar, ...)`, then `add` or
    `update`. The lock makes check and write atomic against every other such transaction:

    - PostgreSQL: `lock_resource` takes a transaction-level advisory lock on (account, calendar),
      e.g. `pg_advisory_xact_lock(hashtextextended('booking:' || :account || ':' ||
      coalesce(:resource, 0), 0))`, held until commit or rollback. The overlap query must see every
      booking committed before the lock was granted: READ COMMITTED gives that (each statement
      takes a fresh snapshot); under REPEATABLE READ the lock must come before the transaction's
      first query.
    - SQLite: a write transaction already holds the single write lock (`BEGIN IMMEDIATE`), so
      `lock_resource` has nothing to do.

    A transaction that locks several calendars (choosing a free resource) locks them in ascending
    id order, so two of them never deadlock."""

    def lock_resource(self, resource_id: int | None) -> None:
        """Serialise booking writes on this calendar (None: bookings without a resource) until the
        transaction ends. Called before `overlapping`, in a write transaction."""

    def add(self, draft: BookingDraft, now: datetime) -> Booking:
        """Store the booking; `created_at` = `updated_at` = `now`, `cancelled_at` and
        `cancellation_reason` None."""

    def get(self, booking_id: int) -> Booking | None: ...

    def find(self, filters: BookingFilter, page: PageRequest) -> Page[Booking]:
        """`filters.matches` semantics; ordered by `starts_at`, then `id`, ascending."""

    def update(self, booking: Booking) -> None:
        """Store `status`, `starts_at`, `ends_at`, `resource_id`, `notes`, `cancelled_at`,
        `cancellation_reason` and `updated_at`."""

    def overlapping(
        self, resource_id: int | None, starts_at: datetime, ends_at: datetime, exclude_id: int | None = None
    ) -> Sequence[Booking]:
        """The live bookings of the calendar `resource_id` (None: `resource_id IS NULL`) whose range
        overlaps `[starts_at, ends_at)` (`starts_at < :ends_at AND ends_at > :starts_at`: touching
        ranges do not overlap), other than `exclude_id`; by `starts_at`. Only after
        `lock_resource(resource_id)` in the same transaction. An index on `(account_id,
        resource_id, starts_at)` serves it."""

    def live_between(self, starts_at: datetime, ends_at: datetime) -> Sequence[Booking]:
        """Every live booking, of any calendar, overlapping `[starts_at, ends_at)`, by `starts_at`
        then `id`: what availability reads for one day. A plain read, no lock."""


class BookingTypeRepository(Protocol):
    """Booking types of one account. Never deleted (bookings point at them)."""

    def add(self, draft: BookingTypeDraft, now: datetime) -> BookingType:
        """Store the type; `created_at` = `updated_at` = `now`."""

    def get(self, booking_type_id: int) -> BookingType | None: ...

    def list(self) -> Sequence[BookingType]:
        """Every type, active or not, ascending id."""

    def update(self, booking_type: BookingType) -> None:
        """Store `name`, `duration_minutes`, `description`, `is_active` and `updated_at`."""


class ResourceRepository(Protocol):
    """Bookable resources of one account. Never deleted (bookings point at them)."""

    def add(self, draft: ResourceDraft, now: datetime) -> Resource:
        """Store the resource; `created_at` = `updated_at` = `now`."""

    def get(self, resource_id: int) -> Resource | None: ...

    def list(self) -> Sequence[Resource]:
        """Every resource, active or not, ascending id."""

    def update(self, resource: Resource) -> None:
        """Store `name`, `type`, `is_active` and `updated_at`."""


class WorkingHoursRepository(Protocol):
    """The workspace's timezone and working hours, and the resources' own schedules. A schedule is
    stored as its JSON document (`Schedule.document()`, read back with `Schedule.from_document`);
    the timezone is an IANA name, the workspace's timezone setting."""

    def get(self) -> WorkingHours | None:
        """The workspace's hours, or None when it never set them (the services use
        `working_hours.DEFAULT_HOURS`: UTC, open around the clock)."""

    def put(self, hours: WorkingHours) -> None:
        """Store the workspace's timezone and schedule, replacing any earlier ones."""

    def resource_schedules(self) -> Mapping[int, Schedule]:
        """Every resource's own schedule, by resource id (resources without one are left out)."""

    def put_resource(self, resource_id: int, schedule: Schedule) -> None:
        """Give the resource its own schedule, replacing any earlier one."""

    def clear_resource(self, resource_id: int) -> bool:
        """Drop the resource's own schedule; False when it had none."""


# -- plans, partners and rate limits -------------------------------------------------------------


class PlanRepository(Protocol):
    """The plans (`engage_core.plans`). Storage is seeded with `plans.SEED_PLANS` (a migration);
    plans are changed, never added or removed, so a workspace's plan slug always resolves."""

    def list(self) -> Sequence[Plan]:
        """Every plan, ascending id."""

    def by_slug(self, slug: str) -> Plan | None: ...

    def in_force(self, account_id: int, now: datetime, default_plan: str) -> Plan | None:
        """The plan in force at `now` for the workspace, in one read: its client row's pending plan
        from `pending_from` on, else the client row's plan, else (no client row: a workspace without a
        partner) `default_plan` (`ScheduledPlan.plan_at`). None only if that slug has no plan."""

    def update(self, plan: Plan) -> None:
        """Store `name`, `limits` and `features` of the plan with this slug."""


class UsageRepository(Protocol):
    """What one workspace uses, counted from its records: the plan limits and the usage report.

    Limits are enforced race-free by lock-then-count (`services.plans.reserve`): in a write unit
    of work the service calls `lock()`, then `count(limit, since)`, then writes the new record, all
    in one transaction. Every other transaction of the same account that checks a limit waits at
    `lock()` until this one ends, and then counts what it committed, so two racing writes can
    never both take the last unit of a limit. Counting the records themselves (instead of a
    counter each create and delete must keep right) cannot drift, and deletes need no wiring.

    - PostgreSQL: `lock()` takes the account's `account_counters` row lock, `SELECT 1 FROM
      account_counters WHERE account_id = :a FOR UPDATE` (or a transaction-level advisory lock on
      `'plan:' || :a`), held to commit or rollback. Under READ COMMITTED the counts that follow see
      every row committed before the lock was granted.
    - SQLite: a write transaction already holds the database's single write lock (`BEGIN
      IMMEDIATE`), so `lock()` has nothing to do."""

    def lock(self) -> None:
        """Serialise limit-checked writes of this account until the transaction ends."""

    def count(self, limit: str, since: datetime) -> int:
        """Current use of one of `plans.LIMITS`: `contacts`, every contact of the account;
        `team_members`, every member; `channels`, every channel setting (connected or not);
        `messages_per_month`, outbound messages with `created_at >= since` (an index on
        `(account_id, direction, created_at)` serves it). `since` is ignored by the others."""

    def report(self, start: datetime, end: datetime) -> WorkspaceUsage:
        """The usage report of `engage_core.usage` for `[start, end)`: contacts (all, created in
        the period, blacklisted), messages created in the period (outbound not failed: sent;
        inbound: received; failed), bookings (all, completed, cancelled), team members, and the
        types of the connected channel settings, in alphabetical order."""


class PartnerRepository(Protocol):
    """Every partner (`engage_core.partners`): administration and partner-key authentication.
    Slugs are unique (a unique index); key digests are unique."""

    def add(self, draft: PartnerDraft, key_digest: str, key_hint: str, now: datetime) -> Partner:
        """Store the partner, status `active`, `created_at` = `updated_at` = `now`."""

    def get(self, partner_id: int) -> Partner | None: ...

    def by_key_digest(self, key_digest: str) -> tuple[Partner, str] | None:
        """The partner whose key has this digest, with the stored digest (compared again in
        constant time)."""

    def slug_taken(self, slug: str) -> bool: ...

    def list(self) -> Sequence[Partner]:
        """Ascending id."""

    def set_key(self, partner_id: int, key_digest: str, key_hint: str, now: datetime) -> None: ...

    def update(self, partner: Partner) -> None:
        """Store `company_name`, `email`, `plan`, `status`, `client_seats_max`, `branding` and
        `updated_at`."""


class ClientRepository(Protocol):
    """Client workspaces of partners. Every method but `of_account`, `email_in_use` and
    `slug_taken` names the partner, and sees only that partner's clients: another partner's
    client is None, which the services turn into 404.

    Clients are returned with their schedule (`plans.ScheduledPlan`) and primary user joined in.
    A client row references its account (`ON DELETE CASCADE`); slugs and primary e-mail keys
    (`partners.email_key`) are unique across all clients (unique indexes)."""

    def lock_partner(self, partner_id: int) -> None:
        """Serialise seat-counting writes of this partner until the transaction ends (PostgreSQL:
        `SELECT 1 FROM partners WHERE id = :p FOR UPDATE`; SQLite: nothing, `BEGIN IMMEDIATE`).
        Called before `count` when adding a client, so concurrent creates never exceed
        `client_seats_max`."""

    def add(self, partner_id: int, account_id: int, draft: ClientDraft, now: datetime) -> Client:
        """Store the client of the new workspace `account_id`: status `pending_setup`, schedule
        `ScheduledPlan(draft.plan, cycle_anchor=now)`, `created_at` = `updated_at` = `now`."""

    def get(self, partner_id: int, client_id: int) -> Client | None: ...

    def of_account(self, account_id: int) -> Client | None:
        """The client whose workspace this is, of any partner; None for a workspace without a
        partner. Called on every authenticated request: a primary-key look-up."""

    def find(self, partner_id: int, filters: ClientFilter, page: PageRequest, now: datetime) -> Page[Client]:
        """`filters.matches(client, now)` semantics (the plan filter compares the plan in force at
        `now`: `CASE WHEN pending_from <= :now THEN pending_plan ELSE plan END`); newest first
        (`created_at`, then `id`, descending)."""

    def list(self, partner_id: int) -> Sequence[Client]:
        """Every client of the partner, ascending id (the usage summary)."""

    def usage(self, partner_id: int, start: datetime, end: datetime) -> Mapping[int, UsageCounts]:
        """For every client of the partner, by client id, what its `UsageRepository.report(start,
        end)` gives for `messages_sent`, `contacts_total` and `ai_agent_sessions` (the same
        definitions). In a constant number of statements whatever the number of clients: the
        counts are grouped by account over the partner's clients, never read one client at a time."""

    def count(self, partner_id: int) -> int:
        """Seats used: the partner's clients in any status."""

    def email_in_use(self, email: str) -> bool:
        """Whether a client of any partner has a primary user with this address (`email_key`)."""

    def slug_taken(self, slug: str) -> bool: ...

    def update(self, client: Client) -> None:
        """Store `company_name`, `status`, the schedule, the primary user's id, `timezone`,
        `suspended_at`, `suspension_reason` and `updated_at`."""

    def delete(self, partner_id: int, client_id: int) -> None:
        """Remove the client, its workspace account and every record of that workspace: every
        row of every table with `account_id` = the client's id (foreign keys `ON DELETE CASCADE`
        from `accounts`, or explicit deletes in dependency order), including the webhook delivery
        log, the counters and anything added by later migrations. Irreversible."""


class ImpersonationRepository(Protocol):
    """Single-use impersonation tokens, stored as SHA-256 digests only."""

    def add(self, token_digest: str, grant: Impersonation, expires_at: datetime, now: datetime) -> None: ...

    def redeem(self, token_digest: str, now: datetime) -> Impersonation | None:
        """Use the token: atomically mark it used and return its grant, when it exists, was never
        used and `now < expires_at`; otherwise None and nothing changes. One statement, so two
        concurrent redeems of one token never both succeed: `UPDATE impersonation_tokens SET
        used_at = :now WHERE digest = :d AND used_at IS NULL AND expires_at > :now RETURNING
        partner_id, account_id`."""


class PartnerWebhookRepository(Protocol):
    """Partner-level webhook subscriptions (`webhooks.Subscription`, events from
    `events.PARTNER_CATALOGUE`). Secrets are stored as ciphertext. Deliveries are attempts of
    kind `partner` in the same delivery log the workspace outbox writes (`webhooks.Claim.kind`)."""

    def add(
        self,
        partner_id: int,
        name: str,
        url: str,
        events: tuple[str, ...],
        is_active: bool,
        secret_ciphertext: str,
        now: datetime,
    ) -> Subscription: ...

    def get(self, partner_id: int, webhook_id: int) -> Subscription | None: ...

    def list(self, partner_id: int) -> Sequence[Subscription]:
        """Oldest first."""

    def update(self, partner_id: int, subscription: Subscription) -> None:
        """Store `name`, `url`, `events`, `is_active` and `updated_at`."""

    def delete(self, partner_id: int, webhook_id: int) -> None:
        """Delete the subscription and its delivery log."""


class PartnerUnitOfWork(Protocol):
    """One transaction across partners, their clients, plans and accounts. Leaving the block
    without `commit()` rolls back."""

    @property
    def partners(self) -> PartnerRepository: ...

    @property
    def clients(self) -> ClientRepository: ...

    @property
    def plans(self) -> PlanRepository: ...

    @property
    def accounts(self) -> AccountRepository: ...

    @property
    def impersonations(self) -> ImpersonationRepository: ...

    @property
    def partner_webhooks(self) -> PartnerWebhookRepository: ...

    def emit(self, partner_id: int, event: DomainEvent) -> None:
        """Record a partner-level event. `commit()` writes it to the outbox and queues one delivery
        attempt (kind `partner`, owner the partner) for each of the partner's active subscriptions
        that wants it, in the same transaction as the change."""

    def commit(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class RateLimiter(Protocol):
    """Counts hits per key in fixed windows (`engage_core.rate_limits`): in memory for one process
    (`rate_limits.InMemoryRateLimiter`), in Redis for several
    (`engage_connectors.redis_rate_limiter.RedisRateLimiter`). Atomic per hit: however many hits of
    one key race, at most `limit` of a window are allowed."""

    def hit(self, key: str, limit: int, window_seconds: int, now: datetime) -> Decision:
        """Count one hit of `key` in the window containing `now` and decide it. A store that cannot
        be asked raises `rate_limits.LimiterUnavailable`."""
