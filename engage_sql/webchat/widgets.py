"""The workspace's widget settings, and the directory of widget keys across accounts."""

from __future__ import annotations

from sqlalchemy import Connection, delete, insert, select

from engage_core.webchat.widgets import Widget
from engage_sql.repository import WorkspaceRepository
from engage_sql.webchat.tables import web_chat_widgets

W = web_chat_widgets.c


class SqlWidgetRepository(WorkspaceRepository):
    def get(self) -> Widget | None:
        row = self._conn.execute(select(web_chat_widgets).where(self.owned(web_chat_widgets))).first()
        if row is None:
            return None
        return Widget(
            widget_key=row.widget_key,
            allowed_origins=tuple(row.allowed_origins),
            color=row.color,
            greeting=row.greeting,
            language=row.language,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def save(self, widget: Widget) -> None:
        # Delete and insert: one row per account, the same on both engines.
        self._conn.execute(delete(web_chat_widgets).where(self.owned(web_chat_widgets)))
        self._conn.execute(
            insert(web_chat_widgets).values(
                account_id=self._account_id,
                widget_key=widget.widget_key,
                allowed_origins=list(widget.allowed_origins),
                color=widget.color,
                greeting=widget.greeting,
                language=widget.language,
                created_at=widget.created_at,
                updated_at=widget.updated_at,
            )
        )


class SqlWidgetDirectory:
    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def account_for_key(self, widget_key: str) -> int | None:
        found = self._conn.execute(select(W.account_id).where(W.widget_key == widget_key)).scalar()
        return None if found is None else int(found)
