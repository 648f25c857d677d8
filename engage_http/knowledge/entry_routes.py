"""Knowledge base (SPEC 4): text entries, and listing, reading, updating and deleting entries of
every type."""

from __future__ import annotations

from engage_core.kernel.pagination import Page
from engage_core.knowledge import model as domain
from engage_core.knowledge.entries import TextInput
from engage_http.commerce.product_schemas import linked_media
from engage_http.knowledge.entry_schemas import (
    KnowledgeBaseDetail,
    KnowledgeBaseFilters,
    KnowledgeBaseUpdate,
    TextCreate,
)
from engage_http.knowledge.schemas import KnowledgeBase
from engage_http.operations import Call, Operation, Shape, declare

TAG = "Knowledge base"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (`content` on an entry that is not a text entry)."""

TEXT_BODY_MAX = 2 * 1024 * 1024
"""200,000 characters of content, even escaped in JSON, fit in 2 MiB."""


def index(call: Call[None, domain.KnowledgeBaseFilter]) -> Page[domain.KnowledgeBaseEntry]:
    assert call.page is not None
    return call.services.knowledge_entries.list(call.account_id, call.query, call.page)


def create_text(call: Call[TextInput, None]) -> domain.KnowledgeBaseEntry:
    return call.services.knowledge_entries.create_text(call.account_id, call.body)


def show(call: Call[None, None]) -> KnowledgeBaseDetail:
    detail = call.services.knowledge_entries.get(call.account_id, call.path["id"])
    media = linked_media(call.services, call.account_id, detail.products or ())
    return KnowledgeBaseDetail.from_domain(detail, media)


def update(call: Call[domain.KnowledgeBasePatch, None]) -> domain.KnowledgeBaseEntry:
    return call.services.knowledge_entries.update(call.account_id, call.path["id"], call.body)


def destroy(call: Call[None, None]) -> None:
    call.services.knowledge_entries.delete(call.account_id, call.path["id"])


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/knowledge-base",
        index,
        "List knowledge-base entries",
        TAG,
        KnowledgeBase,
        Shape.PAGE,
        message="Knowledge base entries retrieved.",
        query=KnowledgeBaseFilters,
        page=domain.ENTRIES,
        description="Newest first, filtered by `type` and `status`. Entries only: a text entry's content, a "
        "catalogue's products and a document entry's files are in `GET /knowledge-base/{id}`.",
    ),
    Operation(
        "POST",
        "/knowledge-base",
        create_text,
        "Create a text entry",
        TAG,
        KnowledgeBase,
        status=201,
        message="Knowledge base entry created.",
        body=TextCreate,
        body_limit=TEXT_BODY_MAX,
        description="The content is split into chunks (about 1,000 characters on paragraph and sentence "
        "boundaries) and indexed for AI search before the response is sent. Emits `knowledge_base.created`.",
    ),
    Operation(
        "GET",
        "/knowledge-base/{id:id}",
        show,
        "Get a knowledge-base entry with its parts",
        TAG,
        KnowledgeBaseDetail,
        message="Knowledge base entry retrieved.",
    ),
    Operation(
        "PUT",
        "/knowledge-base/{id:id}",
        update,
        "Update a knowledge-base entry",
        TAG,
        KnowledgeBase,
        message="Knowledge base entry updated.",
        body=KnowledgeBaseUpdate,
        body_limit=TEXT_BODY_MAX,
        errors=RULES,
        description="Fields left out keep their value. `content` is for text entries only (422 otherwise); new "
        "content, or a new title of a text entry, replaces its chunks in the same transaction. Emits "
        "`knowledge_base.updated` when a field changed.",
    ),
    Operation(
        "DELETE",
        "/knowledge-base/{id:id}",
        destroy,
        "Delete a knowledge-base entry",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Removes the entry with its chunks and parts (products, documents, voice notes). Emits "
        "`knowledge_base.deleted`.",
    ),
    # Not on SQLite's write lane: chunking and indexing a long text (200,000 characters) could hold
    # the lane, and every workspace's writes behind it, for tens of milliseconds.
)
