"""Request and response bodies of an entry's chunks (SPEC 2, Chunk; SPEC 4,
`/knowledge-base/{id}/chunks`) and of the knowledge search (`GET /knowledge-base/search`).

SPEC leaves the bodies of chunk create, update and delete to us: create takes `content` and,
optionally, `context_header` and `keywords`; update any non-empty subset of those three; delete
answers 204 with no body.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import attrs

from engage_core.kernel.unset import UNSET, Unset
from engage_core.knowledge import chunks as domain
from engage_core.knowledge.search import Chunk, ChunkPatch, SearchHit
from engage_http.constraints import Doc, Integer, Items, Text
from engage_http.converter import renders, structures_into
from engage_http.knowledge.schemas import KnowledgeBaseType

ChunkContent = Annotated[
    str,
    Text(max_length=domain.CHUNK_CONTENT_MAX, blank=False),
    Doc(example="Orders over 50 EUR ship free within the EU."),
]
ContextHeader = Annotated[
    str,
    Text(max_length=domain.CONTEXT_HEADER_MAX),
    Doc(description="Where the passage sits: the entry title and the heading path.", example="Shipping > Costs"),
]
Keyword = Annotated[str, Text(max_length=domain.KEYWORD_MAX, blank=False)]
Keywords = Annotated[
    tuple[Keyword, ...],
    Items(max_items=domain.MAX_CHUNK_KEYWORDS),
    Doc(description="Terms that find the passage; they weigh twice a word of the content in search."),
]


@renders(Chunk)
@attrs.frozen
class KnowledgeChunk:
    """A passage of an entry, as AI search ranks and quotes it (SPEC 2, Chunk)."""

    id: int
    knowledge_base_id: int
    content: str
    char_count: int
    chunk_index: int = attrs.field(metadata={"description": "Zero-based position in the entry."})
    total_chunks: int
    context_header: str | None
    keywords: tuple[str, ...] | None
    has_embedding: bool = attrs.field(
        metadata={"description": "Whether an embedding of the current content is stored (false without an embedder)."}
    )
    created_at: datetime
    updated_at: datetime


@renders(domain.EntryChunks)
@attrs.frozen
class KnowledgeChunkList:
    """Every chunk of an entry, ordered by `chunk_index`."""

    knowledge_base_id: int
    chunks: tuple[KnowledgeChunk, ...]
    count: int


@structures_into(domain.ChunkInput)
@attrs.frozen
class ChunkCreate:
    """A passage appended after the entry's last chunk. Without `context_header` it is headed by the
    entry's title; without `keywords` they are computed from the content."""

    content: ChunkContent
    context_header: ContextHeader | None = None
    keywords: Keywords | None = None


def _patch(body: ChunkUpdate) -> ChunkPatch:
    """Left out is `None` in the core's patch (keep the stored value)."""
    return ChunkPatch(
        content=None if body.content is UNSET else body.content,
        context_header=None if body.context_header is UNSET else body.context_header,
        keywords=None if body.keywords is UNSET else tuple(body.keywords),
    )


@structures_into(ChunkPatch, _patch)
@attrs.frozen
class ChunkUpdate:
    """Any non-empty subset of the fields; those left out keep their value. New content without
    `keywords` gets its keywords computed again."""

    content: ChunkContent | Unset = UNSET
    context_header: ContextHeader | Unset = UNSET
    keywords: Keywords | Unset = UNSET

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["minProperties"] = 1
        return schema


@attrs.frozen
class KnowledgeSearchQuery:
    """Query of `GET /knowledge-base/search`."""

    q: Annotated[str, Text(max_length=domain.QUERY_MAX, blank=False), Doc(example="When do you open?")] = attrs.field(
        metadata={"description": "The question, 1 to 500 characters."}
    )
    type: KnowledgeBaseType | None = attrs.field(default=None, metadata={"description": "Only entries of this type."})
    limit: Annotated[int, Integer(minimum=1, maximum=domain.SEARCH_MAX_LIMIT)] | None = attrs.field(
        default=None, metadata={"description": f"How many passages, 1 to 20 (default {domain.SEARCH_DEFAULT_LIMIT})."}
    )


@attrs.frozen
class KnowledgeSearchHit:
    """One passage, best first."""

    chunk_id: int
    knowledge_base_id: int
    title: str = attrs.field(metadata={"description": "The entry's title."})
    type: KnowledgeBaseType
    content: str
    context_header: str | None
    score: float = attrs.field(
        metadata={
            "description": "From 0 to 1: the share of the question's meaningful words (weighted by rarity) "
            "the passage holds."
        }
    )
    snippet: str = attrs.field(metadata={"description": "A short extract, each matched word in `<mark>`."})
    relevant: bool = attrs.field(
        metadata={"description": f"Whether `score` reaches {domain.RELEVANT_SCORE}: the passage answers a fair part."}
    )

    @classmethod
    def from_domain(cls, hit: SearchHit) -> KnowledgeSearchHit:
        return cls(
            chunk_id=hit.chunk_id,
            knowledge_base_id=hit.knowledge_base_id,
            title=hit.title,
            type=hit.type,  # type: ignore[arg-type]
            content=hit.content,
            context_header=hit.context_header,
            score=hit.score,
            snippet=hit.snippet,
            relevant=domain.is_relevant(hit),
        )


@attrs.frozen
class KnowledgeSearchResults:
    """What the AI would see for the question: the best passages of active entries, best first."""

    query: str
    relevant: bool = attrs.field(
        metadata={
            "description": "Whether any result answers a fair part of the question; false means nothing in the "
            "knowledge base is relevant (results, if any, merely share a word with it)."
        }
    )
    results: tuple[KnowledgeSearchHit, ...]

    # By hand: a hit's `relevant` is computed from its score.
    @classmethod
    def from_domain(cls, found: domain.SearchResult) -> KnowledgeSearchResults:
        return cls(found.query, found.relevant, tuple(KnowledgeSearchHit.from_domain(h) for h in found.hits))


__all__ = [
    "ChunkCreate",
    "ChunkUpdate",
    "KnowledgeChunk",
    "KnowledgeChunkList",
    "KnowledgeSearchHit",
    "KnowledgeSearchQuery",
    "KnowledgeSearchResults",
]
