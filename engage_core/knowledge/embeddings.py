"""Semantic search, optional: chunk embeddings and their blend with full-text ranking.

Without an `Embedder` (the default) nothing here runs: chunks keep `has_embedding` false and
`embedding_updated_at` None, and search is full text alone.

With one, `KnowledgeSearch.embed_entry` stores a vector for each chunk of an entry that lacks one
(only if the chunk's text is still the text that was embedded, so `has_embedding` never describes
older text), and `KnowledgeSearch.search` blends:

1. the query is embedded first, outside any transaction (a slow embedding service holds no
   database connection); if the service fails, the search goes on with full text alone;
2. full-text search hands over its best `MAX_LIMIT` hits (the candidates; a passage sharing no word
   with the question is not among them, which keeps the cost bounded with no vector index);
3. each candidate with an embedding gets `(1 - SEMANTIC_WEIGHT) * text score + SEMANTIC_WEIGHT *
   max(0, cosine similarity)`, computed in Python; one without keeps its text score;
4. the `limit` best by that blended score are returned, with it as their `score` (still 0 to 1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, Unavailable
from engage_core.knowledge.search import DEFAULT_LIMIT, MAX_LIMIT, SearchHit, check_limit
from engage_core.unit_of_work import UnitOfWorkFactory

SEMANTIC_WEIGHT = 0.5


class Embedder(Protocol):
    """Turns texts into vectors of one model (an OpenAI-compatible `/embeddings` service, ...)."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order. Raises `Unavailable` when the service cannot answer."""


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """Cosine similarity, 0 when either vector is zero or their lengths differ (another model)."""
    if len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norms if norms else 0.0


def blend(hits: Sequence[SearchHit], vectors: dict[int, list[float]], query: Sequence[float]) -> list[SearchHit]:
    """The hits re-scored with their similarity to the query (see the module notes), best first."""
    scored = []
    for position, hit in enumerate(hits):
        vector = vectors.get(hit.chunk_id)
        score = hit.score
        if vector is not None:
            score = (1 - SEMANTIC_WEIGHT) * hit.score + SEMANTIC_WEIGHT * max(0.0, cosine(query, vector))
        scored.append((round(score, 4), position, hit))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [
        SearchHit(h.chunk_id, h.knowledge_base_id, h.title, h.type, h.content, h.context_header, score, h.snippet)
        for score, _, h in scored
    ]


class KnowledgeSearch:
    """Search as callers use it: full text, blended with embeddings when an embedder is configured."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, embedder: Embedder | None = None) -> None:
        self._uow = uow
        self._clock = clock
        self._embedder = embedder

    def search(
        self, account_id: int, query: str, *, types: Sequence[str] | None = None, limit: int = DEFAULT_LIMIT
    ) -> list[SearchHit]:
        check_limit(limit)
        vector = self._query_vector(query)
        with self._uow.workspace(account_id, readonly=True) as uow:
            if vector is None:
                return uow.knowledge_search.search(query, types=types, limit=limit)
            hits = uow.knowledge_search.search(query, types=types, limit=MAX_LIMIT)
            vectors = uow.knowledge_chunks.embeddings([hit.chunk_id for hit in hits])
        return blend(hits, vectors, vector)[:limit]

    def embed_entry(self, account_id: int, entry_id: int) -> int:
        """Embed the entry's chunks that have no embedding; returns how many were stored. A chunk
        whose text changed meanwhile is left for the next run. Without an embedder, does nothing."""
        if self._embedder is None:
            return 0
        with self._uow.workspace(account_id, readonly=True) as uow:
            if uow.knowledge_base.get(entry_id) is None:
                raise NotFound("Knowledge base entry")
            pending = [c for c in uow.knowledge_chunks.for_entry(entry_id) if not c.has_embedding]
        if not pending:
            return 0
        vectors = self._embedder.embed([c.content for c in pending])  # outside the transaction
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            stored = sum(
                uow.knowledge_chunks.set_embedding(c.id, c.content, v, now)
                for c, v in zip(pending, vectors, strict=True)
            )
            uow.commit()
        return stored

    def _query_vector(self, query: str) -> list[float] | None:
        if self._embedder is None or not query.strip():
            return None
        try:
            return self._embedder.embed([query])[0]
        except Unavailable:
            return None  # full text still answers
