"""The inbox's one list: the channels' conversations and the web chat's active sessions together.

Both sources are already sorted newest first (`MessageService.conversations` by the last message,
`WebChatService.find` by the last activity), so page `p` of their union is found by taking the first
`p * size` rows of each, merging them by time and keeping the page's slice; the total is the sum of
both totals. A deep page costs more than the first (it reads `p * size` rows of each source), which
an inbox, read from the top, can afford. The views by who answers apply to both (`ai`, `pending`,
`human` are the same words in both areas); "unread" and "assigned to me" keep conversations only
(web chats have neither an unread count nor an assignee); the channel filter keeps one source
(`web_chat` keeps the web chat alone). Ended web chats stay on the web chat page.
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


@attrs.frozen
class InboxView:
    """Which conversations a view of the inbox keeps (`ConversationFilter`'s fields)."""

    handled_by: str | None = None
    unread: bool = False
    mine: bool = False
    """Only the viewer's own: assigned to them."""

    @property
    def has_web_chats(self) -> bool:
        """Web chats have neither assignees nor an unread count: the views that need one leave them out."""
        return not (self.unread or self.mine)


def inbox_page(
    services: Services,
    account_id: int,
    view: InboxView,
    channel: str | None,
    member_id: int | None,
    visible_only: bool,
    number: int,
) -> Page[InboxRow]:
    """Page `number` of the inbox, newest first (the module's rules). `member_id` is the viewer (None:
    a partner impersonating); `visible_only` keeps the conversations an agent sees."""
    size = CONVERSATIONS.default
    reach = PageRequest(1, number * size)
    rows: list[InboxRow] = []
    total = 0
    handled_by = view.handled_by
    if channel != WEB_CHAT:
        filters = ConversationFilter(
            channel=channel,
            handled_by=handled_by,
            visible_to=member_id if visible_only else None,
            assignee_id=(member_id or 0) if view.mine else None,  # a partner is assigned nothing
            unread=view.unread,
        )
        found = services.messages.conversations(account_id, filters, reach)
        rows += [_conversation_row(summary) for summary in found.items]
        total += found.total
    if (channel is None or channel == WEB_CHAT) and view.has_web_chats:
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
