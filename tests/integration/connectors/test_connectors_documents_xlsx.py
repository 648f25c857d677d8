"""XLSX through openpyxl (read-only): every sheet, the first non-empty row as header, one record per
row under the sheet's name, cached values, a row cap; damaged workbooks fail with a reason."""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import openpyxl
import pytest

from engage_connectors.documents import FileExtractor
from engage_connectors.documents.spreadsheet import XlsxExtractor
from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed, Record


def catalog_xlsx(path: Path) -> Path:
    """Two sheets: `Prices` with a blank first row, a blank middle row and typed cells; `عربي`."""
    workbook = openpyxl.Workbook()
    prices = workbook.active
    assert prices is not None
    prices.title = "Prices"
    prices.append([])
    prices.append(["Product", "Price", "In stock", "Since"])
    prices.append(["Tea", 3.0, True, dt.datetime(2026, 1, 5)])
    prices.append([])
    prices.append(["Coffee", 4.25, False, None])
    arabic = workbook.create_sheet("عربي")
    arabic.append(["المنتج", "السعر"])
    arabic.append(["شاي", 3])
    workbook.save(path)
    return path


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    path = catalog_xlsx(tmp_path_factory.mktemp("xlsx") / "catalog.xlsx")
    return FileExtractor().extract("catalog.xlsx", path)


def test_each_row_of_each_sheet_is_a_record_under_the_sheet_name(catalog: ExtractedDocument) -> None:
    """Rows become records, in sheet then row order, each under its sheet's name."""
    assert [(record.heading_path, record.row) for record in catalog.parts if isinstance(record, Record)] == [
        (("Prices",), 3),
        (("Prices",), 5),
        (("عربي",), 2),
    ]


def test_cells_read_as_the_sheet_shows_them(catalog: ExtractedDocument) -> None:
    """A whole float has no `.0`, booleans are TRUE/FALSE, a midnight date is ISO."""
    assert catalog.parts[0].text == "Product: Tea\nPrice: 3\nIn stock: TRUE\nSince: 2026-01-05"


def test_empty_cells_are_left_out_of_the_record(catalog: ExtractedDocument) -> None:
    """The row without a `Since` has no `Since:` line."""
    assert catalog.parts[1].text == "Product: Coffee\nPrice: 4.25\nIn stock: FALSE"


def test_arabic_sheet_names_headers_and_values_survive(catalog: ExtractedDocument) -> None:
    """An Arabic sheet keeps its name, headers and values."""
    assert catalog.parts[2].text == "المنتج: شاي\nالسعر: 3"


def test_the_workbook_reports_its_format_and_row_count(catalog: ExtractedDocument) -> None:
    """Format `xlsx`, `row_count` 3, not truncated."""
    assert (catalog.format, catalog.row_count, catalog.truncated) == ("xlsx", 3, False)


def test_rows_past_the_cap_are_dropped_and_the_document_truncated(tmp_path: Path) -> None:
    """With `max_rows` 2, the third record is not read and the document is truncated."""
    extractor = FileExtractor(readers={"xlsx": XlsxExtractor(max_rows=2)})
    extracted = extractor.extract("catalog.xlsx", catalog_xlsx(tmp_path / "catalog.xlsx"))
    assert (extracted.row_count, extracted.truncated) == (2, True)


def test_formulas_give_their_cached_values(tmp_path: Path) -> None:
    """A formula cell reads as the value Excel saved (none here, so it is left out), never as `=...`."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["Item", "Total"])
    sheet.append(["Tea", "=1+2"])
    workbook.save(tmp_path / "sum.xlsx")
    assert FileExtractor().extract("sum.xlsx", tmp_path / "sum.xlsx").text == "Item: Tea"


def test_a_workbook_with_only_a_header_has_no_text(tmp_path: Path) -> None:
    """A header row and nothing else fails with "No text could be extracted"."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["Product", "Price"])
    workbook.save(tmp_path / "empty.xlsx")
    with pytest.raises(ExtractionFailed, match=r"^No text could be extracted"):
        FileExtractor().extract("empty.xlsx", tmp_path / "empty.xlsx")


def test_a_damaged_workbook_is_refused(tmp_path: Path) -> None:
    """An XLSX whose workbook part is not XML fails as damaged."""
    source = catalog_xlsx(tmp_path / "source.xlsx")
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(damaged, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, b"<workbook" if item.filename == "xl/workbook.xml" else src.read(item.filename))
    with pytest.raises(ExtractionFailed, match=r"^The Excel workbook is damaged and could not be read\.$"):
        FileExtractor().extract("damaged.xlsx", damaged)


def test_a_workbook_is_read_from_a_path_without_an_extension(tmp_path: Path) -> None:
    """The bytes decide, not the path: an upload's temporary file named without `.xlsx` is read."""
    path = catalog_xlsx(tmp_path / "catalog.xlsx").rename(tmp_path / "upload-0")

    extracted = FileExtractor().extract("catalog.xlsx", path)

    assert (extracted.format, extracted.row_count) == ("xlsx", 3)
