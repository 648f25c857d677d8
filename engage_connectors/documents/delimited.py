"""CSV: the delimiter sniffed (`,` `;` tab `|`, else `,`), the encoding as for text files; the first
non-empty row is the header and each further non-empty row a `Record` (`header: value` lines).
`max_rows` bounds the records; past it the document is truncated."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from engage_connectors.documents.text_decoding import decode_text
from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed, Record, document

MAX_ROWS = 10_000
_SNIFF_CHARS = 64 * 1024


class CsvExtractor:
    def __init__(self, max_rows: int = MAX_ROWS) -> None:
        self._max_rows = max_rows

    def extract(self, path: Path) -> ExtractedDocument:
        text = decode_text(path.read_bytes())
        records: list[Record] = []
        header: list[str] | None = None
        truncated = False
        try:
            for number, row in enumerate(csv.reader(io.StringIO(text), delimiter=_delimiter(text)), start=1):
                values = [" ".join(value.split()) for value in row]
                if not any(values):
                    continue
                if header is None:
                    header = values
                    continue
                if len(records) >= self._max_rows:
                    truncated = True
                    break
                record = Record.of(header, values, number)
                if record is not None:
                    records.append(record)
        except csv.Error:
            raise ExtractionFailed(
                "The CSV file could not be read: a field is too long or a quote is never closed."
            ) from None
        return document("csv", records, row_count=len(records), truncated=truncated)


def _delimiter(text: str) -> str:
    sample = text[:_SNIFF_CHARS]
    # Cut at a line end, so that the sniffer does not see half a row.
    if len(text) > _SNIFF_CHARS and "\n" in sample:
        sample = sample[: sample.rindex("\n")]
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","
