"""Messages: send, receive, receipts, conversations, and marking a conversation read (SPEC 4 Messages).

The status rules are in `engage_core.messaging.messages`. Sending routes through the connected account of
the contact's channel (`contact.type`) and addresses the contact by phone (WhatsApp, Telegram) or
by its handle on the channel (Instagram, LinkedIn). The message is stored before the gateway is
called and the gateway's answer is applied in a second transaction, so neither a provider outage
nor a crash in between loses it: it is `failed` with the provider's error, or still `pending`.

Inbound messages find their contact the same way (phone or handle per channel) and create it when
there is none (`contact.created`, source `inbound`). A contact's `last_message_at` follows every
message received or sent; it is bookkeeping, not an edit: it neither moves `updated_at` nor emits
`contact.updated`.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import attrs

from engage_core.campaigns.receipts import campaign_receipt
from engage_core.contacts.model import Contact, ContactDraft
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.phones import to_e164
from engage_core.kernel.validation import one_of, required_text
from engage_core.messaging.channels import CHANNEL_TYPES, QR_CHANNELS, ChannelAccount
from engage_core.messaging.conversations import ConversationFilter, ConversationSummary
from engage_core.messaging.gateway import MEDIA_CHANNELS, Attachment, GatewayError, InboundMessage, Receipt, SentMessage
from engage_core.messaging.handling import HANDLED_BY
from engage_core.messaging.messages import (
    CONTENT_MAX,
    DIRECTIONS,
    RECEIPT_STATUSES,
    Message,
    MessageDraft,
    apply_receipt,
    mark_failed,
    mark_sent,
)
from engage_core.messaging.ports import ChannelGateway, FileSender
from engage_core.plans.entitlements import Entitlements, PlanLimits
from engage_core.plans.model import MESSAGES_PER_MONTH, Plan
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

PHONE_ADDRESSED = QR_CHANNELS
"""Channels that address a contact by its phone; the others by its handle on the channel."""
INBOUND_SOURCE = "inbound"
"""`source` of a contact created by a message it sent."""
BLACKLISTED = "The contact is blacklisted; messages are not sent to it."
SENT_NOTICE = "Message sent successfully."
FAILED_NOTICE = "The message could not be sent."
NAME_MAX = 255

ReceivedHook = Callable[[WorkspaceUnitOfWork, Message, datetime], None]
"""Told of every new inbound message, in the transaction that stores it (before its commit): what
follows a message (an automatic reply) is queued with it, so a crash loses both or neither."""
Along = Callable[[WorkspaceUnitOfWork, Message], None]
"""Runs in the transaction that stores an outbound message, before its commit: records what goes
with it (an automatic reply), or raises to store nothing."""


@attrs.frozen
class SendInput:
    """Fields of `POST /messages/send`."""

    contact_id: int
    message: str
    attachment: Attachment | None = None
    """A file to send with the message, its text the caption (automatic replies attach a product's
    image): sent where the channel takes files (`MEDIA_CHANNELS`) and the gateway can send them
    (`FileSender`); elsewhere the text goes alone."""


@attrs.frozen
class SendResult:
    """The stored message and whether it went. `notice` is the response's `message`."""

    message: Message

    @property
    def success(self) -> bool:
        """Whether the message went (its status is not `failed`)."""
        return self.message.status != "failed"

    @property
    def notice(self) -> str:
        """The response's `message`: the sent notice, or the failed one."""
        return SENT_NOTICE if self.success else FAILED_NOTICE


@attrs.frozen
class _Route:
    provider_account_id: str
    recipient: str


class MessageService:
    """Messages: sending, what arrives from the networks (messages and receipts), conversations, and
    marking a conversation read."""

    def __init__(
        self, uow: UnitOfWorkFactory, clock: Clock, gateway: ChannelGateway, entitlements: Entitlements | None = None
    ) -> None:
        """`entitlements` enforces `messages_per_month` on sends (none without it)."""
        self._uow = uow
        self._clock = clock
        self._gateway = gateway
        self._limits = PlanLimits(entitlements)
        self._received_hooks: list[ReceivedHook] = []

    def when_received(self, hook: ReceivedHook) -> None:
        """Call `hook` for every new inbound message (not for a repeated one), in the transaction that
        stores it. Another area's wiring registers it: messaging knows nothing of what follows."""
        self._received_hooks.append(hook)

    # -- reading ------------------------------------------------------------------------------

    def conversations(
        self, account_id: int, filters: ConversationFilter, page: PageRequest
    ) -> Page[ConversationSummary]:
        """`GET /conversations`: one summary per contact, newest first, with who answers it.

        Raises :class:`.ValidationFailed` for an unknown `channel` or `handled_by` filter."""
        if filters.channel is not None:
            one_of("channel", filters.channel, CHANNEL_TYPES)
        if filters.handled_by is not None:
            one_of("handled_by", filters.handled_by, HANDLED_BY)
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.messages.conversations(filters, page)

    def for_contact(self, account_id: int, contact_id: int, direction: str | None, page: PageRequest) -> Page[Message]:
        """`GET /contacts/{contact_id}/messages`, newest first; only `direction`'s when given.

        Raises :class:`.ValidationFailed` for an unknown direction; :class:`.NotFound` when the contact
        is not in the account."""
        if direction is not None:
            one_of("direction", direction, DIRECTIONS)
        with self._uow.workspace(account_id, readonly=True) as uow:
            _contact(uow, contact_id)
            return uow.messages.for_contact(contact_id, direction, page)

    # -- sending ------------------------------------------------------------------------------

    def send(
        self, account_id: int, data: SendInput, *, plan: Plan | None = None, along: Along | None = None
    ) -> SendResult:
        """`POST /messages/send`. Emits `message.sent` when the provider accepted the message. A message
        that cannot go is stored `failed` with the reason in `error` (`SendResult.success` is False): a
        blacklisted contact, no connected account on the contact's channel, no address for the contact
        on it, or the provider's refusal or outage. `plan`: the plan in force, when the caller has just
        read it; None reads it. `along` runs in the transaction storing the message; whatever it
        raises is raised here, with nothing stored and nothing sent.

        Raises :class:`.ValidationFailed` for a blank or too long message; :class:`.NotFound` when the
        contact is not in the account; :class:`.PlanLimitReached` past the plan's `messages_per_month`."""
        content = required_text("message", data.message, max_length=CONTENT_MAX)
        now = self._clock.now()
        plan = self._limits.plan_of(account_id, plan)
        with self._uow.workspace(account_id) as uow:
            contact = _contact(uow, data.contact_id)
            route, error = _route(uow, contact)
            status = "failed" if error is not None else "pending"
            draft = MessageDraft(contact.id, "outbound", contact.type, content, status, error=error)
            self._limits.reserve(uow, plan, MESSAGES_PER_MONTH, now)  # every stored outbound message counts
            message = uow.messages.add(draft, now)
            if along is not None:
                along(uow, message)
            uow.commit()
        if route is None:
            return SendResult(message)
        return SendResult(self._deliver(account_id, message, route, data.attachment))

    def deliver(self, account_id: int, message_id: int, attachment: Attachment | None = None) -> Message:
        """Send again a stored outbound message still `pending` (its sender crashed between storing
        and settling it); any other message is returned as it is. The provider may have taken the
        first attempt already: a crash in that window can send it twice, never lose it. `attachment`:
        the file the first attempt carried (its sender knows it; the message does not keep it).

        Raises :class:`.NotFound` when the account has no such message."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            message = uow.messages.get(message_id)
            if message is None:
                raise NotFound("Message")
            if message.direction != "outbound" or message.status != "pending":
                return message
            route, error = _route(uow, _contact(uow, message.contact_id))
        if route is None:
            return self._settle(account_id, message, None, error)
        return self._deliver(account_id, message, route, attachment)

    def _deliver(self, account_id: int, message: Message, route: _Route, attachment: Attachment | None) -> Message:
        gateway = self._gateway
        try:
            sent: SentMessage | None
            if attachment is not None and message.channel in MEDIA_CHANNELS and isinstance(gateway, FileSender):
                sent = gateway.send_file(route.provider_account_id, route.recipient, message.content, attachment)
            else:
                sent = gateway.send(route.provider_account_id, route.recipient, message.content)
            error = None
        except GatewayError as exc:
            sent, error = None, exc.message
        return self._settle(account_id, message, sent, error)

    def _settle(self, account_id: int, message: Message, sent: SentMessage | None, error: str | None) -> Message:
        """Record the gateway's answer to a pending message."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            stored = uow.messages.get(message.id)
            if stored is None or stored.status != "pending":  # its contact was deleted meanwhile
                return message
            if sent is None:
                settled = mark_failed(stored, error or FAILED_NOTICE, now)
            else:
                settled = mark_sent(stored, sent.provider_message_id, sent.sent_at, now)
                touch_contact(uow, settled.contact_id, now)
                uow.emit(DomainEvent("message.sent", settled.event_payload(), now))
            uow.messages.update(settled)
            uow.commit()
        return settled

    # -- what arrives from the networks -------------------------------------------------------

    def receive(self, account_id: int, inbound: InboundMessage) -> Message:
        """Store an inbound message (once: the same provider message again returns the stored one, with no
        event), creating its contact if new (`contact.created`); emits `message.received`.

        Copies racing each other (a provider retry, two processes handed the same callback) are stored
        once too: `_channel` holds the channel's setting until the transaction ends, so they run one
        after the other and every later one finds the message, before creating a contact.

        Raises :class:`.NotFound` when no channel setting of the account has the provider account;
        :class:`.ValidationFailed` on `sender` for a sender without a valid phone or handle."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            # First: the look-up below is only safe once the setting is held (see the docstring).
            channel = _channel(uow, inbound.provider_account_id)
            existing = uow.messages.by_provider_id(channel.type, inbound.provider_message_id)
            if existing is not None:
                return existing
            contact = _sender(uow, channel.type, inbound, now)
            draft = MessageDraft(
                contact_id=contact.id,
                direction="inbound",
                channel=channel.type,
                content=inbound.text,
                status="delivered",
                sent_at=inbound.received_at,
                provider_message_id=inbound.provider_message_id,
            )
            message = uow.messages.add(draft, now)
            touch_contact(uow, contact.id, now)
            uow.emit(DomainEvent("message.received", message.event_payload(), now))
            for hook in self._received_hooks:
                hook(uow, message, now)
            uow.commit()
        return message

    def receipt(self, account_id: int, receipt: Receipt) -> Message | None:
        """Apply a delivery or read receipt: forward only. The message as it is afterwards; None when no
        message of the account has that provider id. A campaign's message moves its recipient (and
        the campaign's counters) forward with it, in the same transaction.

        Raises :class:`.ValidationFailed` for an unknown receipt status; :class:`.NotFound` when no
        channel setting of the account has the provider account."""
        one_of("status", receipt.status, RECEIPT_STATUSES)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            channel = _channel(uow, receipt.provider_account_id)
            message = uow.messages.by_provider_id(channel.type, receipt.provider_message_id)
            if message is None:
                return None
            moved = apply_receipt(message, receipt.status, now)
            if moved is None:
                return message
            uow.messages.update(moved)
            if moved.campaign_id is not None:
                campaign_receipt(uow, moved.id, moved.status, now)
            uow.commit()
        return moved

    def mark_read(self, account_id: int, contact_id: int) -> int:
        """`POST /conversations/{contact_id}/read`: every unread inbound message of the contact becomes
        `read`; how many did.

        Raises :class:`.NotFound` when the contact is not in the account."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _contact(uow, contact_id)
            count = uow.messages.mark_read(contact_id, now)
            uow.commit()
        return count


# -- helpers -----------------------------------------------------------------------------------


def _contact(uow: WorkspaceUnitOfWork, contact_id: int) -> Contact:
    contact = uow.contacts.get(contact_id)
    if contact is None:
        raise NotFound("Contact")
    return contact


def _channel(uow: WorkspaceUnitOfWork, provider_account_id: str) -> ChannelAccount:
    channel = uow.channels.by_provider_account(provider_account_id)
    if channel is None:
        raise NotFound("Channel")
    return channel


def _route(uow: WorkspaceUnitOfWork, contact: Contact) -> tuple[_Route | None, str | None]:
    """Where a message to the contact goes, or why it cannot go."""
    if contact.blacklisted:
        return None, BLACKLISTED
    channel = uow.channels.by_type(contact.type)
    if channel is None or not channel.is_connected or channel.provider_account_id is None:
        return None, f"No connected {contact.type} account to send from. Connect the channel first."
    if contact.type in PHONE_ADDRESSED:
        recipient = contact.phone
        what = "phone number"
    else:
        recipient = uow.handles.handle_of(contact.id, contact.type)
        what = "handle"
    if recipient is None:
        return None, f"The contact has no {contact.type} {what} to send to."
    return _Route(channel.provider_account_id, recipient), None


def clean_handle(raw: str) -> str:
    """A handle as stored: trimmed, without a leading `@`."""
    return raw.strip().removeprefix("@")


def _sender(uow: WorkspaceUnitOfWork, channel: str, inbound: InboundMessage, now: datetime) -> Contact:
    """The contact who sent `inbound`, created if new (matched by phone or by handle)."""
    name = (inbound.sender_name or "").strip()[:NAME_MAX]
    if channel in PHONE_ADDRESSED:
        try:
            phone = to_e164(inbound.sender)
        except ValueError as exc:
            raise ValidationFailed.on("sender", str(exc)) from exc
        found = uow.contacts.by_phone(channel, phone)
        if found is not None:
            return found
        contact = uow.contacts.add(
            ContactDraft(name=name or phone, type=channel, phone=phone, source=INBOUND_SOURCE), now
        )
    else:
        handle = clean_handle(inbound.sender)
        if not handle:
            raise ValidationFailed.on("sender", "The sender handle is required.")
        contact_id = uow.handles.contact_for(channel, handle)
        known = None if contact_id is None else uow.contacts.get(contact_id)
        if known is not None:
            return known
        contact = uow.contacts.add(ContactDraft(name=name or handle, type=channel, source=INBOUND_SOURCE), now)
        uow.handles.link(contact.id, channel, handle)
    uow.emit(DomainEvent("contact.created", contact.event_payload(), now))
    return contact


def touch_contact(uow: WorkspaceUnitOfWork, contact_id: int, now: datetime) -> None:
    """A message to or from the contact: its `last_message_at` follows (bookkeeping, no event)."""
    uow.contacts.touch((contact_id,), now)
