"""Web chat for the workspace (SPEC 3, 4): sessions with their messages, take-over, release, agent
messages, end, and the widget's settings and public key."""

from __future__ import annotations

from typing import Any

from engage_core.kernel.pagination import Page
from engage_core.webchat import analytics as analytics_domain
from engage_core.webchat import sessions as domain
from engage_core.webchat import widgets as widget_domain
from engage_core.webchat.sessions import SESSIONS
from engage_http.operations import Call, Operation, Shape, declare
from engage_http.webchat.schemas import (
    AnalyticsQuery,
    SessionFilters,
    WebChatAnalytics,
    WebChatMessage,
    WebChatMessageCreate,
    WebChatSession,
    WebChatSessionWithMessages,
    WebChatWidget,
    WebChatWidgetUpdate,
)

TAG = "Web chat"
RULES = frozenset({422})
"""A 422 may answer a valid-looking request: a move or a message on an ended session, an origin that
is no origin (`https://shop.example/path`)."""


def index(call: Call[None, domain.SessionFilter]) -> Page[domain.WebChatSession]:
    assert call.page is not None
    return call.services.web_chat.find(call.account_id, call.query, call.page)


def show(call: Call[None, None]) -> WebChatSessionWithMessages:
    return WebChatSessionWithMessages.from_thread(call.services.web_chat.get(call.account_id, _sid(call)))


def take_over(call: Call[None, None]) -> domain.WebChatSession:
    return call.services.web_chat.take_over(call.account_id, _sid(call))


def release(call: Call[None, None]) -> domain.WebChatSession:
    return call.services.web_chat.release(call.account_id, _sid(call))


def send(call: Call[WebChatMessageCreate, None]) -> domain.WebChatMessage:
    return call.services.web_chat.send(call.account_id, _sid(call), call.body.message)


def end(call: Call[None, None]) -> domain.WebChatSession:
    return call.services.web_chat.end(call.account_id, _sid(call))


def analytics(call: Call[None, AnalyticsQuery]) -> analytics_domain.Analytics:
    return call.services.web_chat.analytics(call.account_id, call.query.period)


def widget(call: Call[None, None]) -> widget_domain.Widget:
    return call.services.web_chat.widget(call.account_id)


def update_widget(call: Call[widget_domain.WidgetPatch, None]) -> widget_domain.Widget:
    return call.services.web_chat.update_widget(call.account_id, call.body)


def rotate_widget_key(call: Call[None, None]) -> widget_domain.Widget:
    return call.services.web_chat.rotate_key(call.account_id)


def _sid(call: Call[Any, Any]) -> str:
    return str(call.path["session_id"])


SESSION = "/web-chat/sessions/{session_id:web_chat_session}"

OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/web-chat/sessions",
        index,
        "List web chat sessions",
        TAG,
        WebChatSession,
        Shape.PAGE,
        message="Sessions retrieved.",
        query=SessionFilters,
        page=SESSIONS,
        description="Most recently active first; filtered by `status` and `handled_by`, searched on the visitor's "
        "name, e-mail or phone.",
    ),
    Operation(
        "GET",
        "/web-chat/analytics",
        analytics,
        "Web chat analytics",
        TAG,
        WebChatAnalytics,
        message="Analytics retrieved.",
        query=AnalyticsQuery,
        description="For `today`, `week` (7 days), `month` (30 days, the default) or `year` (365 days), in the "
        "workspace's timezone, from the stored sessions and messages.",
    ),
    Operation(
        "GET",
        "/web-chat/widget",
        widget,
        "Get the web chat widget",
        TAG,
        WebChatWidget,
        message="Widget retrieved.",
        description="Made, with a fresh public key and no allowed origin, on first read.",
    ),
    Operation(
        "PUT",
        "/web-chat/widget",
        update_widget,
        "Update the web chat widget",
        TAG,
        WebChatWidget,
        message="Widget updated.",
        body=WebChatWidgetUpdate,
        errors=RULES,
    ),
    Operation(
        "POST",
        "/web-chat/widget/rotate-key",
        rotate_widget_key,
        "Rotate the widget key",
        TAG,
        WebChatWidget,
        message="Widget key rotated.",
        body_optional=True,
        description="A new public widget key; the old one stops working at once (pages must embed the new one).",
    ),
    Operation(
        "GET",
        SESSION,
        show,
        "Get a web chat session",
        TAG,
        WebChatSessionWithMessages,
        message="Session retrieved.",
    ),
    Operation(
        "POST",
        SESSION + "/take-over",
        take_over,
        "Take over a session",
        TAG,
        WebChatSession,
        message="Session handed to a human.",
        errors=RULES,
        body_optional=True,
        description="The AI stops answering at once; a reply it was preparing is not sent.",
    ),
    Operation(
        "POST",
        SESSION + "/release",
        release,
        "Release a session to the AI",
        TAG,
        WebChatSession,
        message="Session returned to AI.",
        errors=RULES,
        body_optional=True,
    ),
    Operation(
        "POST",
        SESSION + "/messages",
        send,
        "Send a message to the visitor",
        TAG,
        WebChatMessage,
        status=201,
        message="Message sent.",
        body=WebChatMessageCreate,
        errors=RULES,
        description="Active sessions only; delivered to the visitor live.",
    ),
    Operation(
        "POST",
        SESSION + "/end",
        end,
        "End a session",
        TAG,
        WebChatSession,
        message="Session ended.",
        body_optional=True,
        description="The visitor sees the chat as ended; their next message starts a new session.",
    ),
)
