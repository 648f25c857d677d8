"""What messaging needs: storage of channels, messages and handles, the gateway to the
networks, where inbound traffic goes, and what campaigns say about a channel."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.channels import ChannelAccount, ChannelDraft
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.gateway import (
    Attachment,
    InboundMessage,
    LoginOutcome,
    QrLogin,
    Receipt,
    SentMessage,
    StatusChange,
    StatusReport,
)
from engage_core.messaging.handling import ConversationHandling
from engage_core.messaging.messages import Message, MessageDraft
from engage_core.messaging.people import LinkedInStanding, PeoplePage, PeopleQuery


class ChannelAccountRepository(Protocol):
    """Channel settings of one account: at most one per channel type (a unique index on
    `(account_id, type)`), and a provider account id belongs to at most one setting across every
    account (a unique index on `provider_account_id`, which is None only for a login the provider
    refused before creating an account)."""

    def add(self, draft: ChannelDraft, now: datetime) -> ChannelAccount:
        """Store a new setting in phase `pending`: `sync_status` `CONNECTING`, `is_connected` false,
        `last_synced_at`, `error` and `connected_at` None, `created_at` = `updated_at` = `now`.
        `Conflict` when the type has a setting already (one created concurrently since the caller
        looked: the storage decides)."""

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

    def handle_of(self, contact_id: int, channel: str) -> str | None:
        """The contact's handle on this channel, if it has one."""

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

    def add_many(self, drafts: Sequence[MessageDraft], now: datetime) -> Sequence[Message]:
        """Store the messages in order, each as `add` stores it (a batch's messages in one round
        trip where the storage can); raises as `add` does, the unit of work then to be left
        uncommitted."""

    def get(self, message_id: int) -> Message | None:
        """The message `message_id`, or None."""

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
        - `contact_name`: the contact's current name;
        - `handled_by`: the contact's `ConversationHandlingRepository` state (`ai` without one).

        `handled_by` keeps only the contacts in that state.

        Summaries are ordered newest first by their last message (`last_message_at` descending,
        then that message's id descending). `total` counts the summaries. The adapter must not read
        every message of the account per call (an index on `(account_id, contact_id, created_at,
        id)` or a maintained summary table)."""

    def mark_read(self, contact_id: int, now: datetime) -> int:
        """Set every unread message of the contact (inbound, status not `read`) to `read` with
        `updated_at` = `now`; how many changed."""


class ConversationHandlingRepository(Protocol):
    """Who answers each contact's conversation (`engage_core.messaging.handling`), one row per contact
    whose state ever moved: a contact without one is handled by the AI with no context reset. A row
    is deleted with its contact; its `assignee_id` names a team member of the account.

    Concurrency: in a write unit of work, from `get` until the transaction ends, no other write unit
    of work gets the same contact's state, so moves of one conversation apply one after the other,
    each seeing the one before (even where there is no row yet to lock). SQLite has one writer at a
    time; PostgreSQL locks the contact's row (`FOR NO KEY UPDATE`, which messages being added for the
    contact do not wait for)."""

    def get(self, contact_id: int) -> ConversationHandling | None:
        """The contact's stored state, or None when it never moved."""

    def put(self, handling: ConversationHandling) -> None:
        """Store the state of `handling.contact_id` (created, or replacing the stored one): every
        field. The contact is the account's."""

    def unassign_member(self, member_id: int, now: datetime) -> int:
        """Clear `assignee_id` (and set `updated_at` to `now`) on every state assigned to the team
        member, who is about to be deleted; how many. They stay `human`."""


class ChannelDirectory(Protocol):
    """Which account owns a provider account: provider callbacks name only the provider's id."""

    def owner_of(self, provider_account_id: str) -> int | None:
        """The id of the account whose channel setting has this provider account id, if any."""


@runtime_checkable
class FileSender(Protocol):
    """A gateway that can send a file with a message (`MEDIA_CHANNELS` only). Optional: a gateway
    without it sends the text alone, and nothing else changes."""

    def send_file(self, provider_account_id: str, recipient: str, text: str, attachment: Attachment) -> SentMessage:
        """Send `attachment` to `recipient` with `text` as its caption, as one message."""


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

    def search_people(self, provider_account_id: str, query: PeopleQuery) -> PeoplePage:
        """LinkedIn: the people the account's search finds for `query`, one page."""

    def invite(self, provider_account_id: str, provider_id: str, note: str | None) -> SentMessage:
        """LinkedIn: send the member a connection invitation, with `note` (at most 200 characters)
        when given. A member already connected or invited is `GatewayRejected`."""

    def linkedin_standing(self, provider_account_id: str) -> LinkedInStanding:
        """LinkedIn: the account's InMail balance and Recruiter-contract flag."""


class InboundSink(Protocol):
    """Where gateways hand what arrives from the networks (`engage_core.messaging.inbox_service`). Each call
    names the provider account; the sink finds the workspace that owns it. An account no workspace
    owns is ignored (None): a callback for an account disconnected meanwhile is not an error."""

    def receive(self, message: InboundMessage) -> Message | None:
        """Store an inbound message in the workspace that owns its provider account; None when none does."""

    def receipt(self, receipt: Receipt) -> Message | None:
        """Apply a delivery or read receipt; None when no workspace owns the account or no message
        matches."""

    def status_changed(self, change: StatusChange) -> ChannelAccount | None:
        """Apply a provider status change to the channel setting; None when it is gone or not owned."""


class CampaignGuard(Protocol):
    """Campaigns as the channel rules see them (SPEC 3 Campaign: a running or paused campaign blocks
    disconnecting its WhatsApp channel). `channels.NoActiveCampaigns` until campaigns exist."""

    def active_on(self, account_id: int, channel: str) -> bool:
        """Whether a campaign of the account is running or paused on this channel."""


class MessagingRepositories(Protocol):
    """The messaging area's repositories, as a workspace unit of work hands them out."""

    @property
    def channels(self) -> ChannelAccountRepository:
        """The channel settings."""

    @property
    def messages(self) -> MessageRepository:
        """The messages."""

    @property
    def handles(self) -> ContactHandleRepository:
        """The contacts' handles on the channels."""

    @property
    def conversation_handling(self) -> ConversationHandlingRepository:
        """Who answers each contact's conversation: the AI or a human."""


class ChannelDirectoryRepositories(Protocol):
    """What the administration unit of work hands out of this area: who owns a provider account."""

    @property
    def channel_directory(self) -> ChannelDirectory:
        """Which account owns a provider account."""
