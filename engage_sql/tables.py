"""The schema as SQLAlchemy Core tables: the single source the migrations are checked against.

Tenancy is enforced by the schema as well as by the repositories: every workspace row carries
`account_id`, and link rows (tags on contacts, list members, segment overrides, notes) point at
their parents through composite foreign keys `(account_id, x_id) -> parent(account_id, id)`, so a
row can never join two accounts. Surrogate ids are never reused (`sqlite_autoincrement`), since
they are visible in the API and in webhooks.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    Numeric,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.types import Id, UTCDateTime

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_N_name)s",
        "pk": "pk_%(table_name)s",
    }
)


def _timestamps() -> tuple[Column[object], Column[object]]:
    return (
        Column("created_at", UTCDateTime(), nullable=False),
        Column("updated_at", UTCDateTime(), nullable=False),
    )


def _account_id() -> Column[int]:
    return Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False)


def _owned_by_account(child_column: str, parent: str) -> ForeignKeyConstraint:
    """`(account_id, child_column) -> parent(account_id, id)`, deleted with the parent."""
    return ForeignKeyConstraint(
        ["account_id", child_column], [f"{parent}.account_id", f"{parent}.id"], ondelete="CASCADE"
    )


accounts = Table(
    "accounts",
    metadata,
    Column("id", Id, primary_key=True),
    Column("name", String(255), nullable=False),
    Column("is_active", Boolean(), nullable=False),
    Column("allowed_origins", JSON(), nullable=False),
    Column("key_digest", String(64), nullable=False, unique=True),
    Column("key_hint", String(16), nullable=False),
    *_timestamps(),
    # A BCP 47 language tag in canonical case (`engage_core.accounts.model.parse_locale`; migration 0009).
    Column("locale", String(16), nullable=False, server_default="en"),
    sqlite_autoincrement=True,
)

account_counters = Table(
    "account_counters",
    metadata,
    # One row per account, changed in the same transaction as what it counts (migration 0002).
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("contacts", BigInteger, nullable=False, server_default="0"),
    # The last ticket number handed out (migration 0005): `UPDATE ... SET tickets = tickets + 1
    # RETURNING tickets` takes the next one under the row's lock (`SqlTicketRepository.next_number`).
    Column("tickets", BigInteger, nullable=False, server_default="0"),
)

contacts = Table(
    "contacts",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(255), nullable=False),
    # Casefolded copies of the searchable text: `search` and segment `contains` follow Python's
    # `str.casefold` exactly on both engines (SQLite's LIKE and lower() only fold ASCII).
    Column("name_key", Text(), nullable=False),
    Column("email", String(255)),
    Column("email_key", Text()),
    Column("phone", String(32)),
    Column("type", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("blacklisted", Boolean(), nullable=False),
    Column("source", String(50), nullable=False),
    Column("company", String(255)),
    Column("address", String(1000)),
    Column("country_id", Integer()),
    Column("last_message_at", UTCDateTime()),
    *_timestamps(),
    # One contact per phone and channel type, so an inbound message finds exactly one contact.
    UniqueConstraint("account_id", "type", "phone"),
    UniqueConstraint("account_id", "id"),
    # `GET /contacts`: WHERE account_id = ? ORDER BY created_at DESC, id DESC (scanned backwards).
    Index(None, "account_id", "created_at", "id"),
    sqlite_autoincrement=True,
)

tags = Table(
    "tags",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("title", String(100), nullable=False),
    Column("title_key", Text(), nullable=False),  # engage_core.contacts.tags.title_key(title)
    *_timestamps(),
    UniqueConstraint("account_id", "title_key"),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)

contact_tags = Table(
    "contact_tags",
    metadata,
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("tag_id", Id, nullable=False),
    PrimaryKeyConstraint("contact_id", "tag_id"),
    _owned_by_account("contact_id", "contacts"),
    _owned_by_account("tag_id", "tags"),
    Index(None, "tag_id"),
)

contact_lists = Table(
    "contact_lists",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(255), nullable=False),
    Column("status", Integer(), nullable=False),  # 1 active, 0 inactive (SPEC 2)
    *_timestamps(),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)

list_members = Table(
    "list_members",
    metadata,
    # A surrogate key records insertion order: `added_at` ties whenever two contacts are added
    # in the same microsecond (or under a clock that stands still).
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("list_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("added_at", UTCDateTime(), nullable=False),
    UniqueConstraint("list_id", "contact_id"),
    _owned_by_account("list_id", "contact_lists"),
    _owned_by_account("contact_id", "contacts"),
    Index(None, "list_id", "id"),
    Index(None, "contact_id"),
    sqlite_autoincrement=True,
)

segments = Table(
    "segments",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(255), nullable=False),
    Column("description", String(1000)),
    Column("match", String(8), nullable=False),  # all | any
    Column("conditions", JSON(), nullable=False),  # [Condition.to_json(), ...]
    *_timestamps(),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)

segment_overrides = Table(
    "segment_overrides",
    metadata,
    Column("account_id", Id, nullable=False),
    Column("segment_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("included", Boolean(), nullable=False),  # True: added by hand; False: removed by hand
    PrimaryKeyConstraint("segment_id", "contact_id"),
    _owned_by_account("segment_id", "segments"),
    _owned_by_account("contact_id", "contacts"),
    Index(None, "contact_id"),
)

contact_notes = Table(
    "contact_notes",
    metadata,
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("content", Text(), nullable=False),
    *_timestamps(),
    _owned_by_account("contact_id", "contacts"),
    Index(None, "account_id", "contact_id", "created_at"),
    sqlite_autoincrement=True,
)

events = Table(
    "events",
    metadata,
    # The transactional outbox: written by `commit()` in the transaction of the change itself.
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(100), nullable=False),
    Column("payload", JSON(), nullable=False),
    Column("occurred_at", UTCDateTime(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Index(None, "account_id", "id"),
    sqlite_autoincrement=True,
)

webhooks = Table(
    "webhooks",
    metadata,
    # Subscriptions of one account, or of one partner (migration 0008): exactly one of `account_id`
    # and `partner_id` is set. Both kinds share the delivery log and the worker; a partner's
    # attempts are kind `partner` with no `account_id`. The signing secret is kept encrypted.
    Column("id", Id, primary_key=True),
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE")),
    Column("partner_id", Id, ForeignKey("partners.id", ondelete="CASCADE")),
    Column("name", String(255), nullable=False),
    Column("url", String(2048), nullable=False),
    Column("events", JSON(), nullable=False),  # event names; empty means every event
    Column("is_active", Boolean(), nullable=False),
    Column("secret_ciphertext", Text(), nullable=False),
    *_timestamps(),
    CheckConstraint("(account_id IS NULL) <> (partner_id IS NULL)", name="owner"),
    UniqueConstraint("account_id", "id"),
    # A partner's subscriptions, oldest first; the outbox's look-up of them.
    Index(None, "partner_id", "id"),
    sqlite_autoincrement=True,
)

webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    # The delivery log, which is also the delivery queue: one row per attempt, written by the
    # outbox in the transaction of the change (attempt 1) and by the worker (the retries). A
    # delivery is the attempts sharing a `delivery_id`.
    #
    # `kind` and `owner_id` say whose subscription it is and so which envelope and signature to
    # use: ("workspace", account id) now, ("partner", partner id) once partner subscriptions
    # exist. Partner rows carry no `account_id`, so that kind needs no change to this table.
    Column("id", Id, primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("owner_id", Id, nullable=False),
    Column("account_id", Id),
    Column("webhook_id", Id, ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    Column("delivery_id", String(36), nullable=False),  # a UUID, the same for every attempt
    Column("event_type", String(100), nullable=False),
    Column("payload", JSON(), nullable=False),
    Column("attempt_number", Integer(), nullable=False),
    Column("status", String(16), nullable=False),  # pending | delivered | failed
    Column("response_status_code", Integer()),
    Column("response_body", Text()),  # engage_core.webhooks.model.excerpt(): bounded
    Column("error", Text()),
    Column("due_at", UTCDateTime(), nullable=False),
    Column("leased_until", UTCDateTime()),  # the claim of a worker; free again once passed
    Column("lease_token", String(64)),  # proves a completion comes from the current claim
    Column("created_at", UTCDateTime(), nullable=False),
    Column("completed_at", UTCDateTime()),
    CheckConstraint(
        "(kind = 'workspace' AND account_id IS NOT NULL AND owner_id = account_id)"
        " OR (kind = 'partner' AND account_id IS NULL)",
        name="owner",
    ),
    CheckConstraint("status IN ('pending', 'delivered', 'failed')", name="status"),
    # A workspace attempt belongs to a subscription of its own account (NULLs are not checked).
    _owned_by_account("webhook_id", "webhooks"),
    # The claim: WHERE status = 'pending' AND due_at <= ? ORDER BY due_at, id.
    Index(None, "status", "due_at", "id"),
    # The log: WHERE webhook_id = ? [AND status = ?] ORDER BY id DESC.
    Index(None, "webhook_id", "id"),
    Index(None, "webhook_id", "status", "id"),
    # One delivery's attempts (redelivery).
    Index(None, "webhook_id", "delivery_id"),
    sqlite_autoincrement=True,
)

knowledge_base_entries = Table(
    "knowledge_base_entries",
    metadata,
    # What every entry type shares (SPEC 2, Knowledge base entry). A type's parts live in tables of
    # their own that point back here (`products` for `product_catalog`); `content` is the text of a
    # `text` entry, the one part small enough to sit on the entry itself.
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("type", String(32), nullable=False),
    Column("title", String(255), nullable=False),
    Column("description", String(1000)),
    Column("business_description", String(5000)),
    Column("status", String(16), nullable=False),
    Column("content", Text()),
    Column("embedding_updated_at", UTCDateTime()),
    *_timestamps(),
    CheckConstraint("type IN ('text', 'document', 'voice', 'product_catalog', 'website')", name="type"),
    CheckConstraint("status IN ('active', 'inactive')", name="status"),
    UniqueConstraint("account_id", "id"),
    # `GET /knowledge-base`: WHERE account_id = ? [AND type = ?] [AND status = ?].
    Index(None, "account_id", "type", "status"),
    sqlite_autoincrement=True,
)

products = Table(
    "products",
    metadata,
    # The products of `product_catalog` entries, deleted with their entry. Prices are exact
    # decimals (`engage_core.kernel.money`): on SQLite a NUMERIC column keeps them as 8-byte floats, exact
    # for the 15 significant digits the money bounds allow, and read back quantized to two places.
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("knowledge_base_id", Id, nullable=False),
    Column("name", String(255), nullable=False),
    # Casefolded copies for `search` and the `category` filter (`str.casefold` on both engines).
    Column("name_key", Text(), nullable=False),
    Column("description", Text()),
    Column("sku", String(100)),
    Column("sku_key", Text()),
    Column("category", String(255)),
    Column("category_key", Text()),
    Column("price", Numeric(12, 2)),
    Column("currency", String(3), nullable=False),
    Column("stock_quantity", Integer()),  # NULL: stock not tracked
    Column("image_url", String(2048)),
    Column("is_available", Boolean(), nullable=False),
    Column("product_attributes", JSON(), nullable=False),
    Column("media_file_ids", JSON(), nullable=False),
    *_timestamps(),
    # Tracked stock never goes below zero, whatever a statement tries (`take_stock` checks it too).
    CheckConstraint("stock_quantity IS NULL OR stock_quantity >= 0", name="stock_quantity"),
    CheckConstraint("price IS NULL OR price >= 0", name="price"),
    UniqueConstraint("account_id", "id"),
    _owned_by_account("knowledge_base_id", "knowledge_base_entries"),
    # A catalog's products, ascending id (and the cascade from its entry).
    Index(None, "account_id", "knowledge_base_id", "id"),
    # `GET /products?category=`: WHERE account_id = ? AND category_key = ? ORDER BY id.
    Index(None, "account_id", "category_key", "id"),
    sqlite_autoincrement=True,
)

orders = Table(
    "orders",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    # No foreign key: like an item's `product_id`, the contact id stays on the order as history
    # when the contact is deleted (the service checks it belongs to the account when it is set).
    Column("contact_id", Id),
    Column("customer_name", String(255), nullable=False),
    Column("customer_phone", String(32)),
    Column("customer_email", String(255)),
    Column("status", String(16), nullable=False),
    Column("subtotal", Numeric(15, 2), nullable=False),
    Column("total", Numeric(15, 2), nullable=False),
    Column("currency", String(3), nullable=False),
    Column("shipping_address", String(1000)),
    Column("notes", Text()),
    Column("created_by", String(16), nullable=False),
    Column("external_reference", String(255)),  # the store's id of a store-sourced order
    Column("duplicate_key", String(64)),  # engage_core.commerce.orders.duplicate_key(): SHA-256 hex
    Column("cancelled_at", UTCDateTime()),
    Column("cancellation_reason", String(1000)),
    *_timestamps(),
    CheckConstraint(
        "status IN ('pending', 'confirmed', 'processing', 'shipped', 'delivered', 'cancelled')", name="status"
    ),
    CheckConstraint("created_by IN ('manual', 'ai_agent', 'api', 'web_chat', 'store_platform')", name="created_by"),
    UniqueConstraint("account_id", "id"),
    # One order per store order, however many imports race (NULLs, local orders, never collide).
    UniqueConstraint("account_id", "external_reference"),
    # `GET /orders`, newest first, unfiltered or by date range (created_at), and by each filter.
    Index(None, "account_id", "created_at", "id"),
    Index(None, "account_id", "status", "created_at", "id"),
    Index(None, "account_id", "contact_id", "created_at", "id"),
    Index(None, "account_id", "created_by", "created_at", "id"),
    # The duplicate window: WHERE account_id = ? AND duplicate_key = ? AND created_at > ?.
    Index(None, "account_id", "duplicate_key", "created_at"),
    sqlite_autoincrement=True,
)

order_items = Table(
    "order_items",
    metadata,
    # A line as it was placed: name, SKU and price are copies. `product_id` has no foreign key:
    # it stays when the product is deleted (and is NULL on store lines of unknown products).
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("order_id", Id, nullable=False),
    Column("product_id", Id),
    Column("product_name", String(255), nullable=False),
    Column("product_sku", String(100)),
    Column("quantity", Integer(), nullable=False),
    Column("unit_price", Numeric(12, 2), nullable=False),
    Column("total_price", Numeric(15, 2), nullable=False),
    CheckConstraint("quantity >= 1", name="quantity"),
    _owned_by_account("order_id", "orders"),
    # An order's lines in the order they were given (ids ascend).
    Index(None, "order_id", "id"),
    sqlite_autoincrement=True,
)

departments = Table(
    "departments",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("title", String(255), nullable=False),
    Column("title_key", Text(), nullable=False),  # engage_core.support.departments.title_key(title)
    *_timestamps(),
    # Also what lets racing first uses seed exactly one default department (ON CONFLICT DO NOTHING).
    UniqueConstraint("account_id", "title_key"),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)

team_members = Table(
    "team_members",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(255), nullable=False),
    Column("email", String(255), nullable=False),  # as written
    Column("email_key", Text(), nullable=False),  # engage_core.team.model.email_key(email): unique per account
    Column("role", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("password_hash", Text(), nullable=False),  # argon2id, self-describing; never read into TeamMember
    *_timestamps(),
    CheckConstraint("role IN ('admin', 'agent')", name="role"),
    CheckConstraint("status IN ('active', 'inactive')", name="status"),
    UniqueConstraint("account_id", "email_key"),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)

tickets = Table(
    "tickets",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("ticket_id", String(32), nullable=False),  # the reference, `TKT-000123`
    Column("subject", String(255), nullable=False),
    Column("body", Text(), nullable=False),
    Column("priority", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    # Both references are NULL when unset, and point into the ticket's own account. Their foreign
    # keys take no action: a composite key's SET NULL would null `account_id` too, so deleting a
    # department or a team member first clears the column on its tickets, in the same transaction
    # (`SqlDepartmentRepository.delete`, `SqlTicketRepository.unassign_member`), and the key
    # refuses any delete that did not.
    Column("department_id", Id),
    Column("assignee_id", Id),
    Column("last_reply_at", UTCDateTime()),
    Column("closed_at", UTCDateTime()),
    *_timestamps(),
    CheckConstraint("priority IN ('low', 'medium', 'high')", name="priority"),
    CheckConstraint("status IN ('open', 'answered', 'closed')", name="status"),
    UniqueConstraint("account_id", "ticket_id"),
    UniqueConstraint("account_id", "id"),
    ForeignKeyConstraint(["account_id", "department_id"], ["departments.account_id", "departments.id"]),
    ForeignKeyConstraint(["account_id", "assignee_id"], ["team_members.account_id", "team_members.id"]),
    # `GET /tickets`, newest first, unfiltered and by each filter.
    Index(None, "account_id", "created_at", "id"),
    Index(None, "account_id", "status", "created_at", "id"),
    Index(None, "account_id", "priority", "created_at", "id"),
    # Clearing a deleted department or team member (and the foreign keys' checks).
    Index(None, "account_id", "department_id"),
    Index(None, "account_id", "assignee_id"),
    sqlite_autoincrement=True,
)

ticket_replies = Table(
    "ticket_replies",
    metadata,
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("ticket_id", Id, nullable=False),  # the ticket's `id`, not its reference
    Column("reply", Text(), nullable=False),
    Column("type", String(16), nullable=False),
    # No foreign key: the author stays on the reply as history when the team member is deleted.
    Column("author_id", Id),
    Column("created_at", UTCDateTime(), nullable=False),
    CheckConstraint("type IN ('client', 'admin')", name="type"),
    _owned_by_account("ticket_id", "tickets"),
    # A ticket's replies, oldest first.
    Index(None, "ticket_id", "created_at", "id"),
    sqlite_autoincrement=True,
)

booking_types = Table(
    "booking_types",
    metadata,
    # Never deleted: bookings point at them (deactivated instead).
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(255), nullable=False),
    Column("duration_minutes", Integer(), nullable=False),
    Column("description", String(2000)),
    Column("is_active", Boolean(), nullable=False),
    *_timestamps(),
    CheckConstraint("duration_minutes BETWEEN 1 AND 1440", name="duration_minutes"),
    # Also serves `GET /bookings/types` (one account's types, ascending id).
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)

booking_resources = Table(
    "booking_resources",
    metadata,
    # Never deleted: bookings point at them (deactivated instead).
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(255), nullable=False),
    Column("type", String(100), nullable=False),
    Column("is_active", Boolean(), nullable=False),
    *_timestamps(),
    UniqueConstraint("account_id", "id"),
    sqlite_autoincrement=True,
)

bookings = Table(
    "bookings",
    metadata,
    Column("id", Id, primary_key=True),
    _account_id(),
    # No foreign key: like an order's, the contact id stays on the booking as history when the
    # contact is deleted (the service checks it belongs to the account when the booking is made).
    Column("contact_id", Id, nullable=False),
    Column("booking_type_id", Id, nullable=False),
    Column("resource_id", Id),  # NULL: the workspace's own calendar (no resources in use)
    Column("title", String(255), nullable=False),
    Column("starts_at", UTCDateTime(), nullable=False),
    Column("ends_at", UTCDateTime(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("notes", Text()),
    Column("cancelled_at", UTCDateTime()),
    Column("cancellation_reason", String(1000)),
    *_timestamps(),
    CheckConstraint("status IN ('pending', 'confirmed', 'cancelled', 'completed')", name="status"),
    CheckConstraint("ends_at > starts_at", name="ends_after_start"),
    UniqueConstraint("account_id", "id"),
    # Types and resources are never deleted, so these take no action (an account's deletion
    # cascades to all three tables at once).
    ForeignKeyConstraint(["account_id", "booking_type_id"], ["booking_types.account_id", "booking_types.id"]),
    ForeignKeyConstraint(["account_id", "resource_id"], ["booking_resources.account_id", "booking_resources.id"]),
    # The overlap check of one calendar under its lock: WHERE account_id = ? AND resource_id = ?
    # AND starts_at < ? AND ends_at > ?.
    Index(None, "account_id", "resource_id", "starts_at"),
    # `GET /bookings` (by starts_at, from/to) and a day's availability (live_between).
    Index(None, "account_id", "starts_at"),
    Index(None, "account_id", "contact_id", "starts_at"),
    sqlite_autoincrement=True,
)

working_hours = Table(
    "working_hours",
    metadata,
    # One row per account that set its hours; none means `engage_core.bookings.working_hours.DEFAULT_HOURS`.
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("timezone", String(64), nullable=False),  # an IANA name
    Column("schedule", JSON(), nullable=False),  # engage_core.bookings.working_hours.Schedule.document()
)

resource_working_hours = Table(
    "resource_working_hours",
    metadata,
    # A resource's own schedule (an override of the workspace's), in the workspace's timezone.
    Column("account_id", Id, nullable=False),
    Column("resource_id", Id, nullable=False),
    Column("schedule", JSON(), nullable=False),
    PrimaryKeyConstraint("account_id", "resource_id"),
    _owned_by_account("resource_id", "booking_resources"),
)

channel_accounts = Table(
    "channel_accounts",
    metadata,
    # A workspace's channel settings (`engage_core.messaging.channels`): at most one per type, and a provider
    # account belongs to one setting across the deployment (provider callbacks name only it).
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("type", String(16), nullable=False),
    Column("provider_account_id", String(255)),  # NULL: a login refused before the provider made one
    Column("username", String(255)),
    Column("sync_status", String(16), nullable=False),
    Column("is_connected", Boolean(), nullable=False),
    Column("checkpoint_type", String(100)),
    Column("error", Text()),
    Column("last_synced_at", UTCDateTime()),
    Column("connected_at", UTCDateTime()),
    *_timestamps(),
    CheckConstraint("type IN ('whatsapp', 'telegram', 'instagram', 'linkedin')", name="type"),
    CheckConstraint(
        "sync_status IN ('OK', 'CONNECTING', 'SYNC_SUCCESS', 'CREDENTIALS', 'ERROR', 'STOPPED', 'CREATION_FAIL')",
        name="sync_status",
    ),
    UniqueConstraint("account_id", "type"),
    # The directory's look-up (`ChannelDirectory.owner_of`); NULLs never collide.
    UniqueConstraint("provider_account_id"),
    sqlite_autoincrement=True,
)

contact_handles = Table(
    "contact_handles",
    metadata,
    # How Instagram and LinkedIn address a contact: one handle per contact and channel, and a
    # handle names one contact per channel. Deleted with the contact.
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("channel", String(16), nullable=False),
    Column("handle", String(255), nullable=False),
    PrimaryKeyConstraint("account_id", "contact_id", "channel"),
    UniqueConstraint("account_id", "channel", "handle"),
    _owned_by_account("contact_id", "contacts"),
)

messages = Table(
    "messages",
    metadata,
    Column("id", Id, primary_key=True),
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("direction", String(8), nullable=False),
    Column("channel", String(16), nullable=False),
    Column("content", Text(), nullable=False),
    Column("status", String(16), nullable=False),
    Column("error", Text()),
    Column("provider_message_id", String(255)),  # the network's id, which receipts name
    Column("sent_at", UTCDateTime()),
    *_timestamps(),
    CheckConstraint("direction IN ('inbound', 'outbound')", name="direction"),
    CheckConstraint("status IN ('pending', 'sent', 'delivered', 'read', 'failed')", name="status"),
    # Deleted with their contact (and its conversation summaries).
    _owned_by_account("contact_id", "contacts"),
    # Receipts and repeated inbound callbacks find a message by it; NULLs never collide.
    UniqueConstraint("account_id", "channel", "provider_message_id"),
    # A contact's messages newest first (`GET /contacts/{id}/messages`), and its unread ones.
    Index(None, "account_id", "contact_id", "created_at", "id"),
    # The `messages_per_month` limit and the usage report: one account's messages of a period.
    Index(None, "account_id", "direction", "created_at"),
    sqlite_autoincrement=True,
)

conversations = Table(
    "conversations",
    metadata,
    # `GET /conversations` without reading the messages: one summary row per contact and scope,
    # changed by `SqlMessageRepository` in the transaction of every message write. Scope `*` sums
    # up all of the contact's messages, a channel name only that channel's (the `channel` filter).
    # The last message is the newest by (created_at, id); its content and channel are read
    # through `last_message_id`.
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("scope", String(16), nullable=False),
    Column("last_message_id", Id, nullable=False),
    Column("last_message_at", UTCDateTime(), nullable=False),
    Column("unread_count", Integer(), nullable=False),  # inbound messages whose status is not `read`
    PrimaryKeyConstraint("account_id", "contact_id", "scope"),
    CheckConstraint("unread_count >= 0", name="unread_count"),
    _owned_by_account("contact_id", "contacts"),
    # A page, newest first: WHERE account_id = ? AND scope = ? ORDER BY last_message_at DESC,
    # last_message_id DESC (scanned backwards; contact_id lets a deep page pick its rows from it).
    Index("ix_conversations_newest", "account_id", "scope", "last_message_at", "last_message_id", "contact_id"),
)

conversation_totals = Table(
    "conversation_totals",
    metadata,
    # How many conversation rows an account has per scope: the `total` of a page without counting
    # them. Raised when a summary row is created, lowered when a contact's rows are deleted.
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("scope", String(16), nullable=False),
    Column("conversations", BigInteger, nullable=False),
    PrimaryKeyConstraint("account_id", "scope"),
)

# -- plans, partners and their clients (migration 0008) ---------------------------------------------

plans = Table(
    "plans",
    metadata,
    # Seeded with `engage_core.plans.SEED_PLANS` by the migration; changed, never added or removed.
    Column("id", Integer(), primary_key=True, autoincrement=False),
    Column("slug", String(32), nullable=False, unique=True),
    Column("name", String(100), nullable=False),
    Column("limits", JSON(), nullable=False),  # {limit name: integer}, every name of plans.LIMITS
    Column("features", JSON(), nullable=False),  # the enabled feature names, sorted
)

partners = Table(
    "partners",
    metadata,
    Column("id", Id, primary_key=True),
    Column("company_name", String(255), nullable=False),
    Column("slug", String(60), nullable=False, unique=True),
    Column("email", String(255), nullable=False),
    Column("plan", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("client_seats_max", Integer(), nullable=False),
    Column("key_digest", String(64), nullable=False, unique=True),  # SHA-256 of the partner key
    Column("key_hint", String(16), nullable=False),
    Column("logo_url", String(2048)),
    Column("primary_color", String(32)),
    Column("custom_domain", String(255)),
    *_timestamps(),
    CheckConstraint("status IN ('active', 'suspended', 'pending')", name="status"),
    CheckConstraint("client_seats_max >= 0", name="client_seats_max"),
    sqlite_autoincrement=True,
)

partner_clients = Table(
    "partner_clients",
    metadata,
    # A partner's client: one per workspace, deleted with it. The plan in force is a pure function
    # of the row and the clock (`engage_core.plans.ScheduledPlan`).
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("partner_id", Id, ForeignKey("partners.id"), nullable=False),
    Column("company_name", String(255), nullable=False),
    Column("company_key", Text(), nullable=False),  # casefolded, for `search`
    Column("slug", String(60), nullable=False, unique=True),
    Column("status", String(16), nullable=False),
    Column("plan", String(32), ForeignKey("plans.slug"), nullable=False),
    Column("cycle_anchor", UTCDateTime(), nullable=False),
    Column("pending_plan", String(32), ForeignKey("plans.slug")),
    Column("pending_from", UTCDateTime()),
    Column("primary_user_id", Id),  # NULL while `pending_setup`
    Column("primary_first_name", String(100), nullable=False),
    Column("primary_last_name", String(100), nullable=False),
    Column("primary_email", String(255), nullable=False),
    Column("primary_email_key", String(255), nullable=False, unique=True),  # engage_core.partners.model.email_key
    Column("primary_phone", String(32)),
    Column("timezone", String(64), nullable=False),
    Column("country_id", Integer()),
    Column("suspended_at", UTCDateTime()),
    Column("suspension_reason", String(1000)),
    *_timestamps(),
    CheckConstraint("status IN ('active', 'suspended', 'pending_setup')", name="status"),
    CheckConstraint("(pending_plan IS NULL) = (pending_from IS NULL)", name="pending"),
    # `GET /partner/clients`: WHERE partner_id = ? ORDER BY created_at DESC, account_id DESC.
    Index(None, "partner_id", "created_at", "account_id"),
)

impersonation_tokens = Table(
    "impersonation_tokens",
    metadata,
    # Single-use login links: only the SHA-256 of the token is kept. Redeeming is one UPDATE.
    Column("digest", String(64), primary_key=True),
    Column("partner_id", Id, ForeignKey("partners.id", ondelete="CASCADE"), nullable=False),
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("used_at", UTCDateTime()),
    Column("created_at", UTCDateTime(), nullable=False),
    Index(None, "account_id"),
    Index(None, "partner_id"),
)

partner_events = Table(
    "partner_events",
    metadata,
    # The partners' outbox (`partner.client.*`), written in the transaction of the change; the
    # deliveries go to `webhook_attempts` (kind `partner`) in the same transaction.
    Column("id", Id, primary_key=True),
    Column("partner_id", Id, ForeignKey("partners.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(100), nullable=False),
    Column("payload", JSON(), nullable=False),
    Column("occurred_at", UTCDateTime(), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Index(None, "partner_id", "id"),
    sqlite_autoincrement=True,
)
