"""Documents of document entries: the record of each uploaded file, its processing states, its
storage port and its events (SPEC 2 Document record; the service is `document_service`).

A document moves `pending` → `processing` → `completed` or `failed`
(`PROCESSING_STATES`); since all of that happens inside the request, it is stored once, in its
final state, and `pending`/`processing` are never seen by a reader.

A file that cannot be read (damaged, encrypted, not what its extension says, no text) does not fail
the request: its document is `failed` with a `processing_error` for users, and the entry is still
created. Prose (`Section`) is chunked by heading, paragraph and sentence; each table row (`Record`,
CSV and XLSX rows, DOCX table rows) becomes a chunk of its own. The original files are not kept:
what the entry holds is the extracted text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import attrs

from engage_core.kernel.clock import format_timestamp
from engage_core.knowledge.model import KnowledgeBaseEntry

DOCUMENT = "document"
MAX_FILES = 10
"""Files per request: 10 of 20 MB is already a 200 MB upload."""
NAME_MAX = 255
ERROR_MAX = 2000

PENDING = "pending"
PROCESSING = "processing"
COMPLETED = "completed"
FAILED = "failed"
PROCESSING_STATES: tuple[str, ...] = (PENDING, PROCESSING, COMPLETED, FAILED)
"""SPEC 2 `processing_status`; `completed` and `failed` are final."""
_NEXT: Mapping[str, frozenset[str]] = {
    PENDING: frozenset({PROCESSING}),
    PROCESSING: frozenset({COMPLETED, FAILED}),
    COMPLETED: frozenset(),
    FAILED: frozenset(),
}


def can_move(current: str, new: str) -> bool:
    """Whether a document may go from `current` to `new` processing status."""
    return new in _NEXT[current]


@attrs.frozen
class Document:
    """A file of a document entry (SPEC 2). `extracted_content` is the text read from it (None when
    reading failed); `processing_error` says why it failed (None otherwise)."""

    id: int
    knowledge_base_id: int
    original_name: str
    file_type: str
    processing_status: str
    extracted_content: str | None
    processing_error: str | None
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class DocumentDraft:
    """A processed file, before it has an id."""

    original_name: str
    file_type: str
    processing_status: str
    extracted_content: str | None = None
    processing_error: str | None = None


@attrs.frozen
class DocumentUpload:
    """One uploaded file: the name it was sent under, and where its bytes are."""

    name: str
    path: Path


@attrs.frozen
class DocumentInput:
    """Fields of `POST /knowledge-base/document`."""

    title: str
    files: Sequence[DocumentUpload]
    description: str | None = None
    business_description: str | None = None
    status: str = "active"


@attrs.frozen
class DocumentResult:
    """The new entry and its documents, in upload order."""

    knowledge_base: KnowledgeBaseEntry
    documents: Sequence[Document]


@attrs.frozen
class DocumentStatus:
    """`GET /knowledge-base/{id}/status` of a document entry: how far its files are. `completed` is
    true when none is still `pending` or `processing`."""

    id: int
    type: str
    documents: Sequence[Document]

    @property
    def total(self) -> int:
        """How many files the entry has."""
        return len(self.documents)

    @property
    def pending_count(self) -> int:
        """Files not yet read (`pending` or `processing`)."""
        return sum(1 for d in self.documents if d.processing_status in (PENDING, PROCESSING))

    @property
    def failed_count(self) -> int:
        """Files that could not be read."""
        return sum(1 for d in self.documents if d.processing_status == FAILED)

    @property
    def completed(self) -> bool:
        """Whether every file reached a final state."""
        return self.pending_count == 0


class DocumentRepository(Protocol):
    """The documents of one account's document entries."""

    def add_many(self, entry_id: int, drafts: Sequence[DocumentDraft], now: datetime) -> list[Document]:
        """Store the entry's documents in order; returns them with their ids."""

    def for_entry(self, entry_id: int) -> list[Document]:
        """The entry's documents in upload order (empty for an unknown entry)."""


class DocumentRepositories(Protocol):
    """What a workspace unit of work hands out for documents."""

    @property
    def knowledge_documents(self) -> DocumentRepository:
        """The documents of document entries."""


def processing_payload(
    entry: KnowledgeBaseEntry, document: Document, occurred_at: datetime
) -> tuple[str, Mapping[str, Any]]:
    """The `knowledge_base.processing.completed`/`.failed` event of one document (SPEC 6)."""
    failed = document.processing_status == FAILED
    name = "knowledge_base.processing.failed" if failed else "knowledge_base.processing.completed"
    return name, {
        "knowledge_base_id": entry.id,
        "title": entry.title,
        "type": entry.type,
        "item_id": document.id,
        "error": document.processing_error,
        "occurred_at": format_timestamp(occurred_at),
        "original_name": document.original_name,
        "status": document.processing_status,
    }
