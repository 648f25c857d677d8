"""Web chat sessions of one account with their message logs.

In a write unit of work on PostgreSQL, `get` and `by_token` read the session `FOR UPDATE`: the next
message's `seq` is taken from the locked row, so two writers of one session never take the same
number (SQLite runs one writer at a time), and a unique `(session_id, seq)` backs it. The same lock
makes the AI's storing transaction see a take-over that committed while the engine was thinking.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, func, insert, or_, select, update

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.webchat.analytics import SessionStat
from engage_core.webchat.sessions import (
    MessageDraft,
    SessionDraft,
    SessionFilter,
    WebChatMessage,
    WebChatSession,
    visitor_key,
)
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow
from engage_sql.webchat.tables import web_chat_messages, web_chat_sessions

S = web_chat_sessions.c
M = web_chat_messages.c
_SESSION_COLUMNS = (
    S.id,
    S.session_id,
    S.status,
    S.handled_by,
    S.visitor_name,
    S.visitor_email,
    S.visitor_phone,
    S.visitor_ip,
    S.visitor_page_url,
    S.visitor_referrer,
    S.has_visitor_messages,
    S.human_requested_at,
    S.human_took_over_at,
    S.ended_at,
    S.last_seq,
    S.last_activity_at,
    S.created_at,
)
_MESSAGE_COLUMNS = (
    M.id,
    M.seq,
    M.sender_type,
    M.message_text,
    M.message_type,
    M.media_url,
    M.is_read,
    M.created_at,
    M.reply_to,
)


def session_from_row(row: AnyRow) -> WebChatSession:
    return WebChatSession(
        id=row.id,
        session_id=row.session_id,
        status=row.status,
        handled_by=row.handled_by,
        visitor_name=row.visitor_name,
        visitor_email=row.visitor_email,
        visitor_phone=row.visitor_phone,
        visitor_ip=row.visitor_ip,
        visitor_page_url=row.visitor_page_url,
        visitor_referrer=row.visitor_referrer,
        has_visitor_messages=bool(row.has_visitor_messages),
        human_requested_at=row.human_requested_at,
        human_took_over_at=row.human_took_over_at,
        ended_at=row.ended_at,
        last_seq=row.last_seq,
        last_activity_at=row.last_activity_at,
        created_at=row.created_at,
    )


def message_from_row(row: AnyRow) -> WebChatMessage:
    return WebChatMessage(
        id=row.id,
        seq=row.seq,
        sender_type=row.sender_type,
        message_text=row.message_text,
        message_type=row.message_type,
        media_url=row.media_url,
        is_read=bool(row.is_read),
        created_at=row.created_at,
        reply_to=row.reply_to,
    )


class SqlWebChatSessionRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` and `by_token` lock the session (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._lock_reads = lock_reads and connection.dialect.name == "postgresql"

    def _first(self, *where: ColumnElement[bool]) -> WebChatSession | None:
        query = select(*_SESSION_COLUMNS).where(self.owned(web_chat_sessions), *where)
        if self._lock_reads:
            query = query.with_for_update()
        row = self._conn.execute(query).first()
        return None if row is None else session_from_row(row)

    def add(self, draft: SessionDraft, now: datetime) -> WebChatSession:
        v = draft.visitor
        new_id = self._conn.execute(
            insert(web_chat_sessions)
            .values(
                account_id=self._account_id,
                session_id=draft.session_id,
                token_hash=draft.token_hash,
                status="active",
                handled_by="ai",
                visitor_name=v.name,
                visitor_email=v.email,
                visitor_phone=v.phone,
                visitor_ip=v.ip,
                visitor_page_url=v.page_url,
                visitor_referrer=v.referrer,
                has_visitor_messages=False,
                last_seq=0,
                last_activity_at=now,
                created_at=now,
            )
            .returning(S.id)
        ).scalar_one()
        found = self._first(S.id == new_id)
        assert found is not None
        return found

    def get(self, session_id: str) -> WebChatSession | None:
        return self._first(S.session_id == session_id)

    def by_token(self, token_hash: str) -> WebChatSession | None:
        return self._first(S.token_hash == token_hash)

    def find(self, filters: SessionFilter, page: PageRequest) -> Page[WebChatSession]:
        where: list[ColumnElement[bool]] = [self.owned(web_chat_sessions)]
        if filters.status is not None:
            where.append(S.status == filters.status)
        if filters.handled_by is not None:
            where.append(S.handled_by == filters.handled_by)
        if filters.search:
            needle = "%" + _escape(filters.search.casefold()) + "%"
            where.append(
                or_(
                    *(
                        func.lower(c).like(needle, escape="\\")
                        for c in (S.visitor_name, S.visitor_email, S.visitor_phone)
                    )
                )
            )
        total = self._conn.execute(select(func.count()).select_from(web_chat_sessions).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_SESSION_COLUMNS)
            .where(*where)
            .order_by(S.last_activity_at.desc(), S.id.desc())
            .limit(page.per_page)
            .offset(page.offset)
        )
        return Page(items=[session_from_row(r) for r in rows], request=page, total=total)

    def update(self, session: WebChatSession) -> None:
        values: dict[str, Any] = {
            "status": session.status,
            "handled_by": session.handled_by,
            "visitor_name": session.visitor_name,
            "visitor_email": session.visitor_email,
            "visitor_phone": session.visitor_phone,
            "has_visitor_messages": session.has_visitor_messages,
            "human_requested_at": session.human_requested_at,
            "human_took_over_at": session.human_took_over_at,
            "ended_at": session.ended_at,
            "last_seq": session.last_seq,
            "last_activity_at": session.last_activity_at,
        }
        self._conn.execute(
            update(web_chat_sessions).where(self.owned(web_chat_sessions), S.id == session.id).values(values)
        )

    def add_message(self, session: WebChatSession, draft: MessageDraft, seq: int, now: datetime) -> WebChatMessage:
        new_id = self._conn.execute(
            insert(web_chat_messages)
            .values(
                account_id=self._account_id,
                session_id=session.id,
                seq=seq,
                sender_type=draft.sender_type,
                message_text=draft.message_text,
                message_type=draft.message_type,
                media_url=draft.media_url,
                is_read=False,
                reply_to=draft.reply_to,
                created_at=now,
            )
            .returning(M.id)
        ).scalar_one()
        return WebChatMessage(
            new_id,
            seq,
            draft.sender_type,
            draft.message_text,
            draft.message_type,
            draft.media_url,
            False,
            now,
            draft.reply_to,
        )

    def messages(
        self, session: WebChatSession, after_seq: int = 0, limit: int | None = None
    ) -> Sequence[WebChatMessage]:
        query = (
            select(*_MESSAGE_COLUMNS)
            .where(self.owned(web_chat_messages), M.session_id == session.id, M.seq > after_seq)
            .order_by(M.seq)
        )
        if limit is not None:
            query = query.limit(limit)
        return [message_from_row(r) for r in self._conn.execute(query)]

    def answer_to(self, visitor_message_id: int) -> WebChatMessage | None:
        row = self._conn.execute(
            select(*_MESSAGE_COLUMNS).where(self.owned(web_chat_messages), M.reply_to == visitor_message_id)
        ).first()
        return None if row is None else message_from_row(row)

    def session_of(self, message_id: int) -> WebChatSession | None:
        session_pk = self._conn.execute(
            select(M.session_id).where(self.owned(web_chat_messages), M.id == message_id)
        ).scalar()
        return None if session_pk is None else self._first(S.id == session_pk)

    def stats_since(self, since: datetime) -> Sequence[SessionStat]:
        rows = self._conn.execute(select(*_SESSION_COLUMNS).where(self.owned(web_chat_sessions), S.created_at >= since))
        stats = []
        for row in rows:
            session = session_from_row(row)
            stats.append(
                SessionStat(session.created_at, session.status, session.has_visitor_messages, visitor_key(session))
            )
        return stats

    def message_counts_since(self, since: datetime) -> Mapping[str, int]:
        started = select(S.id).where(self.owned(web_chat_sessions), S.created_at >= since)
        rows = self._conn.execute(
            select(M.sender_type, func.count())
            .where(self.owned(web_chat_messages), M.session_id.in_(started))
            .group_by(M.sender_type)
        )
        return {sender: int(count) for sender, count in rows}


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
