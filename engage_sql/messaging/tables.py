"""Messaging's tables: channel settings, handles, messages, the conversation summaries and who answers
each conversation."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from engage_sql.schema import account_id, metadata, owned_by_account, timestamps
from engage_sql.types import Id, UTCDateTime

channel_accounts = Table(
    "channel_accounts",
    metadata,
    # A workspace's channel settings (`engage_core.messaging.channels`): at most one per type, and a provider
    # account belongs to one setting across the deployment (provider callbacks name only it).
    Column("id", Id, primary_key=True),
    account_id(),
    Column("type", String(16), nullable=False),
    Column("provider_account_id", String(255)),  # NULL: a login refused before the provider made one
    Column("username", String(255)),
    Column("sync_status", String(16), nullable=False),
    Column("is_connected", Boolean(), nullable=False),
    Column("checkpoint_type", String(100)),
    Column("error", Text()),
    Column("last_synced_at", UTCDateTime()),
    Column("connected_at", UTCDateTime()),
    *timestamps(),
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
    owned_by_account("contact_id", "contacts"),
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
    # The campaign that sent it (`message.sent`'s `campaign_id`); no foreign key: a deleted
    # campaign's messages stay in their conversations, still naming it.
    Column("campaign_id", Id),
    *timestamps(),
    CheckConstraint("direction IN ('inbound', 'outbound')", name="direction"),
    CheckConstraint("status IN ('pending', 'sent', 'delivered', 'read', 'failed')", name="status"),
    # Deleted with their contact (and its conversation summaries).
    owned_by_account("contact_id", "contacts"),
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
    owned_by_account("contact_id", "contacts"),
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


message_months = Table(
    "message_months",
    metadata,
    # How many outbound messages an account has stored per calendar month (UTC): the
    # `messages_per_month` limit of every send without counting them (`month_tally`). Raised as
    # outbound messages are stored, lowered when a contact's messages are deleted (migration 0029).
    Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("month", UTCDateTime(), nullable=False),  # the month's first instant
    Column("outbound", BigInteger, nullable=False),
    PrimaryKeyConstraint("account_id", "month"),
)


conversation_handling = Table(
    "conversation_handling",
    metadata,
    # Who answers a contact's conversation (`engage_core.messaging.handling`): a row only for contacts
    # whose state ever moved; none means `ai`, never reset. Deleted with the contact.
    Column("account_id", Id, nullable=False),
    Column("contact_id", Id, nullable=False),
    Column("handled_by", String(16), nullable=False),
    Column("reason", Text()),
    # The team member who took the conversation over. The key takes no action (a composite SET NULL
    # would null `account_id` too): deleting a member first clears it here, in the same transaction
    # (`SqlConversationHandlingRepository.unassign_member`), and the key refuses a delete that did not.
    Column("assignee_id", Id),
    Column("context_since", UTCDateTime()),
    Column("updated_at", UTCDateTime(), nullable=False),
    PrimaryKeyConstraint("account_id", "contact_id"),
    CheckConstraint("handled_by IN ('ai', 'pending', 'human')", name="handled_by"),
    owned_by_account("contact_id", "contacts"),
    ForeignKeyConstraint(["account_id", "assignee_id"], ["team_members.account_id", "team_members.id"]),
    # `GET /conversations?handled_by=pending` (and `human`): the few conversations in a state, and
    # `handled_by=ai` leaves them out of the newest-first scan.
    Index(None, "account_id", "handled_by", "contact_id"),
    # Clearing a deleted team member (and the foreign key's checks).
    Index(None, "account_id", "assignee_id"),
)
