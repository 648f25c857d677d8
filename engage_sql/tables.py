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
    sqlite_autoincrement=True,
)

account_counters = Table(
    "account_counters",
    metadata,
    # One row per account, changed in the same transaction as what it counts (migration 0002).
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("contacts", BigInteger, nullable=False, server_default="0"),
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
    Column("title_key", Text(), nullable=False),  # engage_core.tags.title_key(title)
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
    # Subscriptions of one account. The signing secret is kept encrypted (`SecretCipher`).
    Column("id", Id, primary_key=True),
    _account_id(),
    Column("name", String(255), nullable=False),
    Column("url", String(2048), nullable=False),
    Column("events", JSON(), nullable=False),  # event names; empty means every event
    Column("is_active", Boolean(), nullable=False),
    Column("secret_ciphertext", Text(), nullable=False),
    *_timestamps(),
    UniqueConstraint("account_id", "id"),
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
    Column("response_body", Text()),  # engage_core.webhooks.excerpt(): bounded
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
