"""An entry's chunks, one by one (SPEC 4, `/knowledge-base/{id}/chunks`), and the workspace's
knowledge search (`GET /knowledge-base/search`).

A chunk created or updated here is indexed for search in the transaction that stores it (the
full-text index is kept in step by the database), so it is ready for AI search when the call
returns. A new chunk is appended after the entry's last one; deleting a chunk moves the later ones
down an index; either way every chunk of the entry carries the new `total_chunks`. Chunk edits
change none of the entry's fields, so they emit no `knowledge_base.updated`.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.validation import ErrorCollector, one_of, optional_text, required_text
from engage_core.knowledge.chunking import ChunkDraft, keywords
from engage_core.knowledge.embedding_jobs import NO_EMBEDDINGS, EmbeddingQueue
from engage_core.knowledge.embeddings import KnowledgeSearch
from engage_core.knowledge.entries import entry_of
from engage_core.knowledge.model import KB_TYPES
from engage_core.knowledge.search import Chunk, ChunkPatch, SearchHit
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

CHUNK_CONTENT_MAX = 10_000
"""A chunk written by hand: ten times what the splitter makes, still one passage to quote."""
CONTEXT_HEADER_MAX = 1000
MAX_CHUNK_KEYWORDS = 20
KEYWORD_MAX = 100

QUERY_MAX = 500
SEARCH_DEFAULT_LIMIT = 5
SEARCH_MAX_LIMIT = 20
RELEVANT_SCORE = 0.4
"""A hit whose score (the share of the question's weighted terms it holds, `search`) reaches this
answers a fair part of the question; below it, it merely shares a word with it."""


@attrs.frozen
class ChunkInput:
    """A chunk written by hand. Without `context_header` it is headed by the entry's title; without
    `keywords` they are computed as the splitter's are (the chunk's most distinctive terms)."""

    content: str
    context_header: str | None = None
    keywords: Sequence[str] | None = None


@attrs.frozen
class EntryChunks:
    """`GET /knowledge-base/{id}/chunks`: the entry's chunks ordered by `chunk_index`."""

    knowledge_base_id: int
    chunks: Sequence[Chunk]

    @property
    def count(self) -> int:
        """How many chunks the entry has."""
        return len(self.chunks)


@attrs.frozen
class SearchResult:
    """What search found for `query`, best first; `relevant` when at least one hit reaches
    `RELEVANT_SCORE` (otherwise nothing in the knowledge base answers the question well)."""

    query: str
    hits: Sequence[SearchHit]

    @property
    def relevant(self) -> bool:
        """Whether any hit answers a fair part of the question."""
        return any(is_relevant(hit) for hit in self.hits)


def is_relevant(hit: SearchHit) -> bool:
    """Whether `hit` reaches `RELEVANT_SCORE`."""
    return hit.score >= RELEVANT_SCORE


class KnowledgeChunkService:
    """The chunks of one entry, and search over the account's active entries.

    Methods that name an entry or a chunk raise :class:`.NotFound` when it is not in the account (a
    chunk of another entry is not found either); invalid fields raise :class:`.ValidationFailed`."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        search: KnowledgeSearch,
        embeddings: EmbeddingQueue = NO_EMBEDDINGS,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._search = search
        self._embeddings = embeddings

    def list(self, account_id: int, entry_id: int) -> EntryChunks:
        """Every chunk of the entry, by `chunk_index`."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            entry_of(uow, entry_id)
            return EntryChunks(entry_id, uow.knowledge_chunks.for_entry(entry_id))

    def get(self, account_id: int, entry_id: int, chunk_id: int) -> Chunk:
        """One chunk of the entry."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _chunk_of(uow, entry_id, chunk_id)

    def add(self, account_id: int, entry_id: int, data: ChunkInput) -> Chunk:
        """Append a chunk to the entry, indexed for search before the call returns."""
        content, header, words = _validate(data.content, data.context_header, data.keywords)
        assert content is not None
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = entry_of(uow, entry_id)
            if words is None:
                words = _keywords_among(content, uow.knowledge_chunks.for_entry(entry_id))
            draft = ChunkDraft(content, 0, 1, header if header is not None else entry.title, words)
            chunk = uow.knowledge_chunks.append(entry_id, draft, now)
            self._embeddings.changed(uow, entry_id, now)
            uow.commit()
        return chunk

    def update(self, account_id: int, entry_id: int, chunk_id: int, data: ChunkPatch) -> Chunk:
        """Change the given fields of a chunk. New content without `keywords` gets them computed
        again; new content drops the chunk's embedding (it described the old text)."""
        content, header, words = _validate(data.content, data.context_header, data.keywords, partial=True)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _chunk_of(uow, entry_id, chunk_id)
            if content is not None and content != current.content and words is None:
                others = [c for c in uow.knowledge_chunks.for_entry(entry_id) if c.id != chunk_id]
                words = _keywords_among(content, others)
            updated = uow.knowledge_chunks.update(chunk_id, ChunkPatch(content, header, words), now)
            assert updated is not None
            if content is not None and content != current.content:
                self._embeddings.changed(uow, entry_id, now)
            uow.commit()
        return updated

    def delete(self, account_id: int, entry_id: int, chunk_id: int) -> None:
        """Remove a chunk for good; the entry's later chunks move down one index."""
        with self._uow.workspace(account_id) as uow:
            _chunk_of(uow, entry_id, chunk_id)
            uow.knowledge_chunks.delete(chunk_id)
            uow.commit()

    def search(
        self, account_id: int, query: str, *, type: str | None = None, limit: int = SEARCH_DEFAULT_LIMIT
    ) -> SearchResult:
        """The `limit` (1 to 20) chunks of active entries (of `type`, when given) that best answer
        `query` (1 to 500 characters), as AI agents see them."""
        errors = ErrorCollector()
        cleaned = errors.run(lambda: required_text("q", query, max_length=QUERY_MAX))
        if type is not None:
            errors.run(lambda: one_of("type", type, KB_TYPES))
        if not 1 <= limit <= SEARCH_MAX_LIMIT:
            errors.errors.setdefault("limit", []).append(f"The limit must be between 1 and {SEARCH_MAX_LIMIT}.")
        errors.raise_if_any()
        assert cleaned is not None
        hits = self._search.search(account_id, cleaned, types=None if type is None else [type], limit=limit)
        return SearchResult(cleaned, hits)


def _chunk_of(uow: WorkspaceUnitOfWork, entry_id: int, chunk_id: int) -> Chunk:
    entry_of(uow, entry_id)
    chunk = uow.knowledge_chunks.get(chunk_id)
    if chunk is None or chunk.knowledge_base_id != entry_id:
        raise NotFound("Chunk")
    return chunk


def _validate(
    content: str | None, header: str | None, words: Sequence[str] | None, *, partial: bool = False
) -> tuple[str | None, str | None, tuple[str, ...] | None]:
    errors = ErrorCollector()
    clean_content = None
    if content is not None or not partial:
        clean_content = errors.run(lambda: required_text("content", content or "", max_length=CHUNK_CONTENT_MAX))
    clean_header = errors.run(lambda: optional_text("context_header", header, max_length=CONTEXT_HEADER_MAX))
    clean_words: tuple[str, ...] | None = None
    if words is not None:
        if len(words) > MAX_CHUNK_KEYWORDS:
            errors.errors.setdefault("keywords", []).append(f"At most {MAX_CHUNK_KEYWORDS} keywords.")
        kept = [_keyword(errors, index, word) for index, word in enumerate(words)]
        clean_words = tuple(word for word in kept if word is not None)
    errors.raise_if_any()
    if partial and clean_content is None and clean_header is None and clean_words is None:
        raise ValidationFailed.on("content", "Give content, context_header or keywords to change.")
    return clean_content, clean_header, clean_words


def _keyword(errors: ErrorCollector, index: int, word: str) -> str | None:
    return errors.run(lambda: required_text(f"keywords.{index}", word, max_length=KEYWORD_MAX))


def _keywords_among(content: str, others: Sequence[Chunk]) -> tuple[str, ...]:
    """The most distinctive terms of `content` against the entry's other chunks."""
    return keywords([*(c.content for c in others), content])[-1]
