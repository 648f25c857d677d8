"""Who answers each contact's conversation, in `conversation_handling`: one row per contact whose state
ever moved (`engage_core.messaging.handling`).

A move reads the state, applies the rule and writes it back. On PostgreSQL two moves of one
conversation must not both read the state before either writes it (a hand-over by the AI would then
undo a take-over made meanwhile), and there may be no row yet to lock: `get` in a write unit of work
locks the contact's row instead, `FOR NO KEY UPDATE`, which a message being added for the contact
(its foreign-key check takes `FOR KEY SHARE`) does not wait for. SQLite runs one writer at a time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, select, update

from engage_core.messaging.handling import ConversationHandling
from engage_sql.contacts.tables import contacts
from engage_sql.messaging.tables import conversation_handling
from engage_sql.repository import WorkspaceRepository
from engage_sql.statements import upsert
from engage_sql.types import AnyRow, Id

_COLUMNS = (
    conversation_handling.c.contact_id,
    conversation_handling.c.handled_by,
    conversation_handling.c.reason,
    conversation_handling.c.assignee_id,
    conversation_handling.c.context_since,
    conversation_handling.c.updated_at,
)
"""The columns of a state, in the order of `ConversationHandling`'s fields."""
_FIELDS = ("handled_by", "reason", "assignee_id", "context_since", "updated_at")

_ACCOUNT = bindparam("account", type_=Id)
_CONTACT = bindparam("contact", type_=Id)
_BY_CONTACT = select(*_COLUMNS).where(
    conversation_handling.c.account_id == _ACCOUNT, conversation_handling.c.contact_id == _CONTACT
)
_LOCK_CONTACT = (
    select(contacts.c.id)
    .where(contacts.c.account_id == _ACCOUNT, contacts.c.id == _CONTACT)
    .with_for_update(key_share=True)
)


def handling_from_row(row: AnyRow) -> ConversationHandling:
    return ConversationHandling(*row)


class SqlConversationHandlingRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` holds the conversation's moves (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._lock = lock_reads and connection.dialect.name == "postgresql"

    def get(self, contact_id: int) -> ConversationHandling | None:
        params = {"account": self._account_id, "contact": contact_id}
        if self._lock:
            self._conn.execute(_LOCK_CONTACT, params)
        row = self._conn.execute(_BY_CONTACT, params).first()
        return None if row is None else handling_from_row(row)

    def put(self, handling: ConversationHandling) -> None:
        values: dict[str, Any] = {name: getattr(handling, name) for name in _FIELDS}
        statement = upsert(self._conn, conversation_handling, ("account_id", "contact_id"), _FIELDS)
        self._conn.execute(statement.values(account_id=self._account_id, contact_id=handling.contact_id, **values))

    def unassign_member(self, member_id: int, now: datetime) -> int:
        cleared = self._conn.execute(
            update(conversation_handling)
            .where(self.owned(conversation_handling), conversation_handling.c.assignee_id == member_id)
            .values(assignee_id=None, updated_at=now)
        )
        return cleared.rowcount
