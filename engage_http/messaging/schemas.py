"""Request and response bodies of the message and conversation endpoints (SPEC 2 Message and
Conversation summary, SPEC 4 Messages), and of who answers a conversation (beyond the spec)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import attrs

from engage_core.messaging import conversations as conversations_domain
from engage_core.messaging import handling as handling_domain
from engage_core.messaging import messages as domain
from engage_core.messaging.message_service import SendInput
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Id

MessageChannel = Literal["whatsapp", "telegram", "instagram", "linkedin"]
Direction = Literal["inbound", "outbound"]
MessageStatus = Literal["pending", "sent", "delivered", "read", "failed"]
MessageText = Annotated[str, Text(max_length=domain.CONTENT_MAX, blank=False), Doc(example="Your order has shipped.")]
HandledBy = Literal["ai", "pending", "human"]
"""Who answers a conversation: the AI, nobody yet (the AI handed over and waits for a human), a human."""


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
    handled_by: HandledBy = attrs.field(
        metadata={"description": "Beyond the spec: who answers the conversation (`pending`: waiting for a human)."}
    )


@structures_into(conversations_domain.ConversationFilter)
@attrs.frozen
class ConversationFilters:
    """Query filters of `GET /conversations`."""

    channel: MessageChannel | None = attrs.field(
        default=None,
        metadata={"description": "Only messages of this channel count; contacts without any are left out."},
    )
    contact_id: Id | None = None
    handled_by: HandledBy | None = attrs.field(
        default=None,
        metadata={"description": "Beyond the spec: only the conversations this one answers (`pending`: waiting)."},
    )


@attrs.frozen
class ConversationRead:
    """A conversation marked read: how many inbound messages became `read`."""

    contact_id: int
    marked_read: int


@renders(handling_domain.ConversationHandling)
@attrs.frozen
class ConversationHandling:
    """Who answers a contact's conversation (beyond the spec; the web chat's `handled_by` values)."""

    contact_id: int
    handled_by: HandledBy = attrs.field(
        metadata={
            "description": "`ai`: the AI agent answers; `pending`: the AI handed over and waits for a human; "
            "`human`: a person took over and the AI is silent."
        }
    )
    reason: str | None = attrs.field(metadata={"description": "Why the AI handed over (while pending or human)."})
    assignee_id: int | None = attrs.field(metadata={"description": "The team member who took over, if named."})
    context_since: datetime | None = attrs.field(
        metadata={"description": "The AI's last resolve: it is shown only the messages that came after."}
    )
    updated_at: datetime | None = attrs.field(metadata={"description": "The last move; null if it never moved."})


@attrs.frozen
class ConversationTakeOver:
    """Who takes the conversation over: a team member of the workspace (its assignee), or nobody named."""

    team_member_id: Id | None = None
