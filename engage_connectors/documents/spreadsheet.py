"""XLSX through openpyxl in read-only mode (rows stream; cached formula values, not formulas).

Every worksheet in order: its first non-empty row is the header, each further non-empty row a
`Record` (`header: value` lines) under the sheet's name. `max_rows` (over the whole workbook) and
`time_budget` (seconds) bound the work; past either, reading stops and the document is truncated.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import openpyxl
from openpyxl.worksheet._read_only import ReadOnlyWorksheet

from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed, Record, document

MAX_ROWS = 10_000
TIME_BUDGET_SECONDS = 120.0
DAMAGED = "The Excel workbook is damaged and could not be read."


class XlsxExtractor:
    def __init__(
        self,
        max_rows: int = MAX_ROWS,
        time_budget: float = TIME_BUDGET_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_rows = max_rows
        self._time_budget = time_budget
        self._monotonic = monotonic

    def extract(self, path: Path) -> ExtractedDocument:
        started = self._monotonic()
        try:
            # A file object, not the path: openpyxl refuses a path without an Excel extension, and the
            # port's path is wherever the bytes are (an upload's temporary file has no extension).
            handle = path.open("rb")
        except OSError:
            raise ExtractionFailed(DAMAGED) from None
        try:
            workbook = openpyxl.load_workbook(handle, read_only=True, data_only=True)
        except Exception:  # openpyxl raises zip, XML, key and value errors on a damaged package
            handle.close()
            raise ExtractionFailed(DAMAGED) from None
        records: list[Record] = []
        truncated = False
        try:
            for sheet in workbook.worksheets:
                if not isinstance(sheet, ReadOnlyWorksheet):
                    continue
                for record in _records(sheet):
                    if len(records) >= self._max_rows or self._monotonic() - started > self._time_budget:
                        truncated = True
                        break
                    records.append(record)
                if truncated:
                    break
        except Exception:
            raise ExtractionFailed(DAMAGED) from None
        finally:
            workbook.close()
            handle.close()
        return document("xlsx", records, row_count=len(records), truncated=truncated)


def _records(sheet: ReadOnlyWorksheet) -> Iterator[Record]:
    header: list[str] | None = None
    # The stubs borrow Worksheet.iter_rows for the read-only sheet, with Worksheet as `self`.
    rows = sheet.iter_rows(values_only=True)  # type: ignore[misc]
    for number, row in enumerate(rows, start=1):
        values = [cell_text(value) for value in row]
        if not any(values):
            continue
        if header is None:
            header = values
            continue
        record = Record.of(header, values, number, (sheet.title,))
        if record is not None:
            yield record


def cell_text(value: object) -> str:
    """A cell's value as the sheet shows it, roughly: whole floats without `.0`, dates in ISO form."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.15g}"
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return " ".join(str(value).split())
