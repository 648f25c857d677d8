"""FileExtractor: the content decides the format, the name only checks it; the size and zip-bomb
guards; every refusal is an ExtractionFailed with a reason users can read."""

from __future__ import annotations

import zipfile
from pathlib import Path

import docx
import pytest
from document_files import PNG_HEADER, pdf_with_pages

from engage_connectors.documents import FileExtractor
from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def failure(extractor: FileExtractor, name: str, path: Path) -> str:
    with pytest.raises(ExtractionFailed) as raised:
        extractor.extract(name, path)
    return raised.value.reason


def a_docx(tmp_path: Path) -> Path:
    document = docx.Document()
    document.add_paragraph("Opening hours: 9 to 5.")
    path = tmp_path / "hours.docx"
    document.save(str(path))
    return path


def test_a_png_named_pdf_is_refused_as_an_image(tmp_path: Path) -> None:
    """A PNG uploaded as .pdf fails with "The file is a PNG image, not a PDF."."""
    path = write(tmp_path, "scan.pdf", PNG_HEADER)
    assert failure(FileExtractor(), "scan.pdf", path) == "The file is a PNG image, not a PDF."


def test_a_plain_zip_named_pdf_is_refused_as_a_zip_archive(tmp_path: Path) -> None:
    """A ZIP archive without Office parts, uploaded as .pdf, is named a ZIP archive."""
    path = tmp_path / "report.pdf"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "hello")
    assert failure(FileExtractor(), "report.pdf", path) == "The file is a ZIP archive, not a PDF."


def test_a_docx_named_pdf_is_refused_as_a_word_document(tmp_path: Path) -> None:
    """A DOCX uploaded as .pdf is named a Word document, not read as one."""
    path = a_docx(tmp_path)
    assert failure(FileExtractor(), "hours.pdf", path) == "The file is a Word document (DOCX), not a PDF."


def test_a_pdf_named_txt_is_refused(tmp_path: Path) -> None:
    """A PDF uploaded as .txt is refused rather than read as text."""
    path = write(tmp_path, "notes.txt", pdf_with_pages([["Hello"]]))
    assert failure(FileExtractor(), "notes.txt", path) == "The file is a PDF, not a text file."


def test_an_ole2_file_named_docx_is_refused_with_what_to_do(tmp_path: Path) -> None:
    """An OLE2 container named .docx (old format or password-protected) says to save it again."""
    path = write(tmp_path, "contract.docx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    reason = failure(FileExtractor(), "contract.docx", path)
    assert reason.startswith("The file is password-protected or in an older Office format")
    assert "Save it as .docx without a password" in reason


def test_a_name_without_a_known_extension_is_read_as_its_content(tmp_path: Path) -> None:
    """A DOCX uploaded without an extension is read as a DOCX."""
    path = a_docx(tmp_path)
    extracted = FileExtractor().extract("hours", path)
    assert (extracted.format, extracted.text) == ("docx", "Opening hours: 9 to 5.")


def test_the_extension_is_matched_without_regard_to_case(tmp_path: Path) -> None:
    """`HOURS.DOCX` is a DOCX like `hours.docx`."""
    assert FileExtractor().extract("HOURS.DOCX", a_docx(tmp_path)).format == "docx"


def test_an_empty_file_is_refused(tmp_path: Path) -> None:
    """A file of no bytes fails with "The file is empty."."""
    assert failure(FileExtractor(), "notes.txt", write(tmp_path, "notes.txt", b"")) == "The file is empty."


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A file past `max_bytes` fails naming the limit in MB."""
    path = write(tmp_path, "big.txt", b"a" * (1024 * 1024 + 1))
    assert failure(FileExtractor(max_bytes=1024 * 1024), "big.txt", path) == "The file is larger than 1 MB."


def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    """A DOCX-shaped package whose parts unpack past the limit fails with a reason."""
    path = tmp_path / "bomb.docx"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\x00" * (3 * 1024 * 1024))
    reason = failure(FileExtractor(max_unpacked_bytes=2 * 1024 * 1024), "bomb.docx", path)
    assert reason.startswith("The file unpacks to more than 2 MB")


def test_a_binary_file_of_no_known_kind_is_not_read_as_text(tmp_path: Path) -> None:
    """Bytes with NULs and no known magic, named .txt, are refused as binary."""
    path = write(tmp_path, "data.txt", bytes(range(256)) * 4)
    reason = failure(FileExtractor(), "data.txt", path)
    assert reason == "The file is a binary file of an unknown kind, not a text file."


def test_a_missing_file_is_a_failure_not_an_os_error(tmp_path: Path) -> None:
    """A path with no file behind it fails with a reason."""
    reason = failure(FileExtractor(), "gone.pdf", tmp_path / "gone.pdf")
    assert reason == "The uploaded file is missing from storage."


def test_an_unexpected_reader_error_becomes_a_failure(tmp_path: Path) -> None:
    """A reader that raises something unforeseen still ends in ExtractionFailed."""

    class Exploding:
        def extract(self, path: Path) -> ExtractedDocument:
            raise RecursionError("deep")

    path = write(tmp_path, "notes.txt", b"hello")
    reason = failure(FileExtractor(readers={"txt": Exploding()}), "notes.txt", path)
    assert reason == "The file could not be read as a text file; it may be damaged."
