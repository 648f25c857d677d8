"""Web chat use cases: the workspace's side (list, read, take over, release, send, end, widget
settings) and the visitor's (start, send, ask for a person, end), plus the AI's answers.

Every change writes its messages and events in one unit of work, then tells the live feed after
the commit. The AI never runs inside a request: a visitor message, while the AI handles the session,
queues `REPLY_JOB` in the transaction that stores it; the job (`answer`) asks the answer engine and
stores the reply only if, read again in the storing transaction, the session is still the AI's and
the message still unanswered: a take-over while the engine was thinking wins, and nothing is sent.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.answering.chat import ChatMessage
from engage_core.answering.engine import AnswerEngine
from engage_core.answering.ports import PersonaDirectory
from engage_core.answering.product_images import ProductImages
from engage_core.bookings.working_hours import DEFAULT_HOURS
from engage_core.jobs.model import JobRequest
from engage_core.jobs.runner import Handler, JobContext
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.validation import ErrorCollector, one_of, optional_email, optional_text, required_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork
from engage_core.webchat import sessions as rules
from engage_core.webchat.analytics import DEFAULT_PERIOD, PERIODS, Analytics, period_start, summarise
from engage_core.webchat.ports import LiveFeed, NoLiveFeed
from engage_core.webchat.sessions import (
    HANDLERS,
    MESSAGE_MAX,
    STATUSES,
    SYSTEM_NOTICES,
    VISITOR_FIELD_MAX,
    MessageDraft,
    SessionDraft,
    SessionFilter,
    VisitorDetails,
    WebChatMessage,
    WebChatSession,
)
from engage_core.webchat.widgets import Widget, WidgetPatch, new_key, new_widget, patched

REPLY_JOB = "web_chat.reply"
"""The job kind of the AI's answer to a visitor message; key and payload name the message."""
HISTORY_LIMIT = 20
SESSION_PREFIX = "wcs_"


def token_hash(token: str) -> str:
    """What is stored of a visitor's session token (the token itself never is)."""
    return hashlib.sha256(token.encode()).hexdigest()


@attrs.frozen
class SessionThread:
    """A session with its messages, oldest first."""

    session: WebChatSession
    messages: Sequence[WebChatMessage]


@attrs.frozen
class StartedSession:
    """A new visitor session and its token (shown once: only its hash is stored)."""

    session: WebChatSession
    token: str
    messages: Sequence[WebChatMessage]


@attrs.frozen
class VisitorAccess:
    """Which widget and session a visitor request names."""

    account_id: int
    widget: Widget


class WebChatService:
    """Web chat sessions, seen by the workspace and by the visitor."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        *,
        live: LiveFeed | None = None,
        engine: AnswerEngine | None = None,
        personas: PersonaDirectory | None = None,
        images: ProductImages | None = None,
    ) -> None:
        """`images` finds the product image an answer may show (none without it)."""
        self._uow = uow
        self._clock = clock
        self.live: LiveFeed = live or NoLiveFeed()
        self._engine = engine
        self._personas = personas
        self._images = images

    # -- the workspace ------------------------------------------------------------------------

    def find(self, account_id: int, filters: SessionFilter, page: PageRequest) -> Page[WebChatSession]:
        """`GET /web-chat/sessions`."""
        errors = ErrorCollector()
        if filters.status is not None:
            errors.run(lambda: one_of("status", filters.status or "", STATUSES))
        if filters.handled_by is not None:
            errors.run(lambda: one_of("handled_by", filters.handled_by or "", HANDLERS))
        errors.raise_if_any()
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.web_chat_sessions.find(filters, page)

    def get(self, account_id: int, session_id: str) -> SessionThread:
        """`GET /web-chat/sessions/{session_id}`: the session and its messages."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            session = _session(uow, session_id)
            return SessionThread(session, uow.web_chat_sessions.messages(session))

    def messages_after(self, account_id: int, session_id: str, after_seq: int, limit: int = 200) -> SessionThread:
        """The session and its messages after `after_seq` (what a live client missed)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            session = _session(uow, session_id)
            return SessionThread(session, uow.web_chat_sessions.messages(session, after_seq, limit))

    def take_over(self, account_id: int, session_id: str) -> WebChatSession:
        """A person takes the session: the AI stops answering at once (a reply being prepared is dropped)."""
        return self._move(account_id, session_id, rules.TAKE_OVER)

    def release(self, account_id: int, session_id: str) -> WebChatSession:
        """The AI answers the visitor's next message."""
        return self._move(account_id, session_id, rules.RELEASE)

    def send(self, account_id: int, session_id: str, text: str) -> WebChatMessage:
        """An agent's message (at most 4096 characters) to an active session, delivered live."""
        cleaned = required_text("message", text, max_length=MESSAGE_MAX)
        with self._uow.workspace(account_id) as uow:
            session = _session(uow, session_id)
            if not session.active:
                raise ValidationFailed.on("message", "This chat has ended.")
            session, message = _append(uow, session, MessageDraft("agent", cleaned), self._clock.now())
            uow.commit()
        self.live.publish(account_id, session.session_id)
        return message

    def end(self, account_id: int, session_id: str) -> WebChatSession:
        """End the session (the visitor sees it ended; their next message starts a new one)."""
        with self._uow.workspace(account_id) as uow:
            session = self._end_in(uow, _session(uow, session_id))
        self.live.publish(account_id, session.session_id)
        return session

    def analytics(self, account_id: int, period: str | None) -> Analytics:
        """`GET /web-chat/analytics` for `today`, `week`, `month` (the default) or `year`, in the
        workspace's timezone (`engage_core.webchat.analytics`)."""
        chosen = one_of("period", period or DEFAULT_PERIOD, PERIODS)
        with self._uow.workspace(account_id, readonly=True) as uow:
            timezone = (uow.working_hours.get() or DEFAULT_HOURS).timezone
            start = period_start(chosen, self._clock.now(), timezone)
            stats = uow.web_chat_sessions.stats_since(start)
            counts = uow.web_chat_sessions.message_counts_since(start)
        return summarise(chosen, start, timezone, stats, counts)

    # -- widget settings ----------------------------------------------------------------------

    def widget(self, account_id: int) -> Widget:
        """The workspace's widget, made (with a fresh key and no allowed origin) on first read."""
        with self._uow.workspace(account_id) as uow:
            widget = uow.web_chat_widgets.get()
            if widget is None:
                widget = new_widget(self._clock.now())
                uow.web_chat_widgets.save(widget)
                uow.commit()
        return widget

    def update_widget(self, account_id: int, patch: WidgetPatch) -> Widget:
        """Change the allowed origins, colour, greeting or language."""
        self.widget(account_id)
        with self._uow.workspace(account_id) as uow:
            current = uow.web_chat_widgets.get()
            assert current is not None
            widget = patched(current, patch, self._clock.now())
            uow.web_chat_widgets.save(widget)
            uow.commit()
        return widget

    def rotate_key(self, account_id: int) -> Widget:
        """A new widget key; the old one stops working at once (revocation)."""
        self.widget(account_id)
        with self._uow.workspace(account_id) as uow:
            current = uow.web_chat_widgets.get()
            assert current is not None
            widget = attrs.evolve(current, widget_key=new_key(), updated_at=self._clock.now())
            uow.web_chat_widgets.save(widget)
            uow.commit()
        return widget

    # -- the visitor --------------------------------------------------------------------------

    def visitor_access(self, widget_key: str) -> VisitorAccess:
        """The workspace and widget of a widget key; NotFound for an unknown or rotated key."""
        with self._uow.admin(readonly=True) as admin:
            account_id = admin.web_chat_widget_directory.account_for_key(widget_key)
        if account_id is None:
            raise NotFound("Widget")
        with self._uow.workspace(account_id, readonly=True) as uow:
            widget = uow.web_chat_widgets.get()
        if widget is None or widget.widget_key != widget_key:
            raise NotFound("Widget")
        return VisitorAccess(account_id, widget)

    def start(self, account_id: int, visitor: VisitorDetails) -> StartedSession:
        """A new session for a visitor (`web_chat.session.started`), greeted with the widget's greeting."""
        details = _visitor(visitor)
        token = secrets.token_urlsafe(32)
        draft = SessionDraft(SESSION_PREFIX + secrets.token_urlsafe(16), token_hash(token), details)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            widget = uow.web_chat_widgets.get()
            greeting = widget.greeting if widget is not None else new_widget(now).greeting
            session = uow.web_chat_sessions.add(draft, now)
            uow.emit(DomainEvent("web_chat.session.started", session.event_payload(), now))
            session, first = _append(uow, session, MessageDraft("bot", greeting, "greeting"), now)
            uow.commit()
        return StartedSession(session, token, (first,))

    def visitor_session(self, account_id: int, token: str, after_seq: int = 0, limit: int = 200) -> SessionThread:
        """The visitor's own session (by their token) and its messages after `after_seq`."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            session = _by_token(uow, token)
            return SessionThread(session, uow.web_chat_sessions.messages(session, after_seq, limit))

    def visitor_update(self, account_id: int, token: str, visitor: VisitorDetails) -> WebChatSession:
        """The visitor gives (or changes) their name, e-mail or phone."""
        details = _visitor(visitor)
        with self._uow.workspace(account_id) as uow:
            session = _by_token(uow, token)
            session = attrs.evolve(
                session,
                visitor_name=details.name or session.visitor_name,
                visitor_email=details.email or session.visitor_email,
                visitor_phone=details.phone or session.visitor_phone,
            )
            uow.web_chat_sessions.update(session)
            uow.commit()
        return session

    def visitor_send(self, account_id: int, token: str, text: str) -> WebChatMessage:
        """The visitor writes; while the AI handles the session, its answer is queued (`REPLY_JOB`)."""
        cleaned = required_text("message", text, max_length=MESSAGE_MAX)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            session = _by_token(uow, token)
            if not session.active:
                raise ValidationFailed.on("message", "This chat has ended.")
            session = attrs.evolve(session, has_visitor_messages=True)
            session, message = _append(uow, session, MessageDraft("visitor", cleaned), now)
            if rules.ai_may_answer(session) and self._engine is not None:
                uow.jobs.enqueue(JobRequest(REPLY_JOB, {"message_id": message.id}, key=str(message.id)), now)
            uow.commit()
        self.live.publish(account_id, session.session_id)
        return message

    def request_human(self, account_id: int, token: str) -> WebChatSession:
        """The visitor asks for a person: `handled_by` becomes `pending` (from `ai`)."""
        with self._uow.workspace(account_id) as uow:
            session = self._move_in(uow, _by_token(uow, token), rules.REQUEST_HUMAN)
        self.live.publish(account_id, session.session_id)
        return session

    def visitor_end(self, account_id: int, token: str) -> WebChatSession:
        """The visitor ends the chat (the widget asked them to confirm)."""
        with self._uow.workspace(account_id) as uow:
            session = self._end_in(uow, _by_token(uow, token))
        self.live.publish(account_id, session.session_id)
        return session

    # -- the AI -------------------------------------------------------------------------------

    def answer(self, account_id: int, visitor_message_id: int) -> str:
        """Answer a visitor message through the answer engine, as the workspace's default agent, when
        the session is still the AI's and the message the newest; what happened (`replied`, or why not)."""
        if self._engine is None or self._personas is None:
            return "no_engine"
        with self._uow.workspace(account_id, readonly=True) as uow:
            if uow.web_chat_sessions.answer_to(visitor_message_id) is not None:
                return "already_replied"
            found = _session_of_message(uow, visitor_message_id)
            if found is None:
                return "gone"
            session, log = found
        if not rules.ai_may_answer(session):
            return "not_handled_by_ai"
        visitor = [m for m in log if m.sender_type == "visitor"]
        if not visitor or visitor[-1].id != visitor_message_id:
            return "newer_message"  # that message's job answers both
        persona = self._personas.default_persona(account_id)
        if persona is None:
            return "no_active_agent"
        target = visitor[-1]
        history = tuple(
            ChatMessage("user" if m.sender_type == "visitor" else "assistant", m.message_text)
            for m in log
            if m.seq < target.seq and m.sender_type in ("visitor", "bot", "agent") and m.message_type != "greeting"
        )[-HISTORY_LIMIT:]
        turn = self._engine.answer(account_id, persona, history, target.message_text)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            # Read again, locked: a take-over or an end while the engine thought wins.
            current = _session(uow, session.session_id)
            if not rules.ai_may_answer(current) or uow.web_chat_sessions.answer_to(visitor_message_id) is not None:
                return "not_handled_by_ai"
            image = self._images.for_citations(uow, turn.citations) if self._images and turn.citations else None
            media_url = None if image is None else image.url
            draft = MessageDraft("bot", turn.reply, reply_to=visitor_message_id, media_url=media_url)
            current, _ = _append(uow, current, draft, now)
            if turn.action == "handoff":
                current = self._move_in(uow, current, rules.HANDOFF, commit=False)
            uow.commit()
        self.live.publish(account_id, session.session_id)
        return "replied"

    def job_handler(self) -> Handler:
        """The handler of `REPLY_JOB`."""

        def run(context: JobContext) -> None:
            self.answer(context.account_id, int(str(context.payload["message_id"])))

        return run

    # -- helpers ------------------------------------------------------------------------------

    def _move(self, account_id: int, session_id: str, trigger: str) -> WebChatSession:
        with self._uow.workspace(account_id) as uow:
            session = self._move_in(uow, _session(uow, session_id), trigger)
        self.live.publish(account_id, session.session_id)
        return session

    def _move_in(
        self, uow: WorkspaceUnitOfWork, session: WebChatSession, trigger: str, *, commit: bool = True
    ) -> WebChatSession:
        now = self._clock.now()
        moved, events = rules.moved(session, trigger, now)
        if events:
            for event in events:
                uow.emit(event)
            moved, _ = _append(uow, moved, MessageDraft("system", SYSTEM_NOTICES[moved.handled_by], "notice"), now)
            if commit:
                uow.commit()
        return moved

    def _end_in(self, uow: WorkspaceUnitOfWork, session: WebChatSession) -> WebChatSession:
        now = self._clock.now()
        closed, events = rules.ended(session, now)
        if events:
            for event in events:
                uow.emit(event)
            closed, _ = _append(uow, closed, MessageDraft("system", SYSTEM_NOTICES["ended"], "ended"), now)
            uow.commit()
        return closed


def _append(
    uow: WorkspaceUnitOfWork, session: WebChatSession, draft: MessageDraft, now: datetime
) -> tuple[WebChatSession, WebChatMessage]:
    """Add a message with the session's next `seq`, store the session, emit `web_chat.message.created`."""
    message = uow.web_chat_sessions.add_message(session, draft, session.last_seq + 1, now)
    session = attrs.evolve(session, last_seq=message.seq, last_activity_at=now)
    uow.web_chat_sessions.update(session)
    uow.emit(DomainEvent("web_chat.message.created", message.event_payload(session), now))
    return session, message


def _visitor(visitor: VisitorDetails) -> VisitorDetails:
    errors = ErrorCollector()
    name = errors.run(lambda: optional_text("visitor_name", visitor.name, max_length=VISITOR_FIELD_MAX))
    email = errors.run(lambda: optional_email("visitor_email", visitor.email))
    phone = errors.run(lambda: optional_text("visitor_phone", visitor.phone, max_length=32))
    page = errors.run(lambda: optional_text("visitor_page_url", visitor.page_url, max_length=2048))
    referrer = errors.run(lambda: optional_text("visitor_referrer", visitor.referrer, max_length=2048))
    errors.raise_if_any()
    return VisitorDetails(name, email, phone, visitor.ip, page, referrer)


def _session(uow: WorkspaceUnitOfWork, session_id: str) -> WebChatSession:
    session = uow.web_chat_sessions.get(session_id)
    if session is None:
        raise NotFound("Web chat session")
    return session


def _by_token(uow: WorkspaceUnitOfWork, token: str) -> WebChatSession:
    session = uow.web_chat_sessions.by_token(token_hash(token))
    if session is None:
        raise NotFound("Web chat session")
    return session


def _session_of_message(
    uow: WorkspaceUnitOfWork, message_id: int
) -> tuple[WebChatSession, Sequence[WebChatMessage]] | None:
    session = uow.web_chat_sessions.session_of(message_id)
    if session is None:
        return None
    return session, uow.web_chat_sessions.messages(session)
