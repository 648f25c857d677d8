"""Knowledge base (SPEC 4): document entries from uploaded files.

`POST /knowledge-base/document` takes `multipart/form-data` only. Its files are written to a
temporary directory, read one by one (synchronously, before the response), and removed when the
request ends: the entry keeps what was read from them, not the files.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from engage_core.knowledge.documents import MAX_FILES, DocumentInput, DocumentUpload
from engage_http.knowledge.document_schemas import DocumentCreate, DocumentEntry
from engage_http.operations import Call, Operation

TAG = "Knowledge base"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid (a file name whose
extension is not an accepted format, a file over 20 MB)."""

DOCUMENT_BODY_MAX = 100 * 1024 * 1024
"""The whole form: 100 MiB (each file at most 20 MB, at most 10 files)."""


def create_documents(call: Call[DocumentCreate, None]) -> DocumentEntry:
    body = call.body
    with tempfile.TemporaryDirectory(prefix="engage-documents-") as directory:
        uploads = []
        for index, upload in enumerate(body.files):
            path = Path(directory) / f"upload-{index}"  # never the client's name: it may hold a path
            path.write_bytes(upload.data)
            uploads.append(DocumentUpload(upload.filename, path))
        data = DocumentInput(body.title, uploads, body.description, body.business_description, body.status)
        created = call.services.knowledge_documents.create(call.account_id, data)
    return DocumentEntry.from_domain(created)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "POST",
        "/knowledge-base/document",
        create_documents,
        "Create a document entry",
        TAG,
        DocumentEntry,
        status=201,
        message="Document entry created.",
        body=DocumentCreate,
        errors=RULES,
        form_only=True,
        body_limit=DOCUMENT_BODY_MAX,
        description=f"`multipart/form-data` with 1 to {MAX_FILES} files (PDF, DOCX, DOC, XLSX, CSV, TXT; at most "
        "20 MB each, 100 MiB in all). Each file is read before the response: its document is `completed` with "
        "its `extracted_content`, or `failed` with a `processing_error` (the entry is created either way). Text "
        "is chunked by section, spreadsheet and CSV rows one chunk per row, all searchable when the response is "
        "sent. Emits `knowledge_base.created`, then `knowledge_base.processing.completed` or `.failed` per file.",
    ),
)
