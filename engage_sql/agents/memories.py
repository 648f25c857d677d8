"""Contact memories of one account: each fact once per contact (a unique index, without case)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, insert, select

from engage_core.agents.memories import ContactMemory, MemoryDraft
from engage_sql.agents.tables import contact_memories
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow


def memory_from_row(row: AnyRow) -> ContactMemory:
    return ContactMemory(
        id=row.id,
        account_id=row.account_id,
        contact_id=row.contact_id,
        fact=row.fact,
        source_message_id=row.source_message_id,
        created_at=row.created_at,
    )


class SqlContactMemoryRepository(WorkspaceRepository):
    def add(self, draft: MemoryDraft, now: datetime) -> ContactMemory:
        values = {
            "account_id": self._account_id,
            "contact_id": draft.contact_id,
            "fact": draft.fact,
            "source_message_id": draft.source_message_id,
            "created_at": now,
        }
        row = self._conn.execute(insert(contact_memories).values(values).returning(contact_memories)).one()
        return memory_from_row(row)

    def for_contact(self, contact_id: int) -> Sequence[ContactMemory]:
        rows = self._conn.execute(
            select(contact_memories)
            .where(self.owned(contact_memories), contact_memories.c.contact_id == contact_id)
            .order_by(contact_memories.c.created_at, contact_memories.c.id)
        )
        return [memory_from_row(row) for row in rows]

    def get(self, memory_id: int) -> ContactMemory | None:
        row = self._conn.execute(
            select(contact_memories).where(self.owned(contact_memories), contact_memories.c.id == memory_id)
        ).one_or_none()
        return None if row is None else memory_from_row(row)

    def delete(self, memory_ids: Sequence[int]) -> None:
        if memory_ids:
            self._conn.execute(
                delete(contact_memories).where(self.owned(contact_memories), contact_memories.c.id.in_(memory_ids))
            )
