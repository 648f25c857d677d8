"""Messages exchanged with contacts, and how their status moves (SPEC 2, 3, 6).

Statuses and moves, the only ones there are::

    pending   -> sent | failed          (outbound: the gateway accepted it, or it could not go)
    sent      -> delivered | read       (receipts)
    delivered -> read                   (a read receipt; for inbound messages: marking read)
    read, failed: final

An outbound message is stored `pending` before it goes to the gateway, so a crash in between
leaves a record, never nothing; a message that cannot go (no connected account, a blacklisted
contact, a provider failure) is stored `failed` with `error` saying why. An inbound message is
stored `delivered` (it has arrived) and becomes `read` when its conversation is marked read, so
"unread" means exactly: inbound and not `read`.

Receipts only move forward: a `delivered` receipt after `read` changes nothing, a `read` receipt
may skip `delivered`, and a failed message stays failed whatever arrives later.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.pagination import PageLimits

DIRECTIONS: tuple[str, ...] = ("inbound", "outbound")
MESSAGE_STATUSES: tuple[str, ...] = ("pending", "sent", "delivered", "read", "failed")
RECEIPT_STATUSES: tuple[str, ...] = ("delivered", "read")
MOVES: Mapping[str, tuple[str, ...]] = {
    "pending": ("sent", "failed"),
    "sent": ("delivered", "read"),
    "delivered": ("read",),
    "read": (),
    "failed": (),
}
"""Every status's outgoing moves."""
FINAL = frozenset(status for status, moves in MOVES.items() if not moves)
CONTENT_MAX = 4096
"""Longest text a send accepts (WhatsApp's limit; SPEC 8 gives the same for web chat)."""

MESSAGES = PageLimits(default=15)
"""`GET /contacts/{contact_id}/messages`: SPEC 8 gives no numbers; like conversations."""


@attrs.frozen
class Message:
    """One message of a conversation. `provider_message_id` is the network's id (receipts name it);
    `error` says why a failed message did not go."""

    id: int
    contact_id: int
    direction: str
    channel: str
    content: str
    status: str
    sent_at: datetime | None
    created_at: datetime
    updated_at: datetime
    error: str | None = None
    provider_message_id: str | None = None
    campaign_id: int | None = None
    """The campaign that sent it, for a campaign's message."""

    @property
    def is_unread(self) -> bool:
        return self.direction == "inbound" and self.status != "read"

    def event_payload(self) -> Mapping[str, Any]:
        """`message.received` (inbound) or `message.sent` (outbound) data (SPEC 6)."""
        inbound = self.direction == "inbound"
        return {
            "id": self.id,
            "contact_id": self.contact_id,
            "value": self.content,
            "message_type": "text",
            "message_by": "contact" if inbound else "client",
            "status": "received" if inbound else self.status,
            "source": self.channel,
            "header_image": None,
            "header_video": None,
            "header_document": None,
            "header_audio": None,
            "campaign_id": self.campaign_id,
            "sent_at": format_optional(self.sent_at),
            "created_at": format_timestamp(self.created_at),
        }


@attrs.frozen
class MessageDraft:
    """A message before it has an id."""

    contact_id: int
    direction: str
    channel: str
    content: str
    status: str
    sent_at: datetime | None = None
    error: str | None = None
    provider_message_id: str | None = None
    campaign_id: int | None = None


def can_move(status: str, to: str) -> bool:
    return to in MOVES[status]


def mark_sent(message: Message, provider_message_id: str | None, sent_at: datetime, now: datetime) -> Message:
    """The gateway accepted a pending message."""
    if not can_move(message.status, "sent"):
        raise ValueError(f"A {message.status} message cannot become sent.")
    return attrs.evolve(
        message, status="sent", provider_message_id=provider_message_id, sent_at=sent_at, updated_at=now
    )


def mark_failed(message: Message, error: str, now: datetime) -> Message:
    """A pending message could not go."""
    if not can_move(message.status, "failed"):
        raise ValueError(f"A {message.status} message cannot become failed.")
    return attrs.evolve(message, status="failed", error=error, updated_at=now)


def apply_receipt(message: Message, status: str, now: datetime) -> Message | None:
    """The message after a `delivered` or `read` receipt, or None when the receipt changes nothing
    (it would move backwards or sideways, or the message is pending, failed or inbound)."""
    if status not in RECEIPT_STATUSES:
        raise ValueError(f"A receipt is delivered or read, not {status}.")
    if message.direction != "outbound" or not can_move(message.status, status):
        return None
    return attrs.evolve(message, status=status, updated_at=now)
