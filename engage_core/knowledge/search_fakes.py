"""In-memory fakes of the chunk repository and the retriever; the retriever ranks with BM25 of its
own over the same terms (`engage_core.knowledge.terms`) the SQL indexes search, so services
tested over the fakes see the passages the real adapters would find."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.knowledge.chunking import ChunkDraft
from engage_core.knowledge.fakes import KnowledgeTables
from engage_core.knowledge.search import (
    CANDIDATES,
    DEFAULT_LIMIT,
    Candidate,
    Chunk,
    ChunkPatch,
    SearchHit,
    check_limit,
    ranked,
    snippet,
)
from engage_core.knowledge.terms import matches, query_terms, tokens

_K1 = 1.2
_B = 0.75
_FIELD_WEIGHT = 2
"""How many times a word of the context header or keywords counts against one of the content, as
the SQL indexes weight those columns."""


@attrs.define
class ChunkTables(Tables):
    """Chunks by id, each with its account; embeddings by chunk id."""

    knowledge_base_chunks: dict[int, tuple[int, Chunk]] = attrs.Factory(dict)
    knowledge_base_chunk_embeddings: dict[int, tuple[float, ...]] = attrs.Factory(dict)

    def forget(self, kind: str, ident: int) -> None:
        if kind == "knowledge_base":
            for key in [k for k, (_, c) in self.knowledge_base_chunks.items() if c.knowledge_base_id == ident]:
                del self.knowledge_base_chunks[key]
                self.knowledge_base_chunk_embeddings.pop(key, None)


class _Repo(Repo):
    @property
    def _t(self) -> ChunkTables:
        return self._state.of(ChunkTables)

    def _owned(self) -> list[Chunk]:
        return [chunk for account, chunk in self._t.knowledge_base_chunks.values() if account == self._account]


class InMemoryChunkRepository(_Repo):
    def replace(self, entry_id: int, chunks: Sequence[ChunkDraft], now: datetime) -> list[Chunk]:
        table = self._t.knowledge_base_chunks
        for key in [c.id for c in self._owned() if c.knowledge_base_id == entry_id]:
            del table[key]
            self._t.knowledge_base_chunk_embeddings.pop(key, None)
        stored = [
            Chunk(
                id=self._store.next_id(),
                knowledge_base_id=entry_id,
                content=draft.content,
                chunk_index=draft.chunk_index,
                total_chunks=draft.total_chunks,
                context_header=draft.context_header,
                keywords=draft.keywords,
                has_embedding=False,
                embedding_updated_at=None,
                created_at=now,
                updated_at=now,
            )
            for draft in chunks
        ]
        for chunk in stored:
            table[chunk.id] = (self._account, chunk)
        return sorted(stored, key=lambda c: c.chunk_index)

    def for_entry(self, entry_id: int) -> list[Chunk]:
        return sorted((c for c in self._owned() if c.knowledge_base_id == entry_id), key=lambda c: c.chunk_index)

    def get(self, chunk_id: int) -> Chunk | None:
        row = self._t.knowledge_base_chunks.get(chunk_id)
        return None if row is None or row[0] != self._account else row[1]

    def update(self, chunk_id: int, patch: ChunkPatch, now: datetime) -> Chunk | None:
        chunk = self.get(chunk_id)
        if chunk is None:
            return None
        updated = attrs.evolve(
            chunk,
            context_header=chunk.context_header if patch.context_header is None else patch.context_header,
            keywords=chunk.keywords if patch.keywords is None else patch.keywords,
            updated_at=now,
        )
        if patch.content is not None and patch.content != chunk.content:
            # The embedding described the old text.
            updated = attrs.evolve(updated, content=patch.content, has_embedding=False, embedding_updated_at=None)
            self._t.knowledge_base_chunk_embeddings.pop(chunk_id, None)
        self._t.knowledge_base_chunks[chunk_id] = (self._account, updated)
        return updated

    def append(self, entry_id: int, draft: ChunkDraft, now: datetime) -> Chunk:
        siblings = self.for_entry(entry_id)
        total = len(siblings) + 1
        for sibling in siblings:
            self._t.knowledge_base_chunks[sibling.id] = (self._account, attrs.evolve(sibling, total_chunks=total))
        chunk = Chunk(
            id=self._store.next_id(),
            knowledge_base_id=entry_id,
            content=draft.content,
            chunk_index=total - 1,
            total_chunks=total,
            context_header=draft.context_header,
            keywords=draft.keywords,
            has_embedding=False,
            embedding_updated_at=None,
            created_at=now,
            updated_at=now,
        )
        self._t.knowledge_base_chunks[chunk.id] = (self._account, chunk)
        return chunk

    def delete(self, chunk_id: int) -> bool:
        chunk = self.get(chunk_id)
        if chunk is None:
            return False
        del self._t.knowledge_base_chunks[chunk_id]
        self._t.knowledge_base_chunk_embeddings.pop(chunk_id, None)
        rest = self.for_entry(chunk.knowledge_base_id)
        for sibling in rest:
            index = sibling.chunk_index - 1 if sibling.chunk_index > chunk.chunk_index else sibling.chunk_index
            moved = attrs.evolve(sibling, chunk_index=index, total_chunks=len(rest))
            self._t.knowledge_base_chunks[sibling.id] = (self._account, moved)
        return True

    def count(self, entry_id: int) -> int:
        return sum(1 for c in self._owned() if c.knowledge_base_id == entry_id)

    def set_embedding(self, chunk_id: int, content: str, vector: Sequence[float], now: datetime) -> bool:
        chunk = self.get(chunk_id)
        if chunk is None or chunk.content != content:
            return False
        self._t.knowledge_base_chunk_embeddings[chunk_id] = tuple(float(x) for x in vector)
        updated = attrs.evolve(chunk, has_embedding=True, embedding_updated_at=now)
        self._t.knowledge_base_chunks[chunk_id] = (self._account, updated)
        return True

    def embeddings(self, chunk_ids: Sequence[int]) -> dict[int, list[float]]:
        stored = self._t.knowledge_base_chunk_embeddings
        return {i: list(stored[i]) for i in chunk_ids if i in stored and self.get(i) is not None}


class InMemoryRetriever(_Repo):
    def search(self, query: str, *, types: Sequence[str] | None = None, limit: int = DEFAULT_LIMIT) -> list[SearchHit]:
        check_limit(limit)
        terms = query_terms(query)
        if not terms:
            return []
        entries = {
            entry.id: entry
            for account, entry in self._state.of(KnowledgeTables).knowledge_base.values()
            if account == self._account and entry.status == "active" and (types is None or entry.type in types)
        }
        chunks = sorted((c for c in self._owned() if c.knowledge_base_id in entries), key=lambda c: c.id)
        documents = [_words(c) for c in chunks]
        if not documents:
            return []
        average = sum(len(d) for d in documents) / len(documents)
        counts = [Counter(d) for d in documents]
        frequency = {t: sum(1 for c in counts if any(matches(t, [w]) for w in c)) for t in terms}
        scores: list[tuple[float, int]] = []
        for position, (document, counted) in enumerate(zip(documents, counts, strict=True)):
            score = 0.0
            for term in terms:
                tf = sum(n for word, n in counted.items() if matches(term, [word]))
                if tf:
                    idf = math.log(1 + (len(documents) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                    score += idf * tf * (_K1 + 1) / (tf + _K1 * (1 - _B + _B * len(document) / average))
            if score > 0:
                scores.append((-score, position))
        scores.sort()
        candidates = []
        for rank, (_, position) in enumerate(scores[: max(CANDIDATES, limit)]):
            chunk = chunks[position]
            entry = entries[chunk.knowledge_base_id]
            candidates.append(
                Candidate(
                    chunk.id,
                    entry.id,
                    entry.title,
                    entry.type,
                    chunk.content,
                    chunk.context_header,
                    chunk.keywords or (),
                    rank,
                )
            )
        return [c.hit(score, snippet(c.content, terms)) for c, score in ranked(terms, candidates, limit)]


def _words(chunk: Chunk) -> list[str]:
    weighted = f"{chunk.context_header or ''} {' '.join(chunk.keywords or ())}"
    return tokens(chunk.content) + tokens(weighted) * _FIELD_WEIGHT


AREA = FakeArea(
    ChunkTables,
    workspace={
        "knowledge_chunks": InMemoryChunkRepository,
        "knowledge_search": InMemoryRetriever,
    },
)
