"""Request and response bodies of the message and conversation endpoints (SPEC 2 Message and
Conversation summary, SPEC 4 Messages)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import attrs

from engage_core.messaging import conversations as conversations_domain
from engage_core.messaging import messages as domain
from engage_core.messaging.message_service import SendInput
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Id

MessageChannel = Literal["whatsapp", "telegram", "instagram", "linkedin"]
Direction = Literal["inbound", "outbound"]
MessageStatus = Literal["pending", "sent", "delivered", "read", "failed"]
MessageText = Annotated[str, Text(max_length=domain.CONTENT_MAX, blank=False), Doc(example="Your order has shipped.")]


@renders(domain.Message)
@attrs.frozen
class Message:
    """A message of a conversation (SPEC 2). `error` (why a failed message did not go) is an
    addition to the SPEC fields."""

    id: int
    contact_id: int
    direction: Direction
    channel: MessageChannel
    content: str
    status: MessageStatus
    sent_at: datetime | None
    created_at: datetime
    error: str | None


@structures_into(SendInput)
@attrs.frozen
class MessageSend:
    """A text message to a contact, sent through the connected account of the contact's channel."""

    contact_id: Id
    message: MessageText


# Also renders the core `Message` (`send` returns one), unmarked: `renders` keeps one response class per
# core class, here `Message`, whose fields include these.
@attrs.frozen
class SentMessage:
    """The stored message. When it could not be delivered, `status` is `failed` and `error` says why
    (and the envelope's `success` is false)."""

    id: int
    contact_id: int
    channel: MessageChannel
    content: str
    status: MessageStatus
    sent_at: datetime | None
    error: str | None


@attrs.frozen
class MessageFilters:
    """Query filters of `GET /contacts/{contact_id}/messages`."""

    direction: Direction | None = None


@renders(conversations_domain.ConversationSummary)
@attrs.frozen
class ConversationSummary:
    """A contact's conversation (SPEC 2): its newest message and how many inbound messages are unread."""

    contact_id: int
    contact_name: str
    channel: MessageChannel
    last_message: str
    last_message_at: datetime
    unread_count: int


@structures_into(conversations_domain.ConversationFilter)
@attrs.frozen
class ConversationFilters:
    """Query filters of `GET /conversations`."""

    channel: MessageChannel | None = attrs.field(
        default=None,
        metadata={"description": "Only messages of this channel count; contacts without any are left out."},
    )
    contact_id: Id | None = None


@attrs.frozen
class ConversationRead:
    """A conversation marked read: how many inbound messages became `read`."""

    contact_id: int
    marked_read: int
