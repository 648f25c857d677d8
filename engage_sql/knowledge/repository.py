"""Knowledge-base entries of one account: the fields every entry type shares."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, func, insert, select, update

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry, KnowledgeBaseFilter
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
                content=draft.content,
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

    def find(self, filters: KnowledgeBaseFilter, page: PageRequest) -> Page[KnowledgeBaseEntry]:
        table = knowledge_base_entries
        where = [self.owned(table)]
        if filters.type is not None:
            where.append(table.c.type == filters.type)
        if filters.status is not None:
            where.append(table.c.status == filters.status)
        total = self._conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(*where)
            .order_by(table.c.created_at.desc(), table.c.id.desc())
            .limit(page.per_page)
            .offset(page.offset)
        )
        return Page(items=[entry_from_row(row) for row in rows], request=page, total=total)

    def content(self, entry_id: int) -> str | None:
        table = knowledge_base_entries
        value = self._conn.execute(
            select(table.c.content).where(self.owned(table), table.c.id == entry_id)
        ).scalar_one_or_none()
        return None if value is None else str(value)

    def update(self, entry: KnowledgeBaseEntry, content: str | None = None) -> None:
        table = knowledge_base_entries
        values: dict[str, object] = {
            "title": entry.title,
            "description": entry.description,
            "business_description": entry.business_description,
            "status": entry.status,
            "embedding_updated_at": entry.embedding_updated_at,
            "updated_at": entry.updated_at,
        }
        if content is not None:
            values["content"] = content
        self._conn.execute(update(table).where(self.owned(table), table.c.id == entry.id).values(**values))

    def delete(self, entry_id: int) -> bool:
        # Chunks, products, documents and voice notes go with it (ON DELETE CASCADE).
        table = knowledge_base_entries
        result = self._conn.execute(delete(table).where(self.owned(table), table.c.id == entry_id))
        return bool(result.rowcount)
