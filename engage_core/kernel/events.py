"""Domain events and the catalogue of event names (SPEC 6, and the extensions beyond it).

Services record events on the unit of work; the persistence adapter writes them, in the same
transaction as the change, to the outbox from which webhook deliveries are made.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs


@attrs.frozen
class DomainEvent:
    """Something that happened in one account. `payload` is the flat `data` object of SPEC 6."""

    name: str
    payload: Mapping[str, Any]
    occurred_at: datetime


CATALOGUE: tuple[str, ...] = (
    "contact.created",
    "contact.updated",
    "contact.deleted",
    "message.received",
    "message.sent",
    "channel.connected",
    "channel.disconnected",
    "channel.error",
    "campaign.started",
    "campaign.completed",
    "campaign.paused",
    "campaign.cancelled",
    "campaign.failed",
    "knowledge_base.created",
    "knowledge_base.updated",
    "knowledge_base.deleted",
    "knowledge_base.processing.completed",
    "knowledge_base.processing.failed",
    "ticket.created",
    "ticket.updated",
    "ticket.closed",
    "ticket.replied",
    "ai_agent.created",
    "ai_agent.updated",
    "ai_agent.deleted",
    "booking.created",
    "booking.updated",
    "booking.cancelled",
    "booking.completed",
    "order.created",
    "order.updated",
    "order.cancelled",
    "order.delivered",
)
"""Every workspace event of SPEC 6, in the order the spec lists them."""

EXTENSIONS: tuple[str, ...] = (
    "conversation.handed_over",
    "conversation.resolved",
    "conversation.taken_over",
    "conversation.released",
    "web_chat.session.started",
    "web_chat.session.updated",
    "web_chat.session.ended",
    "web_chat.message.created",
)
"""Workspace events beyond SPEC 6 (the AI/human hand-over of a conversation,
`engage_core.messaging.handling`; web chat sessions and their messages, `engage_core.webchat.sessions`).
A subscription receives them only when it names them: an empty `events` list means every event of
`CATALOGUE`, so a receiver written against SPEC 6 never meets an event it does not know."""
OPT_IN: frozenset[str] = frozenset(EXTENSIONS)
"""The events an empty `events` list does not stand for."""

TEST_EVENT = "webhook.test"
EVENTS_MAX = 100
"""Event names one subscription may list: more than either catalogue holds, fewer than a flood."""
SUBSCRIBABLE: frozenset[str] = frozenset((*CATALOGUE, *EXTENSIONS, TEST_EVENT))

PARTNER_CATALOGUE: tuple[str, ...] = (
    "partner.client.created",
    "partner.client.updated",
    "partner.client.suspended",
    "partner.client.reactivated",
    "partner.client.deleted",
    "partner.client.channel.connected",
    "partner.client.channel.disconnected",
)
"""Every partner-level event of SPEC 6 (Partner events), delivered to the partner's own webhooks."""
