"""The documents of one account's document entries (`knowledge_base_documents`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import insert, select

from engage_core.knowledge.documents import Document, DocumentDraft
from engage_sql.knowledge.tables import knowledge_base_documents as table
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_COLUMNS = (
    table.c.id,
    table.c.knowledge_base_id,
    table.c.original_name,
    table.c.file_type,
    table.c.processing_status,
    table.c.extracted_content,
    table.c.processing_error,
    table.c.created_at,
    table.c.updated_at,
)


def document_from_row(row: AnyRow) -> Document:
    return Document(
        id=row.id,
        knowledge_base_id=row.knowledge_base_id,
        original_name=row.original_name,
        file_type=row.file_type,
        processing_status=row.processing_status,
        extracted_content=row.extracted_content,
        processing_error=row.processing_error,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlDocumentRepository(WorkspaceRepository):
    def add_many(self, entry_id: int, drafts: Sequence[DocumentDraft], now: datetime) -> list[Document]:
        if not drafts:
            return []
        rows = self._conn.execute(
            insert(table).returning(*_COLUMNS, sort_by_parameter_order=True),
            [
                {
                    "account_id": self._account_id,
                    "knowledge_base_id": entry_id,
                    "original_name": draft.original_name,
                    "file_type": draft.file_type,
                    "processing_status": draft.processing_status,
                    "extracted_content": draft.extracted_content,
                    "processing_error": draft.processing_error,
                    "created_at": now,
                    "updated_at": now,
                }
                for draft in drafts
            ],
        ).all()
        return [document_from_row(row) for row in rows]

    def for_entry(self, entry_id: int) -> list[Document]:
        rows = self._conn.execute(
            select(*_COLUMNS).where(self.owned(table), table.c.knowledge_base_id == entry_id).order_by(table.c.id)
        )
        return [document_from_row(row) for row in rows]
