"""Knowledge base (SPEC 4): an entry's chunks, and the workspace's knowledge search.

A chunk created or updated here is indexed in the transaction that stores it: when the response is
sent it is ready for AI search.
"""

from __future__ import annotations

from engage_core.knowledge import chunks as domain
from engage_core.knowledge.search import Chunk, ChunkPatch
from engage_http.knowledge.chunk_schemas import (
    ChunkCreate,
    ChunkUpdate,
    KnowledgeChunk,
    KnowledgeChunkList,
    KnowledgeSearchQuery,
    KnowledgeSearchResults,
)
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Knowledge base"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid (a blank keyword
after trimming)."""


def search(call: Call[None, KnowledgeSearchQuery]) -> KnowledgeSearchResults:
    query = call.query
    limit = domain.SEARCH_DEFAULT_LIMIT if query.limit is None else query.limit
    found = call.services.knowledge_chunks.search(call.account_id, query.q, type=query.type, limit=limit)
    return KnowledgeSearchResults.from_domain(found)


def list_chunks(call: Call[None, None]) -> domain.EntryChunks:
    return call.services.knowledge_chunks.list(call.account_id, call.path["id"])


def show_chunk(call: Call[None, None]) -> Chunk:
    return call.services.knowledge_chunks.get(call.account_id, call.path["id"], call.path["chunk_id"])


def create_chunk(call: Call[domain.ChunkInput, None]) -> Chunk:
    return call.services.knowledge_chunks.add(call.account_id, call.path["id"], call.body)


def update_chunk(call: Call[ChunkPatch, None]) -> Chunk:
    return call.services.knowledge_chunks.update(call.account_id, call.path["id"], call.path["chunk_id"], call.body)


def delete_chunk(call: Call[None, None]) -> None:
    call.services.knowledge_chunks.delete(call.account_id, call.path["id"], call.path["chunk_id"])


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/knowledge-base/search",
        search,
        "Search the knowledge base",
        TAG,
        KnowledgeSearchResults,
        message="Knowledge base searched.",
        query=KnowledgeSearchQuery,
        description="The passages of active entries that best answer `q`, best first, as the AI agents see "
        "them: full-text ranking (words as written or by their stem, accents and Arabic diacritics ignored). "
        "`relevant` false means nothing answers a fair part of the question.",
    ),
    Operation(
        "GET",
        "/knowledge-base/{id:id}/chunks",
        list_chunks,
        "List an entry's chunks",
        TAG,
        KnowledgeChunkList,
        message="Chunks retrieved.",
    ),
    Operation(
        "GET",
        "/knowledge-base/{id:id}/chunks/{chunk_id:id}",
        show_chunk,
        "Get a chunk",
        TAG,
        KnowledgeChunk,
        message="Chunk retrieved.",
    ),
    Operation(
        "POST",
        "/knowledge-base/{id:id}/chunks",
        create_chunk,
        "Add a chunk",
        TAG,
        KnowledgeChunk,
        status=201,
        message="Chunk created.",
        body=ChunkCreate,
        errors=RULES,
        description="Appended after the entry's last chunk; every chunk of the entry gets the new "
        "`total_chunks`. Indexed in the same transaction: ready for AI search when the response is sent.",
    ),
    Operation(
        "PUT",
        "/knowledge-base/{id:id}/chunks/{chunk_id:id}",
        update_chunk,
        "Update a chunk",
        TAG,
        KnowledgeChunk,
        message="Chunk updated.",
        body=ChunkUpdate,
        errors=RULES,
        description="Any of `content`, `context_header`, `keywords`; new content without `keywords` gets them "
        "computed again and drops the chunk's embedding. Re-indexed in the same transaction.",
    ),
    Operation(
        "DELETE",
        "/knowledge-base/{id:id}/chunks/{chunk_id:id}",
        delete_chunk,
        "Delete a chunk",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Removes the chunk for good; the entry's later chunks move down one `chunk_index`.",
    ),
    # Not on SQLite's write lane: chunking and indexing a long text (200,000 characters) could hold
    # the lane, and every workspace's writes behind it, for tens of milliseconds.
)
