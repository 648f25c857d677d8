"""Text and CSV files: encodings (BOMs, UTF-8, Windows-1252) and CSV rows as `header: value`
records, with the delimiter sniffed."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from engage_connectors.documents import FileExtractor
from engage_connectors.documents.delimited import CsvExtractor
from engage_core.knowledge.extraction import ExtractionFailed, Record

ARABIC = "مرحبا بكم في متجرنا. الشحن مجاني للطلبات فوق ١٠٠ ريال."


def extract_text(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return FileExtractor().extract(name, path).text


@pytest.mark.parametrize(
    ("label", "data"),
    [
        ("utf-8", "Café – naïve façade €5".encode()),
        ("utf-8 with BOM", codecs.BOM_UTF8 + "Café – naïve façade €5".encode()),
        ("utf-16 LE with BOM", "Café – naïve façade €5".encode("utf-16")),
        ("utf-16 BE with BOM", codecs.BOM_UTF16_BE + "Café – naïve façade €5".encode("utf-16-be")),
        ("windows-1252", "Café – naïve façade €5".encode("cp1252")),
    ],
)
def test_text_is_decoded_whatever_its_encoding(tmp_path: Path, label: str, data: bytes) -> None:
    """UTF-8 (with or without BOM), UTF-16 with BOM and Windows-1252 all give the same text."""
    assert extract_text(tmp_path, "notes.txt", data) == "Café – naïve façade €5"


def test_latin_1_text_is_decoded(tmp_path: Path) -> None:
    """Latin-1 French reads as written, not as Central European mojibake."""
    text = "Crème brûlée à la carte, déjà vu."
    assert extract_text(tmp_path, "menu.txt", text.encode("latin-1")) == text


def test_utf_16_without_a_bom_is_recognised(tmp_path: Path) -> None:
    """Mostly-ASCII UTF-16 LE without a mark is decoded, not refused as binary."""
    assert extract_text(tmp_path, "notes.txt", "Opening hours 9-17".encode("utf-16-le")) == "Opening hours 9-17"


def test_arabic_text_survives(tmp_path: Path) -> None:
    """Arabic in UTF-8 comes out unchanged."""
    assert extract_text(tmp_path, "ar.txt", ARABIC.encode()) == ARABIC


def test_windows_line_ends_become_newlines(tmp_path: Path) -> None:
    """CRLF and CR line ends are read as LF."""
    assert extract_text(tmp_path, "notes.txt", b"one\r\ntwo\rthree") == "one\ntwo\nthree"


def test_a_text_file_of_only_whitespace_has_no_text(tmp_path: Path) -> None:
    """Blank text fails with "No text could be extracted from the file."."""
    with pytest.raises(ExtractionFailed, match=r"^No text could be extracted from the file\.$"):
        extract_text(tmp_path, "blank.txt", b" \n\t\n")


def csv_records(tmp_path: Path, data: bytes, name: str = "prices.csv") -> list[Record]:
    path = tmp_path / name
    path.write_bytes(data)
    parts = FileExtractor().extract(name, path).parts
    assert all(isinstance(part, Record) for part in parts)
    return [part for part in parts if isinstance(part, Record)]


def test_each_csv_row_is_a_record_of_header_value_lines(tmp_path: Path) -> None:
    """`name,price` then `Tea,3` gives one record `name: Tea` / `price: 3`."""
    records = csv_records(tmp_path, b"name,price\nTea,3\nCoffee,4\n")
    assert [record.text for record in records] == ["name: Tea\nprice: 3", "name: Coffee\nprice: 4"]


def test_a_semicolon_delimited_csv_is_split_on_semicolons(tmp_path: Path) -> None:
    """A `;` CSV (as European Excel writes) is sniffed and split on `;`, commas kept in values."""
    records = csv_records(tmp_path, "produit;prix\nThé vert;3,50\nCafé;4,20\n".encode("cp1252"))
    assert records[0].fields == (("produit", "Thé vert"), ("prix", "3,50"))


def test_csv_rows_keep_their_row_numbers_and_skip_empty_rows(tmp_path: Path) -> None:
    """Empty rows give no record; each record keeps its row number in the file."""
    records = csv_records(tmp_path, b"\nname,price\n\nTea,3\n,\nCoffee,4\n")
    assert [record.row for record in records] == [4, 6]


def test_empty_csv_values_are_left_out_of_the_record(tmp_path: Path) -> None:
    """A row's empty cell gives no `header: ` line."""
    assert csv_records(tmp_path, b"name,price,note\nTea,,green\n")[0].text == "name: Tea\nnote: green"


def test_a_csv_value_without_a_header_is_named_by_its_column(tmp_path: Path) -> None:
    """A value past the header row's width is `Column N: value`."""
    assert csv_records(tmp_path, b"name\nTea,green\n")[0].text == "name: Tea\nColumn 2: green"


def test_arabic_csv_values_survive(tmp_path: Path) -> None:
    """Arabic headers and values in a UTF-8 CSV with BOM come out unchanged."""
    records = csv_records(tmp_path, codecs.BOM_UTF8 + "المنتج,السعر\nشاي,٣\n".encode())
    assert records[0].text == "المنتج: شاي\nالسعر: ٣"


def test_csv_rows_past_the_cap_are_dropped_and_the_document_truncated(tmp_path: Path) -> None:
    """With `max_rows` 2, three data rows give two records and `truncated`."""
    path = tmp_path / "rows.csv"
    path.write_bytes(b"n\n1\n2\n3\n")
    extracted = FileExtractor(readers={"csv": CsvExtractor(max_rows=2)}).extract("rows.csv", path)
    assert (extracted.row_count, extracted.truncated) == (2, True)


def test_a_header_only_csv_has_no_text(tmp_path: Path) -> None:
    """A CSV with a header and no rows fails with "No text could be extracted"."""
    with pytest.raises(ExtractionFailed, match=r"^No text could be extracted"):
        csv_records(tmp_path, b"name,price\n")
