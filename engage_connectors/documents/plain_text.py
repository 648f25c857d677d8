"""TXT: decoded as `text_decoding` says, one `Section` of the whole text."""

from __future__ import annotations

from pathlib import Path

from engage_connectors.documents.text_decoding import decode_text
from engage_core.knowledge.extraction import ExtractedDocument, Section, document


class TextExtractor:
    def extract(self, path: Path) -> ExtractedDocument:
        return document("txt", [Section(decode_text(path.read_bytes()).strip())])
