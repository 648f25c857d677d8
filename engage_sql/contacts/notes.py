"""Notes on the contacts of one account."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import literal, select

from engage_core.contacts.model import Note
from engage_core.kernel.errors import NotFound
from engage_sql.contacts.tables import contact_notes, contacts
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow, UTCDateTime

_COLUMNS = (
    contact_notes.c.id,
    contact_notes.c.contact_id,
    contact_notes.c.content,
    contact_notes.c.created_at,
    contact_notes.c.updated_at,
)


def note_from_row(row: AnyRow) -> Note:
    return Note(
        id=row.id, contact_id=row.contact_id, content=row.content, created_at=row.created_at, updated_at=row.updated_at
    )


class SqlNoteRepository(WorkspaceRepository):
    def add(self, contact_id: int, content: str, now: datetime) -> Note:
        """Raises NotFound when the contact is not this account's."""
        stamp = literal(now, UTCDateTime())
        row = self._conn.execute(
            contact_notes.insert()
            .from_select(
                ["account_id", "contact_id", "content", "created_at", "updated_at"],
                select(contacts.c.account_id, contacts.c.id, literal(content), stamp, stamp).where(
                    self.owned(contacts), contacts.c.id == contact_id
                ),
            )
            .returning(*_COLUMNS)
        ).one_or_none()
        if row is None:
            raise NotFound("Contact")
        return note_from_row(row)

    def for_contact(self, contact_id: int) -> Sequence[Note]:
        """Newest first."""
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(self.owned(contact_notes), contact_notes.c.contact_id == contact_id)
            .order_by(contact_notes.c.created_at.desc(), contact_notes.c.id.desc())
        )
        return [note_from_row(row) for row in rows]
