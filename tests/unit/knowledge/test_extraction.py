"""The extraction contract the chunker relies on: records as `header: value` lines, the document's
text, the "no text" failure, formats by extension, and the fake extractor of service tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from engage_core.knowledge.extraction import (
    ExtractedDocument,
    ExtractionFailed,
    Record,
    Section,
    document,
    format_of_name,
)
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor


def test_a_record_pairs_values_with_headers_as_lines() -> None:
    """`Record.of` gives one `header: value` line per value, in column order."""
    record = Record.of(["name", "price"], ["Tea", "3"], row=2)
    assert record is not None and record.text == "name: Tea\nprice: 3"


def test_a_record_of_only_empty_values_is_none() -> None:
    """A row whose values are all empty is no record."""
    assert Record.of(["name", "price"], ["", ""], row=2) is None


def test_a_value_under_a_blank_header_is_named_by_its_column() -> None:
    """A blank header gives `Column N`, N counting from 1."""
    record = Record.of(["name", ""], ["Tea", "green"], row=2)
    assert record is not None and record.fields == (("name", "Tea"), ("Column 2", "green"))


def test_the_document_text_joins_its_parts_with_blank_lines() -> None:
    """`text` is every part's text, a blank line between two parts."""
    extracted = document("csv", [Section("Intro"), Record((("name", "Tea"),), 2)])
    assert extracted.text == "Intro\n\nname: Tea"


def test_blank_sections_are_dropped() -> None:
    """Whitespace-only sections are not kept."""
    assert document("txt", [Section(" \n"), Section("kept")]).parts == (Section("kept"),)


def test_a_document_without_text_fails_with_the_hint() -> None:
    """No non-blank part: "No text could be extracted from the file." and the hint after it."""
    with pytest.raises(ExtractionFailed) as raised:
        document("pdf", [Section("")], hint="It may be a scan.")
    assert raised.value.reason == "No text could be extracted from the file. It may be a scan."


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a.pdf", "pdf"), ("B.DOCX", "docx"), ("c.tar.doc", "doc"), ("d.md", None), ("noext", None)],
)
def test_the_format_a_name_claims_is_its_known_extension(name: str, expected: str | None) -> None:
    """Known extensions name their format, in any case; others name none."""
    assert format_of_name(name) == expected


def test_the_fake_reads_utf8_paragraphs_as_sections(tmp_path: Path) -> None:
    """Blank-line-separated paragraphs become sections, the format taken from the name."""
    (tmp_path / "faq.txt").write_text("One\n\nTwo", encoding="utf-8")
    extracted = FakeDocumentExtractor().extract("faq.txt", tmp_path / "faq.txt")
    assert (extracted.format, extracted.parts) == ("txt", (Section("One"), Section("Two")))


def test_the_fake_fails_a_named_file_with_the_given_reason(tmp_path: Path) -> None:
    """A name in `failures` raises ExtractionFailed with that reason, without reading the file."""
    fake = FakeDocumentExtractor(failures={"scan.pdf": "The PDF is password-protected."})
    with pytest.raises(ExtractionFailed, match="password-protected"):
        fake.extract("scan.pdf", tmp_path / "absent.pdf")


def test_the_fake_returns_a_preset_document_and_records_the_call(tmp_path: Path) -> None:
    """A name in `documents` gives that document; `extracted` lists the names asked for."""
    preset = ExtractedDocument("xlsx", (Record((("name", "Tea"),), 2),), row_count=1)
    fake = FakeDocumentExtractor(documents={"prices.xlsx": preset})
    assert fake.extract("prices.xlsx", tmp_path / "absent.xlsx") is preset
    assert fake.extracted == ["prices.xlsx"]
