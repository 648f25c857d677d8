"""Knowledge-base entries of one account: the fields every entry type shares."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import insert, select

from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_sql.knowledge.tables import knowledge_base_entries
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_COLUMNS = (
    knowledge_base_entries.c.id,
    knowledge_base_entries.c.title,
    knowledge_base_entries.c.type,
    knowledge_base_entries.c.description,
    knowledge_base_entries.c.business_description,
    knowledge_base_entries.c.status,
    knowledge_base_entries.c.embedding_updated_at,
    knowledge_base_entries.c.created_at,
    knowledge_base_entries.c.updated_at,
)


def entry_from_row(row: AnyRow) -> KnowledgeBaseEntry:
    return KnowledgeBaseEntry(
        id=row.id,
        title=row.title,
        type=row.type,
        description=row.description,
        business_description=row.business_description,
        status=row.status,
        embedding_updated_at=row.embedding_updated_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlKnowledgeBaseRepository(WorkspaceRepository):
    def add(self, draft: KnowledgeBaseDraft, now: datetime) -> KnowledgeBaseEntry:
        row = self._conn.execute(
            insert(knowledge_base_entries)
            .values(
                account_id=self._account_id,
                type=draft.type,
                title=draft.title,
                description=draft.description,
                business_description=draft.business_description,
                status=draft.status,
                content=None,
                embedding_updated_at=None,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one()
        return entry_from_row(row)

    def get(self, entry_id: int) -> KnowledgeBaseEntry | None:
        row = self._conn.execute(
            select(*_COLUMNS).where(self.owned(knowledge_base_entries), knowledge_base_entries.c.id == entry_id)
        ).one_or_none()
        return None if row is None else entry_from_row(row)
