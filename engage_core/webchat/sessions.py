"""Web chat sessions and their messages: the state machine, the message log, event payloads (SPEC 2, 3, 4).

A session has two independent states. `status` is `active` until it ends (`ended`, final).
`handled_by` says who answers the visitor (`TRANSITIONS`)::

    ai       --take_over-->  human     (SPEC 3: the AI stops at once)
    ai       --request_human / handoff-->  pending   (the visitor asks; the engine hands over)
    pending  --take_over-->  human
    pending  --release---->  ai
    human    --release---->  ai        (SPEC 3: the AI answers the next visitor message)

A trigger that leads where the session already is changes nothing and emits nothing (a retried
take-over is harmless); a trigger missing from a row is refused (422 on `handled_by`). An ended
session refuses every move and every message (422 on `status`); ending it again changes nothing.

Every change the visitor should see is a message of the session's log: `visitor`, `bot` and `agent`
messages, and `system` notices for the moves (`SYSTEM_NOTICES`). Each message carries the
session's next sequence number (`seq`, 1, 2, 3, ...), assigned under the session's row lock, so a
live client that reconnects with the last `seq` it saw receives exactly what it missed.

Events (`event_payload`): `web_chat.session.started`, `web_chat.session.updated` (a move of
`handled_by`), `web_chat.session.ended`, and `web_chat.message.created` for every message.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageLimits

STATUSES: tuple[str, ...] = ("active", "ended")
HANDLERS: tuple[str, ...] = ("ai", "human", "pending")
SENDERS: tuple[str, ...] = ("visitor", "bot", "agent", "system")
"""SPEC 2 names `visitor`, `bot` and `agent`; `system` notices (an extension) tell the visitor of moves."""

TAKE_OVER = "take_over"
RELEASE = "release"
REQUEST_HUMAN = "request_human"
HANDOFF = "handoff"
TRIGGERS: tuple[str, ...] = (TAKE_OVER, RELEASE, REQUEST_HUMAN, HANDOFF)

TRANSITIONS: Mapping[str, Mapping[str, str]] = {
    "ai": {TAKE_OVER: "human", REQUEST_HUMAN: "pending", HANDOFF: "pending", RELEASE: "ai"},
    "pending": {TAKE_OVER: "human", RELEASE: "ai", REQUEST_HUMAN: "pending", HANDOFF: "pending"},
    "human": {RELEASE: "ai", TAKE_OVER: "human", REQUEST_HUMAN: "human"},
}
"""For every `handled_by`, where each trigger leads; a missing trigger is refused. (A hand-off of the
engine while a human holds the session is refused: the human wins.)"""

SYSTEM_NOTICES: Mapping[str, str] = {
    "pending": "You asked for a person. Someone from the team will join shortly.",
    "human": "A member of the team joined the chat.",
    "ai": "The assistant is answering again.",
    "ended": "The chat has ended.",
}
"""What the visitor is told when the session moves (the `system` message written with the move)."""

EVENTS: tuple[str, ...] = (
    "web_chat.session.started",
    "web_chat.session.updated",
    "web_chat.session.ended",
    "web_chat.message.created",
)
"""Web chat's events (opt-in extensions of SPEC 6, `engage_core.kernel.events.EXTENSIONS`)."""

MESSAGE_MAX = 4096
"""SPEC 8: a web chat message is at most 4096 characters."""
VISITOR_FIELD_MAX = 255
SESSIONS = PageLimits(default=25)
"""`GET /web-chat/sessions`: default 25, maximum 100 (SPEC 8)."""


@attrs.frozen
class WebChatSession:
    id: int
    """Internal; the API and the widget know the session by `session_id`."""
    session_id: str
    """Random and unguessable (`wcs_...`), never sequential."""
    status: str
    handled_by: str
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
    last_seq: int
    """The `seq` of the newest message (0: none yet)."""
    last_activity_at: datetime
    created_at: datetime

    @property
    def active(self) -> bool:
        return self.status == "active"

    def event_payload(self) -> Mapping[str, Any]:
        """`web_chat.session.*` data: the session's fields (SPEC 2) without the visitor's IP."""
        return {
            "session_id": self.session_id,
            "status": self.status,
            "handled_by": self.handled_by,
            "visitor_name": self.visitor_name,
            "visitor_email": self.visitor_email,
            "visitor_phone": self.visitor_phone,
            "visitor_page_url": self.visitor_page_url,
            "has_visitor_messages": self.has_visitor_messages,
            "human_requested_at": format_optional(self.human_requested_at),
            "human_took_over_at": format_optional(self.human_took_over_at),
            "ended_at": format_optional(self.ended_at),
            "last_activity_at": format_timestamp(self.last_activity_at),
            "created_at": format_timestamp(self.created_at),
        }


@attrs.frozen
class VisitorDetails:
    """What the widget tells of the visitor (all optional)."""

    name: str | None = None
    email: str | None = None
    phone: str | None = None
    ip: str | None = None
    page_url: str | None = None
    referrer: str | None = None


@attrs.frozen
class SessionDraft:
    """A new session: its public id, the hash of the visitor's token, and the visitor."""

    session_id: str
    token_hash: str
    visitor: VisitorDetails


@attrs.frozen
class WebChatMessage:
    id: int
    seq: int
    """The message's place in its session's log (1, 2, 3, ...)."""
    sender_type: str
    message_text: str
    message_type: str
    media_url: str | None
    is_read: bool
    created_at: datetime
    reply_to: int | None = None
    """For a `bot` message: the visitor message it answers (at most one answer each)."""

    def event_payload(self, session: WebChatSession) -> Mapping[str, Any]:
        """`web_chat.message.created` data."""
        return {
            "id": self.id,
            "session_id": session.session_id,
            "seq": self.seq,
            "sender_type": self.sender_type,
            "message_text": self.message_text,
            "message_type": self.message_type,
            "media_url": self.media_url,
            "created_at": format_timestamp(self.created_at),
        }


@attrs.frozen
class MessageDraft:
    sender_type: str
    message_text: str
    message_type: str = "text"
    reply_to: int | None = None
    media_url: str | None = None
    """An image shown with the text: the product image of a bot answer about a product."""


@attrs.frozen
class SessionFilter:
    """Filters of `GET /web-chat/sessions`; `search` matches the visitor's name, e-mail or phone."""

    status: str | None = None
    handled_by: str | None = None
    search: str | None = None

    def matches(self, session: WebChatSession) -> bool:
        """The reference semantics (the in-memory store uses it): `search` is a case-insensitive substring."""
        if self.status is not None and session.status != self.status:
            return False
        if self.handled_by is not None and session.handled_by != self.handled_by:
            return False
        if self.search:
            needle = self.search.casefold()
            fields = (session.visitor_name, session.visitor_email, session.visitor_phone)
            return any(f is not None and needle in f.casefold() for f in fields)
        return True


# -- the state machine -----------------------------------------------------------------------------


def next_handler(session: WebChatSession, trigger: str) -> str:
    """Where `trigger` leads `handled_by`; ValidationFailed when the session is ended or SPEC 3 refuses it."""
    if not session.active:
        raise ValidationFailed.on("status", "This chat has ended.")
    to = TRANSITIONS[session.handled_by].get(trigger)
    if to is None:
        raise ValidationFailed.on(
            "handled_by", f"A chat handled by {session.handled_by} cannot {trigger.replace('_', ' ')}."
        )
    return to


def moved(session: WebChatSession, trigger: str, now: datetime) -> tuple[WebChatSession, list[DomainEvent]]:
    """The session after `trigger`, and `web_chat.session.updated` when `handled_by` changed
    (nothing otherwise). The caller writes the `system` notice of the move."""
    to = next_handler(session, trigger)
    if to == session.handled_by:
        return session, []
    fields: dict[str, Any] = {"handled_by": to, "last_activity_at": now}
    if to == "pending":
        fields["human_requested_at"] = now
    elif to == "human":
        fields["human_took_over_at"] = now
    changed = attrs.evolve(session, **fields)
    return changed, [DomainEvent("web_chat.session.updated", changed.event_payload(), now)]


def ended(session: WebChatSession, now: datetime) -> tuple[WebChatSession, list[DomainEvent]]:
    """`POST .../end`: an active session becomes `ended` (`web_chat.session.ended`); an ended one stays."""
    if not session.active:
        return session, []
    changed = attrs.evolve(session, status="ended", ended_at=now, last_activity_at=now)
    return changed, [DomainEvent("web_chat.session.ended", changed.event_payload(), now)]


def ai_may_answer(session: WebChatSession) -> bool:
    """The AI answers visitor messages only while the session is active and handled by `ai`."""
    return session.active and session.handled_by == "ai"


def visitor_key(session: WebChatSession) -> str:
    """Who the visitor is, for counting unique visitors: e-mail, else phone, else IP, else the session."""
    return (session.visitor_email or "").casefold() or session.visitor_phone or session.visitor_ip or session.session_id
