"""In-memory fakes of web chat's ports (sessions, messages, widgets), and a live feed that records."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from datetime import datetime

import attrs

from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.webchat.analytics import SessionStat
from engage_core.webchat.sessions import (
    MessageDraft,
    SessionDraft,
    SessionFilter,
    WebChatMessage,
    WebChatSession,
    visitor_key,
)
from engage_core.webchat.widgets import Widget


@attrs.define
class WebChatTables(Tables):
    """The web chat area's rows, by table."""

    web_chat_sessions: dict[int, tuple[int, WebChatSession, str]] = attrs.Factory(
        dict
    )  # id -> (account, session, token hash)
    web_chat_messages: dict[int, tuple[int, int, WebChatMessage]] = attrs.Factory(
        dict
    )  # id -> (account, session id, message)
    web_chat_widgets: dict[int, tuple[int, Widget]] = attrs.Factory(dict)  # account -> (account, widget)


class _Repo(Repo):
    @property
    def _t(self) -> WebChatTables:
        return self._state.of(WebChatTables)


class InMemoryWebChatSessionRepository(_Repo):
    """The in-memory :class:`.WebChatSessionRepository`."""

    def _mine(self) -> list[tuple[WebChatSession, str]]:
        return [(s, h) for (a, s, h) in self._t.web_chat_sessions.values() if a == self._account]

    def add(self, draft: SessionDraft, now: datetime) -> WebChatSession:
        """In memory, as :meth:`.WebChatSessionRepository.add`."""
        v = draft.visitor
        session = WebChatSession(
            id=self._store.next_id(),
            session_id=draft.session_id,
            status="active",
            handled_by="ai",
            visitor_name=v.name,
            visitor_email=v.email,
            visitor_phone=v.phone,
            visitor_ip=v.ip,
            visitor_page_url=v.page_url,
            visitor_referrer=v.referrer,
            has_visitor_messages=False,
            human_requested_at=None,
            human_took_over_at=None,
            ended_at=None,
            last_seq=0,
            last_activity_at=now,
            created_at=now,
        )
        self._t.web_chat_sessions[session.id] = (self._account, session, draft.token_hash)
        return session

    def get(self, session_id: str) -> WebChatSession | None:
        """In memory, as :meth:`.WebChatSessionRepository.get`."""
        return next((s for s, _ in self._mine() if s.session_id == session_id), None)

    def by_token(self, token_hash: str) -> WebChatSession | None:
        """In memory, as :meth:`.WebChatSessionRepository.by_token`."""
        return next((s for s, h in self._mine() if h == token_hash), None)

    def find(self, filters: SessionFilter, page: PageRequest) -> Page[WebChatSession]:
        """In memory, as :meth:`.WebChatSessionRepository.find`."""
        found = sorted(
            (s for s, _ in self._mine() if filters.matches(s)), key=lambda s: (s.last_activity_at, s.id), reverse=True
        )
        return paginate(found, page)

    def update(self, session: WebChatSession) -> None:
        """In memory, as :meth:`.WebChatSessionRepository.update`."""
        row = self._t.web_chat_sessions.get(session.id)
        if row is not None and row[0] == self._account:
            self._t.web_chat_sessions[session.id] = (self._account, session, row[2])

    def add_message(self, session: WebChatSession, draft: MessageDraft, seq: int, now: datetime) -> WebChatMessage:
        """In memory, as :meth:`.WebChatSessionRepository.add_message`."""
        if any(m.seq == seq for m in self.messages(session)):
            raise ValueError(f"seq {seq} is already taken in session {session.session_id}")
        message = WebChatMessage(
            self._store.next_id(),
            seq,
            draft.sender_type,
            draft.message_text,
            draft.message_type,
            draft.media_url,
            False,
            now,
            draft.reply_to,
        )
        self._t.web_chat_messages[message.id] = (self._account, session.id, message)
        return message

    def messages(
        self, session: WebChatSession, after_seq: int = 0, limit: int | None = None
    ) -> Sequence[WebChatMessage]:
        """In memory, as :meth:`.WebChatSessionRepository.messages`."""
        found = sorted(
            (
                m
                for (a, s, m) in self._t.web_chat_messages.values()
                if a == self._account and s == session.id and m.seq > after_seq
            ),
            key=lambda m: m.seq,
        )
        return found if limit is None else found[:limit]

    def answer_to(self, visitor_message_id: int) -> WebChatMessage | None:
        """In memory, as :meth:`.WebChatSessionRepository.answer_to`."""
        return next(
            (
                m
                for (a, _, m) in self._t.web_chat_messages.values()
                if a == self._account and m.reply_to == visitor_message_id
            ),
            None,
        )

    def session_of(self, message_id: int) -> WebChatSession | None:
        """In memory, as :meth:`.WebChatSessionRepository.session_of`."""
        row = self._t.web_chat_messages.get(message_id)
        if row is None or row[0] != self._account:
            return None
        return self._t.web_chat_sessions[row[1]][1]

    def stats_since(self, since: datetime) -> Sequence[SessionStat]:
        """In memory, as :meth:`.WebChatSessionRepository.stats_since`."""
        return [
            SessionStat(s.created_at, s.status, s.has_visitor_messages, visitor_key(s))
            for s, _ in self._mine()
            if s.created_at >= since
        ]

    def message_counts_since(self, since: datetime) -> Mapping[str, int]:
        """In memory, as :meth:`.WebChatSessionRepository.message_counts_since`."""
        started = {s.id for s, _ in self._mine() if s.created_at >= since}
        counts: dict[str, int] = {}
        for account, session_id, message in self._t.web_chat_messages.values():
            if account == self._account and session_id in started:
                counts[message.sender_type] = counts.get(message.sender_type, 0) + 1
        return counts


class InMemoryWidgetRepository(_Repo):
    """The in-memory :class:`.WidgetRepository`."""

    def get(self) -> Widget | None:
        """In memory, as :meth:`.WidgetRepository.get`."""
        row = self._t.web_chat_widgets.get(self._account)
        return None if row is None else row[1]

    def save(self, widget: Widget) -> None:
        """In memory, as :meth:`.WidgetRepository.save`."""
        self._t.web_chat_widgets[self._account] = (self._account, widget)


class InMemoryWidgetDirectory(_Repo):
    """The in-memory :class:`.WidgetDirectory`."""

    def account_for_key(self, widget_key: str) -> int | None:
        """In memory, as :meth:`.WidgetDirectory.account_for_key`."""
        return next((a for (a, w) in self._t.web_chat_widgets.values() if w.widget_key == widget_key), None)


class RecordingLiveFeed:
    """A :class:`.LiveFeed` that remembers what it was told (tests wait on `published`)."""

    def __init__(self) -> None:
        self.published: list[tuple[int, str]] = []
        self._lock = threading.Lock()

    def publish(self, account_id: int, session_id: str) -> None:
        """Remember the notice."""
        with self._lock:
            self.published.append((account_id, session_id))


AREA = FakeArea(
    WebChatTables,
    workspace={"web_chat_sessions": InMemoryWebChatSessionRepository, "web_chat_widgets": InMemoryWidgetRepository},
    admin={"web_chat_widget_directory": InMemoryWidgetDirectory},
)
