"""Knowledge-base chunks of one account (`knowledge_base_chunks`)."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import case, delete, func, insert, null, select, update

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
            # The embedding described the old text: keep it only if the text is unchanged (SET
            # expressions see the row as it was).
            same = table.c.content == patch.content
            values.update(
                content=patch.content,
                char_count=len(patch.content),
                embedding=case((same, table.c.embedding), else_=null()),
                embedding_updated_at=case((same, table.c.embedding_updated_at), else_=null()),
            )
        if patch.context_header is not None:
            values["context_header"] = patch.context_header
        if patch.keywords is not None:
            values["keywords"] = list(patch.keywords)
        changed = self._conn.execute(update(table).where(self.owned(table), table.c.id == chunk_id).values(**values))
        # Read back rather than RETURNING: on SQLite, RETURNING gave the old `embedding IS NOT NULL`
        # after this UPDATE (the contract test caught it), though the row held NULL.
        return self.get(chunk_id) if changed.rowcount else None

    def append(self, entry_id: int, draft: ChunkDraft, now: datetime) -> Chunk:
        of_entry = (self.owned(table), table.c.knowledge_base_id == entry_id)
        total = self.count(entry_id) + 1
        self._conn.execute(update(table).where(*of_entry).values(total_chunks=total))
        row = self._conn.execute(
            insert(table)
            .values(
                account_id=self._account_id,
                knowledge_base_id=entry_id,
                chunk_index=total - 1,
                total_chunks=total,
                content=draft.content,
                context_header=draft.context_header,
                keywords=list(draft.keywords),
                char_count=draft.char_count,
                embedding=None,
                embedding_updated_at=None,
                created_at=now,
                updated_at=now,
            )
            .returning(*_COLUMNS)
        ).one()
        return chunk_from_row(row)

    def delete(self, chunk_id: int) -> bool:
        gone = self._conn.execute(
            delete(table)
            .where(self.owned(table), table.c.id == chunk_id)
            .returning(table.c.knowledge_base_id, table.c.chunk_index)
        ).one_or_none()
        if gone is None:
            return False
        of_entry = (self.owned(table), table.c.knowledge_base_id == gone.knowledge_base_id)
        # Indexes first, then the total: each statement leaves `chunk_index < total_chunks` true.
        self._conn.execute(
            update(table)
            .where(*of_entry, table.c.chunk_index > gone.chunk_index)
            .values(chunk_index=table.c.chunk_index - 1)
        )
        self._conn.execute(update(table).where(*of_entry).values(total_chunks=self.count(gone.knowledge_base_id)))
        return True

    def count(self, entry_id: int) -> int:
        return int(
            self._conn.execute(
                select(func.count()).where(self.owned(table), table.c.knowledge_base_id == entry_id)
            ).scalar_one()
        )

    def set_embedding(self, chunk_id: int, content: str, vector: Sequence[float], now: datetime) -> bool:
        result = self._conn.execute(
            update(table)
            .where(self.owned(table), table.c.id == chunk_id, table.c.content == content)
            .values(embedding=pack_vector(vector), embedding_updated_at=now)
        )
        return bool(result.rowcount)

    def embeddings(self, chunk_ids: Sequence[int]) -> dict[int, list[float]]:
        if not chunk_ids:
            return {}
        rows = self._conn.execute(
            select(table.c.id, table.c.embedding).where(
                self.owned(table), table.c.id.in_(list(chunk_ids)), table.c.embedding.is_not(None)
            )
        )
        return {row.id: unpack_vector(row.embedding) for row in rows}


def pack_vector(vector: Sequence[float]) -> bytes:
    """A vector as little-endian float32 bytes (4 bytes a dimension; no pgvector here)."""
    packed = array("f", vector)
    if sys.byteorder == "big":
        packed.byteswap()
    return packed.tobytes()


def unpack_vector(data: bytes) -> list[float]:
    unpacked = array("f")
    unpacked.frombytes(data)
    if sys.byteorder == "big":
        unpacked.byteswap()
    return unpacked.tolist()
