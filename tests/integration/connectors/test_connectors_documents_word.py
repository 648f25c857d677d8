"""DOCX through python-docx and legacy .doc through LibreOffice: body order with tables between
paragraphs, heading paths, table rows as records; empty and damaged files fail with a reason."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import docx
import pytest

from engage_connectors.documents import FileExtractor
from engage_connectors.documents.legacy_word import NOT_INSTALLED, LegacyWordExtractor
from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed, Record, Section

ARABIC = "سياسة الإرجاع: يمكن إرجاع المنتجات خلال ٣٠ يومًا."


def policy_docx(path: Path) -> Path:
    """A title, two heading levels, body paragraphs, a table between paragraphs, Arabic text."""
    document = docx.Document()
    document.add_heading("Store policies", level=0)
    document.add_paragraph("Read before you order.")
    document.add_heading("Shipping", level=1)
    document.add_paragraph("We ship within 3 days.")
    table = document.add_table(rows=3, cols=2)
    for row, (region, price) in enumerate([("Region", "Price"), ("EU", "5 EUR"), ("Gulf", "")]):
        table.cell(row, 0).text = region
        table.cell(row, 1).text = price
    document.add_paragraph("Tracking links come by email.")
    document.add_heading("Express", level=2)
    document.add_paragraph("Next day in the city.")
    document.add_heading("Returns", level=1)
    document.add_paragraph(ARABIC)
    document.save(str(path))
    return path


EXPECTED_PARTS = (
    Section("Store policies\nRead before you order.", ("Store policies",)),
    Section("Shipping\nWe ship within 3 days.", ("Store policies", "Shipping")),
    Record((("Region", "EU"), ("Price", "5 EUR")), 2, ("Store policies", "Shipping")),
    Record((("Region", "Gulf"),), 3, ("Store policies", "Shipping")),
    Section("Tracking links come by email.", ("Store policies", "Shipping")),
    Section("Express\nNext day in the city.", ("Store policies", "Shipping", "Express")),
    Section(f"Returns\n{ARABIC}", ("Store policies", "Returns")),
)


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> ExtractedDocument:
    path = policy_docx(tmp_path_factory.mktemp("docx") / "policy.docx")
    return FileExtractor().extract("policy.docx", path)


def test_docx_paragraphs_and_tables_come_in_body_order_under_their_headings(policy: ExtractedDocument) -> None:
    """Sections and table records interleave as in the document, each under its heading path."""
    assert policy.parts == EXPECTED_PARTS


def test_docx_counts_its_table_rows(policy: ExtractedDocument) -> None:
    """The DOCX's format is `docx` and `row_count` counts its table records."""
    assert (policy.format, policy.row_count) == ("docx", 2)


def test_a_one_row_docx_table_is_a_section_of_its_cells(tmp_path: Path) -> None:
    """A table of one row is read as `cell | cell`."""
    document = docx.Document()
    table = document.add_table(rows=1, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Phone", "+1 555 0100"
    document.save(str(tmp_path / "contact.docx"))
    extracted = FileExtractor().extract("contact.docx", tmp_path / "contact.docx")
    assert extracted.parts == (Section("Phone | +1 555 0100"),)


def test_an_empty_docx_has_no_text(tmp_path: Path) -> None:
    """A DOCX without text fails with "No text could be extracted from the file."."""
    docx.Document().save(str(tmp_path / "empty.docx"))
    with pytest.raises(ExtractionFailed, match=r"^No text could be extracted from the file\.$"):
        FileExtractor().extract("empty.docx", tmp_path / "empty.docx")


def test_a_damaged_docx_is_refused(tmp_path: Path) -> None:
    """A DOCX package whose document part is not XML fails as damaged."""
    source = policy_docx(tmp_path / "source.docx")
    damaged = tmp_path / "damaged.docx"
    replace_part(source, damaged, "word/document.xml", b"<w:document not xml")
    with pytest.raises(ExtractionFailed, match=r"^The Word document is damaged and could not be read\.$"):
        FileExtractor().extract("damaged.docx", damaged)


def replace_part(source: Path, target: Path, part: str, data: bytes) -> None:
    """`target`: a copy of the package `source` with `part` replaced by `data`."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, data if item.filename == part else src.read(item.filename))


def test_without_soffice_a_legacy_doc_fails_telling_what_to_install(tmp_path: Path) -> None:
    """No LibreOffice on PATH: the reason names the package to install."""
    path = tmp_path / "old.doc"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    extractor = FileExtractor(readers={"doc": LegacyWordExtractor(soffice=lambda: None)})
    with pytest.raises(ExtractionFailed) as raised:
        extractor.extract("old.doc", path)
    assert raised.value.reason == NOT_INSTALLED
    assert "apt-get install libreoffice-writer-nogui" in NOT_INSTALLED


needs_soffice = pytest.mark.skipif(
    shutil.which("soffice") is None,
    reason="LibreOffice (soffice) is not installed: apt-get install libreoffice-writer-nogui (.ci/run installs it)",
)


def soffice_convert(source: Path, to: str, outdir: Path) -> Path:
    """`source` converted by LibreOffice to the `to` extension, with a private profile."""
    with tempfile.TemporaryDirectory(prefix="engage-test-soffice-") as profile:
        subprocess.run(
            [
                "soffice",
                f"-env:UserInstallation={Path(profile).as_uri()}",
                "--headless",
                "--norestore",
                "--convert-to",
                to,
                "--outdir",
                str(outdir),
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    return outdir / f"{source.stem}.{to}"


@pytest.fixture(scope="module")
def legacy_doc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The policy DOCX saved by LibreOffice as Word 97 `.doc`, once for the module."""
    folder = tmp_path_factory.mktemp("doc")
    return soffice_convert(policy_docx(folder / "policy.docx"), "doc", folder)


@needs_soffice
def test_a_legacy_doc_keeps_headings_and_table_rows(legacy_doc: Path) -> None:
    """A Word 97 `.doc` reads like its DOCX: the same parts in the same order, format `doc`."""
    extracted = FileExtractor().extract("policy.doc", legacy_doc)
    assert (extracted.format, extracted.parts) == ("doc", EXPECTED_PARTS)


@needs_soffice
def test_a_legacy_doc_that_is_really_a_docx_is_refused(tmp_path: Path) -> None:
    """A DOCX renamed `.doc` is named a Word document (DOCX), not converted."""
    path = policy_docx(tmp_path / "policy.doc")
    with pytest.raises(ExtractionFailed, match=r"^The file is a Word document \(DOCX\), not a legacy Word"):
        FileExtractor().extract("policy.doc", path)


@needs_soffice
def test_a_damaged_legacy_doc_is_refused(tmp_path: Path) -> None:
    """An OLE2 header followed by nothing readable fails as not convertible."""
    path = tmp_path / "broken.doc"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    with pytest.raises(ExtractionFailed, match=r"^The legacy Word document could not be converted; it may be"):
        FileExtractor().extract("broken.doc", path)
