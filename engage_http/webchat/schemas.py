"""Request and response bodies of web chat (SPEC 2 "Web chat session and message"; SPEC 4 "Web chat")."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.webchat import analytics as analytics_domain
from engage_core.webchat import sessions as domain
from engage_core.webchat import widgets as widget_domain
from engage_core.webchat.service import SessionThread
from engage_http.constraints import Doc, Items, Text
from engage_http.converter import renders, structures_into

Status = Literal["active", "ended"]
HandledBy = Literal["ai", "human", "pending"]
SenderType = Literal["visitor", "bot", "agent", "system"]
Language = Literal["en", "ar", "fr", "es", "de"]

MessageText = Annotated[str, Text(max_length=domain.MESSAGE_MAX, blank=False), Doc(example="Hi, this is Sam.")]
Search = Annotated[str, Text(max_length=255)]


@structures_into(domain.SessionFilter)
@attrs.frozen
class SessionFilters:
    """Query filters of `GET /web-chat/sessions`; `search` matches the visitor's name, e-mail or phone."""

    status: Status | None = None
    handled_by: HandledBy | None = None
    search: Search | None = None


@attrs.frozen
class AnalyticsQuery:
    """Query of `GET /web-chat/analytics`."""

    period: Literal["today", "week", "month", "year"] = "month"


@renders(analytics_domain.Analytics)
@attrs.frozen
class WebChatAnalytics:
    """Counts over the sessions started in the period, in the workspace's timezone. `chart_data` counts
    sessions per local day (`YYYY-MM-DD`), or per local hour (`HH:00`) for `today`."""

    total_chats: int
    engaged_chats: int
    active_chats: int
    completed_chats: int
    total_messages: int
    visitor_messages: int
    bot_messages: int
    avg_messages_per_chat: float
    unique_visitors: int
    chart_data: dict[str, int]


@attrs.frozen
class WebChatMessageCreate:
    """An agent's message to the visitor (active sessions only)."""

    message: MessageText


@renders(domain.WebChatMessage)
@attrs.frozen
class WebChatMessage:
    """A message of a session's log. `seq` (an addition) numbers the session's messages 1, 2, 3, ...:
    the `id` of its live event. `system` messages (an addition) tell the visitor of hand-overs and the end."""

    id: int
    seq: int
    sender_type: SenderType
    message_text: str
    message_type: str
    media_url: str | None
    is_read: bool
    created_at: datetime


@renders(domain.WebChatSession)
@attrs.frozen
class WebChatSession:
    """A web chat session (SPEC 2); `ended_at` is an addition."""

    session_id: str
    status: Status
    handled_by: HandledBy
    visitor_name: str | None
    visitor_email: str | None
    visitor_phone: str | None
    visitor_ip: str | None
    visitor_page_url: str | None
    visitor_referrer: str | None
    has_visitor_messages: bool
    human_requested_at: datetime | None
    human_took_over_at: datetime | None
    ended_at: datetime | None
    last_activity_at: datetime
    created_at: datetime


@attrs.frozen
class WebChatSessionWithMessages(WebChatSession):
    """A session with its messages, oldest first."""

    messages: tuple[WebChatMessage, ...]

    @classmethod
    def from_thread(cls, thread: SessionThread) -> WebChatSessionWithMessages:
        fields: dict[str, Any] = {name: getattr(thread.session, name) for name in attrs.fields_dict(WebChatSession)}
        fields["messages"] = tuple(thread.messages)
        return cls(**fields)


@renders(widget_domain.Widget)
@attrs.frozen
class WebChatWidget:
    """The workspace's widget. `widget_key` is public (it goes in the page's script tag) and is not the
    API key; it only opens visitor sessions from `allowed_origins`."""

    widget_key: str
    allowed_origins: tuple[str, ...]
    color: str
    greeting: str
    language: Language
    created_at: datetime
    updated_at: datetime


@structures_into(widget_domain.WidgetPatch)
@attrs.frozen
class WebChatWidgetUpdate:
    """Any subset of the widget's settings. `allowed_origins` replaces the list (exact origins such as
    `https://shop.example`); `color` is `#rrggbb`; `language` sets the widget's words and direction
    (`ar` is right to left)."""

    allowed_origins: (
        Annotated[
            tuple[Annotated[str, Text(max_length=255, pattern="^https?://[^/?#\\s\\u0000]+/?$")], ...],
            Items(max_items=widget_domain.ORIGINS_MAX),
        ]
        | None
    ) = None
    color: Annotated[str, Text(pattern="^#[0-9a-fA-F]{6}$", max_length=7)] | None = None
    greeting: Annotated[str, Text(max_length=widget_domain.GREETING_MAX, blank=False)] | None = None
    language: Language | None = None
