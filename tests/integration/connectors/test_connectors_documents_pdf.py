"""PDF through pypdf: one section per page under `Page N`; encrypted, damaged and text-less PDFs
fail with a reason; the page and time budgets stop a long read."""

from __future__ import annotations

import io
from pathlib import Path

import pypdf
import pytest
from document_files import pdf_with_pages

from engage_connectors.documents import FileExtractor
from engage_connectors.documents.pdf import PdfExtractor
from engage_core.knowledge.extraction import ExtractionFailed, Section


def write(tmp_path: Path, data: bytes, name: str = "guide.pdf") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def encrypted(data: bytes, user_password: str, owner_password: str) -> bytes:
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def failure(path: Path, extractor: FileExtractor | None = None) -> str:
    with pytest.raises(ExtractionFailed) as raised:
        (extractor or FileExtractor()).extract(path.name, path)
    return raised.value.reason


GUIDE = pdf_with_pages([["Returns", "Items can be returned within 30 days."], ["Shipping", "We ship worldwide."]])


def test_each_page_is_a_section_under_its_page_number(tmp_path: Path) -> None:
    """Two pages give two sections, `Page 1` and `Page 2`, with their lines."""
    extracted = FileExtractor().extract("guide.pdf", write(tmp_path, GUIDE))
    assert extracted.parts == (
        Section("Returns\nItems can be returned within 30 days.", ("Page 1",)),
        Section("Shipping\nWe ship worldwide.", ("Page 2",)),
    )


def test_the_page_count_and_format_are_reported(tmp_path: Path) -> None:
    """A two-page PDF is format `pdf` with `page_count` 2, not truncated."""
    extracted = FileExtractor().extract("guide.pdf", write(tmp_path, GUIDE))
    assert (extracted.format, extracted.page_count, extracted.truncated) == ("pdf", 2, False)


def test_a_password_protected_pdf_is_refused(tmp_path: Path) -> None:
    """A PDF that needs a password to open fails saying so."""
    path = write(tmp_path, encrypted(GUIDE, user_password="secret", owner_password="owner"))
    assert failure(path) == "The PDF is password-protected. Upload a copy without a password."


def test_a_pdf_encrypted_only_against_editing_is_read(tmp_path: Path) -> None:
    """An empty user password (restrictions only) does not stop reading."""
    path = write(tmp_path, encrypted(GUIDE, user_password="", owner_password="owner"))
    assert "We ship worldwide." in FileExtractor().extract("guide.pdf", path).text


def test_a_truncated_pdf_is_refused_as_damaged(tmp_path: Path) -> None:
    """A PDF cut after its header fails as damaged, not with a pypdf exception."""
    path = write(tmp_path, GUIDE[:40])
    assert failure(path) == "The PDF is damaged and could not be read."


def test_a_pdf_of_garbage_after_the_header_is_refused_as_damaged(tmp_path: Path) -> None:
    """`%PDF-` followed by noise fails as damaged."""
    path = write(tmp_path, b"%PDF-1.7\n" + bytes(range(256)) * 40)
    assert failure(path) == "The PDF is damaged and could not be read."


def test_a_pdf_without_text_says_it_may_be_a_scan(tmp_path: Path) -> None:
    """Pages with no text fail with "No text could be extracted" and the scanned-image hint."""
    path = write(tmp_path, pdf_with_pages([[], []]))
    assert failure(path) == (
        "No text could be extracted from the file. It may be a scanned image: text inside images is not read."
    )


def test_pages_past_the_page_budget_are_not_read(tmp_path: Path) -> None:
    """With `max_pages` 1, a two-page PDF gives page 1 only, marked truncated."""
    extractor = FileExtractor(readers={"pdf": PdfExtractor(max_pages=1)})
    extracted = extractor.extract("guide.pdf", write(tmp_path, GUIDE))
    assert (extracted.page_count, extracted.truncated, extracted.parts[0].heading_path) == (1, True, ("Page 1",))


def test_reading_stops_when_the_time_budget_is_spent(tmp_path: Path) -> None:
    """A clock past the budget after the first page stops the read there, marked truncated."""
    ticks = iter([0.0, 0.0, 11.0, 11.0])
    extractor = FileExtractor(readers={"pdf": PdfExtractor(time_budget=10.0, monotonic=lambda: next(ticks))})
    extracted = extractor.extract("guide.pdf", write(tmp_path, GUIDE))
    assert (extracted.page_count, extracted.truncated) == (1, True)
