"""What web chat needs from storage and from the live delivery."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.webchat.analytics import SessionStat
from engage_core.webchat.sessions import MessageDraft, SessionDraft, SessionFilter, WebChatMessage, WebChatSession
from engage_core.webchat.widgets import Widget


class WebChatSessionRepository(Protocol):
    """Sessions of one account with their message logs."""

    def add(self, draft: SessionDraft, now: datetime) -> WebChatSession:
        """Store a new session: `active`, handled by `ai`, no messages; `created_at` = `last_activity_at` = `now`."""

    def get(self, session_id: str) -> WebChatSession | None:
        """By the public `session_id`. In a write unit of work the SQL adapter locks the row (PostgreSQL),
        which serialises the sequence numbers of the session's messages."""

    def by_token(self, token_hash: str) -> WebChatSession | None:
        """By the hash of the visitor's token (locked like `get`)."""

    def find(self, filters: SessionFilter, page: PageRequest) -> Page[WebChatSession]:
        """Most recently active first (`last_activity_at`, then `id`, descending)."""

    def update(self, session: WebChatSession) -> None:
        """Store `status`, `handled_by`, the visitor's fields, `has_visitor_messages`, the moments and `last_seq`."""

    def add_message(self, session: WebChatSession, draft: MessageDraft, seq: int, now: datetime) -> WebChatMessage:
        """Store a message of the session with sequence number `seq` (unique per session)."""

    def messages(
        self, session: WebChatSession, after_seq: int = 0, limit: int | None = None
    ) -> Sequence[WebChatMessage]:
        """The session's messages with `seq` above `after_seq`, in order; at most `limit` (the oldest)."""

    def answer_to(self, visitor_message_id: int) -> WebChatMessage | None:
        """The `bot` message answering a visitor message, if recorded."""

    def session_of(self, message_id: int) -> WebChatSession | None:
        """The session of a message of the account, or None."""

    def stats_since(self, since: datetime) -> Sequence[SessionStat]:
        """Analytics' view of every session started at or after `since`."""

    def message_counts_since(self, since: datetime) -> Mapping[str, int]:
        """The messages of the sessions started at or after `since`, counted by `sender_type`."""


class WidgetRepository(Protocol):
    """The account's widget settings (one row per account)."""

    def get(self) -> Widget | None:
        """The account's widget, or None before it was first read."""

    def save(self, widget: Widget) -> None:
        """Insert or replace the account's widget."""


class WidgetDirectory(Protocol):
    """Across accounts: which account a widget key belongs to (the visitor routes know only the key)."""

    def account_for_key(self, widget_key: str) -> int | None:
        """The account whose current widget key is `widget_key`, or None."""


class WebChatRepositories(Protocol):
    """Web chat's repositories, as a workspace unit of work hands them out."""

    @property
    def web_chat_sessions(self) -> WebChatSessionRepository:
        """Sessions and messages."""

    @property
    def web_chat_widgets(self) -> WidgetRepository:
        """The widget settings."""


class WebChatDirectoryRepositories(Protocol):
    """Web chat's repositories across accounts, as the administration unit of work hands them out."""

    @property
    def web_chat_widget_directory(self) -> WidgetDirectory:
        """Widget keys across accounts."""


class LiveFeed(Protocol):
    """Tells live listeners (the server-sent event streams) that a session's log grew.

    Called after the commit; a listener then reads what it has not seen from storage, so a lost
    notice delays a message (listeners also look again on their own every few seconds) and never
    loses it. In process on one process; across processes through PostgreSQL LISTEN/NOTIFY."""

    def publish(self, account_id: int, session_id: str) -> None:
        """The session's log or state changed."""


class NoLiveFeed:
    """Tells nobody: listeners find new messages when they look again."""

    def publish(self, account_id: int, session_id: str) -> None:
        """Does nothing."""
