"""Text out of an uploaded document (SPEC 2, 4: `POST /knowledge-base/document`, `files[]` of PDF,
DOCX, DOC, XLSX, CSV or TXT, at most 20 MB each).

A `DocumentExtractor` turns one stored file into an `ExtractedDocument`: an ordered list of parts the
chunker cuts into chunks. Prose arrives as `Section`s (with the heading path they sit under: DOCX
headings, `Page N` for PDF pages); table-like sources (CSV, XLSX, DOCX tables) arrive as one `Record`
per row, written as `header: value` lines, so that one row can become one chunk and a search for a
row's value finds the whole row.

The extractor takes a path, not bytes: documents are up to 20 MB, the upload is already spooled to
disk, and the readers (pypdf, zip) seek in files rather than needing a copy in memory.

A file that cannot be read raises `ExtractionFailed`. Its `reason` becomes the document's
`processing_error`, which users read, so it says what is wrong in plain words ("The PDF is
password-protected") and, where there is one, what to do. It is a plain exception, not an
`EngageError`: a failed extraction is an outcome recorded on the document, never an HTTP error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Protocol

import attrs

MAX_DOCUMENT_BYTES = 20 * 1024 * 1024
"""SPEC 4: at most 20 MB per file."""

DOCUMENT_FORMATS: tuple[str, ...] = ("pdf", "docx", "doc", "xlsx", "csv", "txt")
"""The formats `POST /knowledge-base/document` accepts, named as `file_type` names them."""

FORMAT_LABELS: Mapping[str, str] = {
    "pdf": "a PDF",
    "docx": "a Word document (DOCX)",
    "doc": "a legacy Word document (DOC)",
    "xlsx": "an Excel workbook (XLSX)",
    "csv": "a CSV file",
    "txt": "a text file",
}
"""How a reason names each format, after "is" or "not"."""


class ExtractionFailed(Exception):
    """The file could not be turned into text. `reason` is a complete sentence for users."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@attrs.frozen
class Section:
    """A run of prose, under the headings that lead to it (outermost first; empty when none)."""

    text: str
    heading_path: tuple[str, ...] = ()


@attrs.frozen
class Record:
    """One row of a table: `fields` are its (header, value) pairs with a value, in column order;
    `row` is the row's 1-based number in its sheet, file or table (the header row included), and
    `heading_path` names where it came from (the sheet, or the headings above a DOCX table)."""

    fields: tuple[tuple[str, str], ...]
    row: int
    heading_path: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """`header: value`, one line per field."""
        return "\n".join(f"{header}: {value}" for header, value in self.fields)

    @classmethod
    def of(
        cls, headers: Sequence[str], values: Sequence[str], row: int, heading_path: tuple[str, ...] = ()
    ) -> Record | None:
        """The record of one row, pairing `values` with `headers` by position; a value without a
        header is named `Column N`. Empty values are left out; a row with none is no record."""
        fields = tuple(
            (headers[i] if i < len(headers) and headers[i] else f"Column {i + 1}", value)
            for i, value in enumerate(values)
            if value
        )
        return cls(fields, row, heading_path) if fields else None


Part = Section | Record


@attrs.frozen
class ExtractedDocument:
    """What one file said, in reading order.

    `format` is the sniffed format (one of `DOCUMENT_FORMATS`). `page_count` is the number of PDF
    pages read, `row_count` the number of records; each is None where the format has no such thing.
    `truncated` is true when a limit (pages, rows, time) stopped the reading early: the parts are
    then the beginning of the document.
    """

    format: str
    parts: tuple[Part, ...]
    page_count: int | None = None
    row_count: int | None = None
    truncated: bool = False

    @property
    def text(self) -> str:
        """The whole text (the document's `extracted_content`): parts separated by a blank line."""
        return "\n\n".join(part.text for part in self.parts)


def document(
    format: str,
    parts: Iterable[Part],
    *,
    page_count: int | None = None,
    row_count: int | None = None,
    truncated: bool = False,
    hint: str = "",
) -> ExtractedDocument:
    """An `ExtractedDocument` of the non-blank parts, or `ExtractionFailed` when none is left.
    `hint` finishes the failure's sentence (for example why a PDF may have no text)."""
    kept = tuple(part for part in parts if isinstance(part, Record) or part.text.strip())
    if not kept:
        raise ExtractionFailed(f"No text could be extracted from the file.{' ' + hint if hint else ''}")
    return ExtractedDocument(format, kept, page_count=page_count, row_count=row_count, truncated=truncated)


def format_of_name(name: str) -> str | None:
    """The format a file name's extension claims (`report.PDF` -> `pdf`), or None for another."""
    suffix = PurePath(name).suffix.lower().lstrip(".")
    return suffix if suffix in DOCUMENT_FORMATS else None


class DocumentExtractor(Protocol):
    """Reads one stored document. `name` is the name it was uploaded under (its extension says
    what the user thinks it is); `path` is where its bytes are."""

    def extract(self, name: str, path: Path) -> ExtractedDocument:
        """The document's text, or `ExtractionFailed` with a reason for users. Never anything else:
        a damaged or hostile file is a failure with a reason, not an unhandled exception."""
