"""Knowledge-base chunks of one account (`knowledge_base_chunks`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update

from engage_core.knowledge.chunking import ChunkDraft
from engage_core.knowledge.search import Chunk, ChunkPatch
from engage_sql.knowledge.tables import knowledge_base_chunks as table
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_COLUMNS = (
    table.c.id,
    table.c.knowledge_base_id,
    table.c.content,
    table.c.chunk_index,
    table.c.total_chunks,
    table.c.context_header,
    table.c.keywords,
    (table.c.embedding.is_not(None)).label("has_embedding"),
    table.c.embedding_updated_at,
    table.c.created_at,
    table.c.updated_at,
)


def chunk_from_row(row: AnyRow) -> Chunk:
    return Chunk(
        id=row.id,
        knowledge_base_id=row.knowledge_base_id,
        content=row.content,
        chunk_index=row.chunk_index,
        total_chunks=row.total_chunks,
        context_header=row.context_header,
        keywords=None if row.keywords is None else tuple(row.keywords),
        has_embedding=bool(row.has_embedding),
        embedding_updated_at=row.embedding_updated_at,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlChunkRepository(WorkspaceRepository):
    def replace(self, entry_id: int, chunks: Sequence[ChunkDraft], now: datetime) -> list[Chunk]:
        # One transaction (the unit of work's): readers see the old chunks or the new, never a mix.
        self._conn.execute(delete(table).where(self.owned(table), table.c.knowledge_base_id == entry_id))
        if not chunks:
            return []
        rows = self._conn.execute(
            insert(table).returning(*_COLUMNS, sort_by_parameter_order=True),
            [
                {
                    "account_id": self._account_id,
                    "knowledge_base_id": entry_id,
                    "chunk_index": draft.chunk_index,
                    "total_chunks": draft.total_chunks,
                    "content": draft.content,
                    "context_header": draft.context_header,
                    "keywords": list(draft.keywords),
                    "char_count": draft.char_count,
                    "embedding": None,
                    "embedding_updated_at": None,
                    "created_at": now,
                    "updated_at": now,
                }
                for draft in chunks
            ],
        ).all()
        return sorted((chunk_from_row(row) for row in rows), key=lambda c: c.chunk_index)

    def for_entry(self, entry_id: int) -> list[Chunk]:
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(self.owned(table), table.c.knowledge_base_id == entry_id)
            .order_by(table.c.chunk_index, table.c.id)
        )
        return [chunk_from_row(row) for row in rows]

    def get(self, chunk_id: int) -> Chunk | None:
        row = self._conn.execute(select(*_COLUMNS).where(self.owned(table), table.c.id == chunk_id)).one_or_none()
        return None if row is None else chunk_from_row(row)

    def update(self, chunk_id: int, patch: ChunkPatch, now: datetime) -> Chunk | None:
        values: dict[str, Any] = {"updated_at": now}
        if patch.content is not None:
            values.update(content=patch.content, char_count=len(patch.content))
        if patch.context_header is not None:
            values["context_header"] = patch.context_header
        if patch.keywords is not None:
            values["keywords"] = list(patch.keywords)
        statement = update(table).where(self.owned(table), table.c.id == chunk_id)
        if patch.content is not None:
            # The embedding described the old text: drop it unless the text is unchanged.
            changed = table.c.content != patch.content
            self._conn.execute(statement.where(changed).values(embedding=None, embedding_updated_at=None))
        row = self._conn.execute(statement.values(**values).returning(*_COLUMNS)).one_or_none()
        return None if row is None else chunk_from_row(row)

    def delete(self, chunk_id: int) -> bool:
        result = self._conn.execute(delete(table).where(self.owned(table), table.c.id == chunk_id))
        return bool(result.rowcount)

    def count(self, entry_id: int) -> int:
        return int(
            self._conn.execute(
                select(func.count()).where(self.owned(table), table.c.knowledge_base_id == entry_id)
            ).scalar_one()
        )
