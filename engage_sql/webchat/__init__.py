"""Web chat in SQL: sessions and their message logs, widgets, and the widget key directory."""

from __future__ import annotations

from engage_sql.registry import SqlArea
from engage_sql.webchat.sessions import SqlWebChatSessionRepository
from engage_sql.webchat.widgets import SqlWidgetDirectory, SqlWidgetRepository

AREA = SqlArea(
    workspace={
        "web_chat_sessions": lambda s: SqlWebChatSessionRepository(s.connection, s.account_id, lock_reads=s.writes),
        "web_chat_widgets": lambda s: SqlWidgetRepository(s.connection, s.account_id),
    },
    admin={"web_chat_widget_directory": lambda s: SqlWidgetDirectory(s.connection)},
)
