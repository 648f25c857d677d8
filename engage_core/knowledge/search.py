"""Knowledge-base chunks and ranked search over them (SPEC 2, Chunk).

An entry's text is stored as chunks (`chunking`), which `ChunkRepository` replaces all at once when
the entry's content changes, and `Retriever` ranks for a question, within one account and among
active entries only.

Ranking. Each adapter finds candidates with its own full-text index (FTS5's `bm25()` on SQLite,
`ts_rank_cd` on PostgreSQL, a small BM25 in memory), where a passage needs only some of the query's
terms to match (OR between terms). The candidates are then put in order by `score` and, between equal
scores, by the index's own rank. (PostgreSQL, whose ranking reads every match, ranks every match only
when they are few; otherwise a cheap score over the rarest terms' matches chooses whom to rank:
see `engage_sql.knowledge.postgres_search`.)

`score` is computed alike on every adapter (in the core): the share of the query's terms the chunk holds,
each term weighted by its rarity among the candidates (an inverse document frequency), from 0 to 1.
1.0 means every meaningful word of the question occurs in the chunk (as written or by its stem, see
`terms`); 0.5 about half of the question's weight. Stop words do not count. A caller wanting only
passages that answer a fair part of the question keeps hits with a score of, say, 0.4 or more.

Embeddings are optional (`engage_core.knowledge.embeddings`): without an embedder every chunk has
`has_embedding` false and `embedding_updated_at` None, and search is full text alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import attrs

from engage_core.knowledge.chunking import ChunkDraft
from engage_core.knowledge.terms import WordSet, marked

DEFAULT_LIMIT = 5
MAX_LIMIT = 50
CANDIDATES = 50
"""How many candidates an adapter's index hands over for the final ordering (at least `limit`)."""

SNIPPET_START = "<mark>"
SNIPPET_END = "</mark>"
SNIPPET_ELLIPSIS = "…"
SNIPPET_WORDS = 24


@attrs.frozen
class Chunk:
    """A stored chunk (SPEC 2). `has_embedding` is true exactly when an embedding is stored for its
    current content; `embedding_updated_at` when that embedding was computed (None without one)."""

    id: int
    knowledge_base_id: int
    content: str
    chunk_index: int
    total_chunks: int
    context_header: str | None
    keywords: tuple[str, ...] | None
    has_embedding: bool
    embedding_updated_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @property
    def char_count(self) -> int:
        return len(self.content)


@attrs.frozen
class ChunkPatch:
    """A change to one chunk: the fields given replace the stored ones. A new `content` drops the
    chunk's embedding, if any (it would no longer describe the text)."""

    content: str | None = None
    context_header: str | None = None
    keywords: tuple[str, ...] | None = None


@attrs.frozen
class SearchHit:
    """One ranked passage. `score` is described in the module notes; `snippet` is a short extract
    of the content with each matched word between `SNIPPET_START` and `SNIPPET_END`."""

    chunk_id: int
    knowledge_base_id: int
    title: str
    type: str
    content: str
    context_header: str | None
    score: float
    snippet: str


@attrs.frozen
class Candidate:
    """A chunk an adapter's index found for a query, with the index's own rank (0 best)."""

    chunk_id: int
    knowledge_base_id: int
    title: str
    type: str
    content: str
    context_header: str | None
    keywords: tuple[str, ...]
    rank: int

    def hit(self, score: float, snippet: str) -> SearchHit:
        return SearchHit(
            self.chunk_id,
            self.knowledge_base_id,
            self.title,
            self.type,
            self.content,
            self.context_header,
            score,
            snippet,
        )


class ChunkRepository(Protocol):
    """The chunks of one account's entries."""

    def replace(self, entry_id: int, chunks: Sequence[ChunkDraft], now: datetime) -> list[Chunk]:
        """Remove every chunk of the entry and store `chunks` in their place, in one step (no reader
        sees a mix); returns them ordered by `chunk_index`."""

    def for_entry(self, entry_id: int) -> list[Chunk]:
        """The entry's chunks ordered by `chunk_index` (empty for an unknown entry)."""

    def get(self, chunk_id: int) -> Chunk | None: ...

    def update(self, chunk_id: int, patch: ChunkPatch, now: datetime) -> Chunk | None:
        """Apply `patch`; None when there is no such chunk."""

    def append(self, entry_id: int, draft: ChunkDraft, now: datetime) -> Chunk:
        """Store `draft` after the entry's last chunk (its `chunk_index` and `total_chunks` are
        ignored): its index is the number of chunks before it, and every chunk of the entry gets
        the new `total_chunks`."""

    def delete(self, chunk_id: int) -> bool:
        """Remove one chunk; the entry's later chunks move down one index and all of them get the
        new `total_chunks`. False when there was none."""

    def count(self, entry_id: int) -> int: ...

    def set_embedding(self, chunk_id: int, content: str, vector: Sequence[float], now: datetime) -> bool:
        """Store the embedding of `content`, if that is still the chunk's text (`has_embedding` then
        true, `embedding_updated_at` `now`); False, storing nothing, otherwise."""

    def embeddings(self, chunk_ids: Sequence[int]) -> dict[int, list[float]]:
        """The stored embeddings of those of the chunks that have one, by chunk id."""


class Retriever(Protocol):
    """Ranked full-text search over the chunks of one account's active entries."""

    def search(self, query: str, *, types: Sequence[str] | None = None, limit: int = DEFAULT_LIMIT) -> list[SearchHit]:
        """The `limit` best chunks for `query` (of entries of `types` only, when given), best first.
        A query with no searchable word finds nothing."""


class KnowledgeSearchRepositories(Protocol):
    """What a workspace unit of work hands out for chunks and their search."""

    @property
    def knowledge_chunks(self) -> ChunkRepository: ...

    @property
    def knowledge_search(self) -> Retriever: ...


def ranked(query_terms: Sequence[str], candidates: Sequence[Candidate], limit: int) -> list[tuple[Candidate, float]]:
    """The best `limit` candidates in final order, each with its `score` (see the module notes)."""
    words = [WordSet(f"{c.content} {c.context_header or ''} {' '.join(c.keywords)}") for c in candidates]
    present = [[w.has(term) for term in query_terms] for w in words]
    total = len(candidates)
    weight = [math.log(1 + (total + 1) / (1 + sum(1 for row in present if row[i]))) for i in range(len(query_terms))]
    whole = sum(weight)
    scored: list[tuple[float, int, Candidate]] = []
    for candidate, row in zip(candidates, present, strict=True):
        found = sum(w for w, hit in zip(weight, row, strict=True) if hit)
        if found > 0:
            scored.append((round(found / whole, 4), candidate.rank, candidate))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(candidate, score) for score, _, candidate in scored[:limit]]


def check_limit(limit: int) -> int:
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIMIT}")
    return limit


def snippet(content: str, query_terms: Sequence[str], words: int = SNIPPET_WORDS) -> str:
    """About `words` words of `content` around its first matched word, each match marked (the
    in-memory adapter's equivalent of FTS5's `snippet()` and PostgreSQL's `ts_headline`)."""
    pieces = list(marked(content, query_terms))
    word_positions = [i for i, (text, _) in enumerate(pieces) if text[:1].isalnum() or text[:1] == "_"]
    hits = [n for n, i in enumerate(word_positions) if pieces[i][1]]
    first_word = max(0, (hits[0] if hits else 0) - words // 4)
    last_word = min(len(word_positions), first_word + words)
    if not word_positions:
        return content
    start = word_positions[first_word]
    end = word_positions[last_word - 1] + 1
    text = "".join(f"{SNIPPET_START}{t}{SNIPPET_END}" if hit else t for t, hit in pieces[start:end])
    before = SNIPPET_ELLIPSIS if first_word > 0 else ""
    after = SNIPPET_ELLIPSIS if last_word < len(word_positions) else ""
    return f"{before}{text}{after}"
