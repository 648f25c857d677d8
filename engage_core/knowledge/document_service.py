"""Document entries: uploaded files read into text, chunked and searchable (SPEC 4
`POST /knowledge-base/document`, `GET /knowledge-base/{id}/status`); see `documents` for the record
and its states.

Processing is synchronous (SPEC 2): every file is read through the `DocumentExtractor` port before
anything is stored, outside any transaction (a slow PDF never holds SQLite's write lock); then one
unit of work stores the entry, each document with its outcome, the chunks of the documents that were
read, and the events.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.knowledge.chunking import HEADER_SEPARATOR, ChunkDraft, chunk_records, chunk_text, keywords
from engage_core.knowledge.documents import (
    COMPLETED,
    DOCUMENT,
    ERROR_MAX,
    FAILED,
    MAX_FILES,
    NAME_MAX,
    Document,
    DocumentDraft,
    DocumentInput,
    DocumentResult,
    DocumentStatus,
    DocumentUpload,
    processing_payload,
)
from engage_core.knowledge.embedding_jobs import NO_EMBEDDINGS, EmbeddingQueue
from engage_core.knowledge.entries import entry_of, validate_fields
from engage_core.knowledge.extraction import (
    DOCUMENT_FORMATS,
    MAX_DOCUMENT_BYTES,
    DocumentExtractor,
    ExtractedDocument,
    ExtractionFailed,
    Record,
    format_of_name,
)
from engage_core.unit_of_work import UnitOfWorkFactory


def document_chunks(title: str, extracted: Sequence[ExtractedDocument]) -> list[ChunkDraft]:
    """The chunks of every document read, in order, numbered across the entry: prose by section,
    one chunk per record; keywords weighed against all of them."""
    pieces: list[ChunkDraft] = []
    for document in extracted:
        for part in document.parts:
            header = HEADER_SEPARATOR.join((title, *part.heading_path))
            if isinstance(part, Record):
                pieces.extend(chunk_records([part.text], title=header))
            else:
                pieces.extend(chunk_text(part.text, title=header))
    words = keywords([piece.content for piece in pieces])
    total = len(pieces)
    return [
        attrs.evolve(piece, chunk_index=index, total_chunks=total, keywords=words[index])
        for index, piece in enumerate(pieces)
    ]


class KnowledgeDocumentService:
    """Document entries: create one from uploaded files, and report how far their processing is.

    Invalid fields or files (none, too many, a format not accepted, larger than 20 MB) raise
    :class:`.ValidationFailed` and nothing is read or stored. A file that cannot be read is stored
    `failed`, never an error of the request."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        extractor: DocumentExtractor,
        embeddings: EmbeddingQueue = NO_EMBEDDINGS,
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._extractor = extractor
        self._embeddings = embeddings

    def create(self, account_id: int, data: DocumentInput) -> DocumentResult:
        """A new `document` entry with one document per file, each read, chunked and searchable when
        this returns. Emits `knowledge_base.created`, then one `knowledge_base.processing.completed`
        or `.failed` per document."""
        draft = validate_fields(DOCUMENT, data.title, data.description, data.business_description, data.status)
        _check_files(data.files)
        # Read every file before the transaction opens: extraction may take seconds.
        outcomes = [self._read(upload) for upload in data.files]
        chunks = document_chunks(draft.title, [extracted for _, extracted in outcomes if extracted is not None])
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = uow.knowledge_base.add(draft, now)
            documents = uow.knowledge_documents.add_many(entry.id, [d for d, _ in outcomes], now)
            uow.knowledge_chunks.replace(entry.id, chunks, now)
            self._embeddings.changed(uow, entry.id, now)
            uow.emit(DomainEvent("knowledge_base.created", entry.event_payload(), now))
            for document in documents:
                name, payload = processing_payload(entry, document, now)
                uow.emit(DomainEvent(name, payload, now))
            uow.commit()
        return DocumentResult(entry, documents)

    def document_status(self, account_id: int, entry_id: int) -> DocumentStatus:
        """How far the files of a document entry are (:class:`.NotFound` for an unknown entry;
        :class:`.ValidationFailed` on `type` for an entry of another type)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            entry = entry_of(uow, entry_id)
            if entry.type != DOCUMENT:
                raise ValidationFailed.on("type", f"The knowledge base entry is a {entry.type} entry, not a document.")
            return DocumentStatus(entry.id, entry.type, uow.knowledge_documents.for_entry(entry_id))

    def documents(self, account_id: int, entry_id: int) -> Sequence[Document]:
        """The documents of an entry, in upload order (for `GET /knowledge-base/{id}`)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            entry_of(uow, entry_id)
            return uow.knowledge_documents.for_entry(entry_id)

    def _read(self, upload: DocumentUpload) -> tuple[DocumentDraft, ExtractedDocument | None]:
        """The file processed: `completed` with its text, or `failed` with the reason (`file_type` is
        then the format its name claims, since the content could not tell)."""
        try:
            extracted = self._extractor.extract(upload.name, upload.path)
        except ExtractionFailed as failure:
            claimed = format_of_name(upload.name) or ""
            return DocumentDraft(upload.name, claimed, FAILED, None, failure.reason[:ERROR_MAX]), None
        return DocumentDraft(upload.name, extracted.format, COMPLETED, extracted.text), extracted


def _check_files(files: Sequence[DocumentUpload]) -> None:
    if not files:
        raise ValidationFailed.on("files", "Upload at least one file.")
    if len(files) > MAX_FILES:
        raise ValidationFailed.on("files", f"Upload at most {MAX_FILES} files at once.")
    accepted = ", ".join(f.upper() for f in DOCUMENT_FORMATS)
    errors: dict[str, list[str]] = {}
    for index, upload in enumerate(files):
        field = f"files.{index}"
        if not upload.name.strip() or len(upload.name) > NAME_MAX or "\x00" in upload.name:
            errors.setdefault(field, []).append(f"A file name is 1 to {NAME_MAX} characters, without NUL.")
        elif format_of_name(upload.name) is None:
            errors.setdefault(field, []).append(f"{upload.name}: the file must be one of {accepted}.")
        if upload.path.stat().st_size > MAX_DOCUMENT_BYTES:
            errors.setdefault(field, []).append(f"{upload.name}: a file may not be larger than 20 MB.")
    if errors:
        raise ValidationFailed(errors)
