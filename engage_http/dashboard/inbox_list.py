"""The inbox's one list: the channels' conversations and the web chat's active sessions together.

Both sources are already sorted newest first (`MessageService.conversations` by the last message,
`WebChatService.find` by the last activity), so page `p` of their union is found by taking the first
`p * size` rows of each, merging them by time and keeping the page's slice; the total is the sum of
both totals. A deep page costs more than the first (it reads `p * size` rows of each source), which
an inbox, read from the top, can afford. The views by who answers apply to both (`ai`, `pending`,
`human` are the same words in both areas); the channel filter keeps one source (`web_chat` keeps
the web chat alone). Ended web chats stay on the web chat page.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.conversations import CONVERSATIONS, ConversationFilter, ConversationSummary
from engage_core.services import Services
from engage_core.webchat.sessions import SessionFilter, WebChatSession

WEB_CHAT = "web_chat"
"""The inbox's channel filter value of the web chat."""


@attrs.frozen
class InboxRow:
    """One line of the inbox: a contact's conversation or a visitor's chat."""

    path: str
    """The dashboard page that opens it, under the `/app` prefix."""
    name: str
    channel: str
    handled_by: str
    last_text: str
    at: datetime
    unread: int = 0


def inbox_page(
    services: Services,
    account_id: int,
    handled_by: str | None,
    channel: str | None,
    visible_to: int | None,
    number: int,
) -> Page[InboxRow]:
    """Page `number` of the inbox, newest first (the module's rules)."""
    size = CONVERSATIONS.default
    reach = PageRequest(1, number * size)
    rows: list[InboxRow] = []
    total = 0
    if channel != WEB_CHAT:
        filters = ConversationFilter(channel=channel, handled_by=handled_by, visible_to=visible_to)
        found = services.messages.conversations(account_id, filters, reach)
        rows += [_conversation_row(summary) for summary in found.items]
        total += found.total
    if channel is None or channel == WEB_CHAT:
        chats = services.web_chat.find(account_id, SessionFilter(status="active", handled_by=handled_by), reach)
        rows += [_chat_row(session) for session in chats.items]
        total += chats.total
    rows.sort(key=lambda row: row.at, reverse=True)
    start = (number - 1) * size
    return Page(items=rows[start : start + size], request=PageRequest(number, size), total=total)


def _conversation_row(summary: ConversationSummary) -> InboxRow:
    return InboxRow(
        f"/conversations/{summary.contact_id}",
        summary.contact_name,
        summary.channel,
        summary.handled_by,
        summary.last_message,
        summary.last_message_at,
        summary.unread_count,
    )


def _chat_row(session: WebChatSession) -> InboxRow:
    who = session.visitor_name or session.visitor_email or "Visitor"
    return InboxRow(
        f"/web-chat/{session.session_id}",
        who,
        WEB_CHAT,
        session.handled_by,
        session.visitor_page_url or "",
        session.last_activity_at,
    )
