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
from engage_http.fields import Id

MessageChannel = Literal["whatsapp", "telegram", "instagram", "linkedin"]
Direction = Literal["inbound", "outbound"]
MessageStatus = Literal["pending", "sent", "delivered", "read", "failed"]
MessageText = Annotated[str, Text(max_length=domain.CONTENT_MAX, blank=False), Doc(example="Your order has shipped.")]


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

    @classmethod
    def from_domain(cls, message: domain.Message) -> Message:
        return cls(
            id=message.id,
            contact_id=message.contact_id,
            direction=message.direction,  # type: ignore[arg-type]
            channel=message.channel,  # type: ignore[arg-type]
            content=message.content,
            status=message.status,  # type: ignore[arg-type]
            sent_at=message.sent_at,
            created_at=message.created_at,
            error=message.error,
        )


@attrs.frozen
class MessageSend:
    """A text message to a contact, sent through the connected account of the contact's channel."""

    contact_id: Id
    message: MessageText

    def to_input(self) -> SendInput:
        return SendInput(contact_id=self.contact_id, message=self.message)


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

    @classmethod
    def from_domain(cls, message: domain.Message) -> SentMessage:
        return cls(
            id=message.id,
            contact_id=message.contact_id,
            channel=message.channel,  # type: ignore[arg-type]
            content=message.content,
            status=message.status,  # type: ignore[arg-type]
            sent_at=message.sent_at,
            error=message.error,
        )


@attrs.frozen
class MessageFilters:
    """Query filters of `GET /contacts/{contact_id}/messages`."""

    direction: Direction | None = None


@attrs.frozen
class ConversationSummary:
    """A contact's conversation (SPEC 2): its newest message and how many inbound messages are unread."""

    contact_id: int
    contact_name: str
    channel: MessageChannel
    last_message: str
    last_message_at: datetime
    unread_count: int

    @classmethod
    def from_domain(cls, summary: conversations_domain.ConversationSummary) -> ConversationSummary:
        return cls(
            contact_id=summary.contact_id,
            contact_name=summary.contact_name,
            channel=summary.channel,  # type: ignore[arg-type]
            last_message=summary.last_message,
            last_message_at=summary.last_message_at,
            unread_count=summary.unread_count,
        )


@attrs.frozen
class ConversationFilters:
    """Query filters of `GET /conversations`."""

    channel: MessageChannel | None = attrs.field(
        default=None,
        metadata={"description": "Only messages of this channel count; contacts without any are left out."},
    )
    contact_id: Id | None = None

    def to_filter(self) -> conversations_domain.ConversationFilter:
        return conversations_domain.ConversationFilter(channel=self.channel, contact_id=self.contact_id)


@attrs.frozen
class ConversationRead:
    """A conversation marked read: how many inbound messages became `read`."""

    contact_id: int
    marked_read: int
