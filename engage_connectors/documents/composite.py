"""`FileExtractor`, the production `DocumentExtractor`: checks the size, sniffs the content, checks
it against the name's extension, and hands the file to the reader of its format.

The content decides, the name only checks: a PNG named `.pdf` fails with "The file is a PNG image,
not a PDF." A name without a known extension is read as what its content is. CSV and TXT are both
text, so either name fits any text; an RTF file named `.doc` (Word saves those) goes to LibreOffice
like a real `.doc`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from engage_connectors.documents.delimited import CsvExtractor
from engage_connectors.documents.legacy_word import LegacyWordExtractor
from engage_connectors.documents.pdf import PdfExtractor
from engage_connectors.documents.plain_text import TextExtractor
from engage_connectors.documents.sniffing import MAX_UNPACKED_BYTES, Sniffed, sniff
from engage_connectors.documents.spreadsheet import XlsxExtractor
from engage_connectors.documents.word import DocxExtractor
from engage_core.knowledge.extraction import (
    FORMAT_LABELS,
    MAX_DOCUMENT_BYTES,
    ExtractedDocument,
    ExtractionFailed,
    format_of_name,
)

logger = logging.getLogger("engage.knowledge.documents")


class FormatExtractor(Protocol):
    """The reader of one format; the file is known to be of it."""

    def extract(self, path: Path) -> ExtractedDocument: ...


class FileExtractor:
    """`readers` replaces the reader of a format (`pdf`, `docx`, `doc`, `xlsx`, `csv`, `txt`), for
    other limits than the defaults."""

    def __init__(
        self,
        max_bytes: int = MAX_DOCUMENT_BYTES,
        max_unpacked_bytes: int = MAX_UNPACKED_BYTES,
        readers: Mapping[str, FormatExtractor] | None = None,
    ) -> None:
        self._max_bytes = max_bytes
        self._max_unpacked_bytes = max_unpacked_bytes
        self._readers: dict[str, FormatExtractor] = {
            "pdf": PdfExtractor(),
            "docx": DocxExtractor(),
            "doc": LegacyWordExtractor(),
            "xlsx": XlsxExtractor(),
            "csv": CsvExtractor(),
            "txt": TextExtractor(),
            **(readers or {}),
        }

    def extract(self, name: str, path: Path) -> ExtractedDocument:
        try:
            size = path.stat().st_size
        except OSError:
            raise ExtractionFailed("The uploaded file is missing from storage.") from None
        if size == 0:
            raise ExtractionFailed("The file is empty.")
        if size > self._max_bytes:
            raise ExtractionFailed(f"The file is larger than {self._max_bytes // (1024 * 1024)} MB.")
        format = resolve_format(name, sniff(path, self._max_unpacked_bytes))
        try:
            return self._readers[format].extract(path)
        except ExtractionFailed:
            raise
        except Exception:
            # The readers map the failures they know; this is the net under the ones they do not.
            logger.exception("Extracting %s as %s failed unexpectedly", name, format)
            raise ExtractionFailed(
                f"The file could not be read as {FORMAT_LABELS[format]}; it may be damaged."
            ) from None


def resolve_format(name: str, sniffed: Sniffed) -> str:
    """The format to read the file as, or `ExtractionFailed` naming what it is instead."""
    claimed = format_of_name(name)
    if sniffed.format is None:
        wanted = FORMAT_LABELS[claimed] if claimed else "a PDF, DOCX, DOC, XLSX, CSV or TXT document"
        raise ExtractionFailed(f"The file is {sniffed.label}, not {wanted}.")
    if sniffed.format == "text":
        actual = claimed if claimed in ("csv", "txt") else "txt"
    elif sniffed.format == "rtf":
        actual = "doc"
    else:
        actual = sniffed.format
    if claimed is None or claimed == actual:
        return actual
    if sniffed.format == "doc" and claimed in ("docx", "xlsx"):
        raise ExtractionFailed(
            f"The file is password-protected or in an older Office format, not {FORMAT_LABELS[claimed]}. "
            f"Save it as .{claimed} without a password and upload it again."
        )
    raise ExtractionFailed(f"The file is {sniffed.label}, not {FORMAT_LABELS[claimed]}.")
