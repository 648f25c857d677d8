"""An in-memory `DocumentExtractor` for service tests: plain text only, and failures on demand."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from engage_core.knowledge.extraction import (
    MAX_DOCUMENT_BYTES,
    ExtractedDocument,
    ExtractionFailed,
    Section,
    document,
    format_of_name,
)


class FakeDocumentExtractor:
    """Reads every file as UTF-8 text, one `Section` per blank-line-separated paragraph, with the
    format its name claims (`txt` when it claims none). A name in `failures` fails with that reason;
    a name in `documents` gives that document without reading the file. `extracted` lists the
    names asked for, in order."""

    def __init__(
        self,
        documents: Mapping[str, ExtractedDocument] | None = None,
        failures: Mapping[str, str] | None = None,
    ) -> None:
        self.documents = dict(documents or {})
        self.failures = dict(failures or {})
        self.extracted: list[str] = []

    def extract(self, name: str, path: Path) -> ExtractedDocument:
        self.extracted.append(name)
        if name in self.failures:
            raise ExtractionFailed(self.failures[name])
        if name in self.documents:
            return self.documents[name]
        data = path.read_bytes()
        if len(data) > MAX_DOCUMENT_BYTES:
            raise ExtractionFailed("The file is larger than 20 MB.")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise ExtractionFailed("The fake extractor reads UTF-8 text only.") from None
        paragraphs = (Section(paragraph.strip()) for paragraph in text.split("\n\n"))
        return document(format_of_name(name) or "txt", paragraphs)
