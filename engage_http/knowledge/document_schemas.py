"""Request and response bodies of document entries (SPEC 2 Document record; SPEC 4
`POST /knowledge-base/document`, and the document shape of `GET /knowledge-base/{id}/status`)."""

from __future__ import annotations

from typing import Annotated

import attrs

from engage_core.knowledge import documents as domain
from engage_core.knowledge.documents import DocumentResult, DocumentStatus
from engage_core.knowledge.extraction import DOCUMENT_FORMATS
from engage_http.constraints import Doc, Items
from engage_http.knowledge.entry_schemas import BusinessDescription, Description, Title
from engage_http.knowledge.schemas import KnowledgeBase, KnowledgeBaseStatus, KnowledgeDocument, ProcessingStatus
from engage_http.uploads import Upload

_FORMATS = ", ".join(f.upper() for f in DOCUMENT_FORMATS)


@attrs.frozen
class DocumentCreate:
    """A new `document` entry from one or more uploaded files (`multipart/form-data` only)."""

    title: Title
    files: Annotated[
        tuple[Upload, ...],
        Items(min_items=1, max_items=domain.MAX_FILES),
        Doc(
            description=f"One to {domain.MAX_FILES} files ({_FORMATS}; at most 20 MB each), as repeated `files` "
            "(or `files[]`) parts; the file name's extension says the format."
        ),
    ]
    description: Description | None = None
    business_description: BusinessDescription | None = None
    status: KnowledgeBaseStatus = "active"


@attrs.frozen
class DocumentEntry:
    """The new entry and its documents, in upload order."""

    knowledge_base: KnowledgeBase
    documents: tuple[KnowledgeDocument, ...]

    # By hand: `KnowledgeBase` and `KnowledgeDocument` are built by hand.
    @classmethod
    def from_domain(cls, result: DocumentResult) -> DocumentEntry:
        return cls(
            KnowledgeBase.from_domain(result.knowledge_base),
            tuple(KnowledgeDocument.from_domain(d) for d in result.documents),
        )


@attrs.frozen
class DocumentProgress:
    """One file of the entry and where its processing is."""

    id: int
    original_name: str
    processing_status: ProcessingStatus


@attrs.frozen
class KnowledgeDocumentStatus:
    """How far the files of a document entry are; `completed` when none is `pending` or `processing`."""

    id: int
    type: str
    completed: bool
    total: int
    pending_count: int
    failed_count: int
    documents: tuple[DocumentProgress, ...]

    # By hand: the documents are rendered with three of their fields.
    @classmethod
    def from_domain(cls, status: DocumentStatus) -> KnowledgeDocumentStatus:
        return cls(
            id=status.id,
            type=status.type,
            completed=status.completed,
            total=status.total,
            pending_count=status.pending_count,
            failed_count=status.failed_count,
            documents=tuple(
                DocumentProgress(d.id, d.original_name, d.processing_status)  # type: ignore[arg-type]
                for d in status.documents
            ),
        )


__all__ = ["DocumentCreate", "DocumentEntry", "KnowledgeDocument", "KnowledgeDocumentStatus"]
