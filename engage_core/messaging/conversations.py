"""Conversations: one summary per contact of the messages exchanged with it (SPEC 2, 4)."""

from __future__ import annotations

from datetime import datetime

import attrs

from engage_core.kernel.pagination import PageLimits

CONVERSATIONS = PageLimits(default=15)
"""`GET /conversations`: default 15 (SPEC 8); no maximum is given, 100 like every other list."""


@attrs.frozen
class ConversationSummary:
    """A contact's conversation: its newest message and how many inbound messages are unread."""

    contact_id: int
    contact_name: str
    channel: str
    last_message: str
    last_message_at: datetime
    unread_count: int
    handled_by: str = "ai"
    """Beyond SPEC 2: who answers the conversation (`engage_core.messaging.handling`)."""


@attrs.frozen
class ConversationFilter:
    """Filters of `GET /conversations`. `channel` keeps only messages of that channel (a contact
    without any is left out); `contact_id` keeps only that contact's conversation; `handled_by`
    (beyond SPEC 4) only the conversations in that hand-over state (`pending`: waiting for a human).
    `visible_to` (the dashboard's agents) keeps only the conversations unassigned or assigned to that
    team member (`ConversationHandling.visible_to`); `assignee_id` only those assigned to that member;
    `unread` only those with unread inbound messages. `contact_id` ignores these three."""

    channel: str | None = None
    contact_id: int | None = None
    handled_by: str | None = None
    visible_to: int | None = None
    assignee_id: int | None = None
    unread: bool = False
