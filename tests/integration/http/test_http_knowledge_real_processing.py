"""Document and voice entries through the real adapters the composition root wires (pypdf,
python-docx, openpyxl through `FileExtractor`; PyAV and offline pocketsphinx), over HTTP: files made
by the test itself, read or transcribed before the response, and searchable after it."""

from __future__ import annotations

import io

import docx
import openpyxl
import pytest
from document_files import pdf_with_pages
from http_support import Api
from starlette.applications import Starlette
from voice_notes import ARABIC_SENTENCE, ENGLISH_SENTENCE, ENGLISH_WORDS, encode, require_espeak, speak

from engage_connectors.documents import FileExtractor
from engage_connectors.speech import AvAudioProber, transcriber_for
from engage_core.knowledge.transcription import AudioFormat
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, InMemoryUnitOfWorkFactory
from engage_http import create_app

BASE = "/knowledge-base"


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> Services:
    """The services with the adapters `engage serve` wires for documents and voice notes."""
    return Services.build(
        uow,
        clock,
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
        extractor=FileExtractor(),
        transcriber=transcriber_for(None),
        prober=AvAudioProber(),
    )


@pytest.fixture
def app(services: Services) -> Starlette:
    return create_app(services)


def _docx() -> bytes:
    document = docx.Document()
    document.add_heading("Shipping", level=1)
    document.add_paragraph("Parcels leave the warehouse within two working days.")
    table = document.add_table(rows=2, cols=2)
    for row, (zone, price) in zip(table.rows, (("Zone", "Price"), ("Europe", "12 EUR")), strict=True):
        row.cells[0].text, row.cells[1].text = zone, price
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _xlsx() -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Prices"
    for row in (("Item", "Price"), ("Teapot", 45), ("Mug", 8)):
        sheet.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def test_real_documents_are_read_chunked_and_found(api: Api) -> None:
    """A PDF, a DOCX with a table and an XLSX are read by content; rows become chunks; search finds them."""
    files = [
        ("files", ("returns.pdf", pdf_with_pages([["Returns are accepted within 30 days."]]), "application/pdf")),
        ("files", ("shipping.docx", _docx(), "application/octet-stream")),
        ("files", ("prices.xlsx", _xlsx(), "application/octet-stream")),
    ]

    response = api.post(f"{BASE}/document", data={"title": "Policies"}, files=files)

    data = response.json()["data"]
    assert response.status_code == 201, response.text
    assert [(d["file_type"], d["processing_status"]) for d in data["documents"]] == [
        ("pdf", "completed"),
        ("docx", "completed"),
        ("xlsx", "completed"),
    ], [d["processing_error"] for d in data["documents"]]
    chunks = api.get(f"{BASE}/{data['knowledge_base']['id']}/chunks").json()["data"]["chunks"]
    assert {"Item: Teapot\nPrice: 45", "Item: Mug\nPrice: 8"} <= {c["content"] for c in chunks}
    hits = api.get(f"{BASE}/search", params={"q": "teapot price"}).json()["data"]["results"]
    assert hits[0]["content"] == "Item: Teapot\nPrice: 45"


def test_a_file_that_is_not_what_its_name_says_fails_readably(api: Api) -> None:
    """A text file named `.pdf` is a failed document with a reason, and the entry is created."""
    files = [("files", ("report.pdf", b"just some text", "application/pdf"))]

    response = api.post(f"{BASE}/document", data={"title": "Report"}, files=files)

    [document] = response.json()["data"]["documents"]
    assert response.status_code == 201
    assert document["processing_status"] == "failed"
    assert document["processing_error"]


@pytest.mark.slow
def test_a_spoken_english_note_is_transcribed_offline_and_found(api: Api) -> None:
    """An MP3 of English speech is transcribed by pocketsphinx before the response; search finds it."""
    require_espeak()
    audio = encode(speak(ENGLISH_SENTENCE), AudioFormat.MP3)

    response = api.post(
        f"{BASE}/voice", data={"title": "Call back", "language": "en"}, files={"audio_file": ("note.mp3", audio)}
    )

    note = response.json()["data"]["voice_note"]
    assert (response.status_code, note["transcription_status"], note["language"]) == (201, "completed", "en")
    assert len(set(ENGLISH_WORDS) & set(note["transcription"].lower().split())) >= 3, note["transcription"]
    assert api.get(f"{BASE}/search", params={"q": "tomorrow morning"}).json()["data"]["results"]


def test_an_arabic_note_without_an_offline_model_fails_with_the_reason(api: Api) -> None:
    """Offline, Arabic has no model: the note is failed saying so, and the entry exists."""
    require_espeak()
    audio = encode(speak(ARABIC_SENTENCE, voice="ar"), AudioFormat.OGG)

    response = api.post(
        f"{BASE}/voice", data={"title": "Arabic", "language": "ar"}, files={"audio_file": ("note.ogg", audio)}
    )

    note = response.json()["data"]["voice_note"]
    assert (response.status_code, note["transcription_status"]) == (201, "failed")
    assert note["transcription_error"].startswith("No offline speech model exists for Arabic (ar)")


def test_a_file_that_is_not_audio_fails_the_note(api: Api) -> None:
    """Bytes that are no audio container are a failed note, never a 500."""
    response = api.post(f"{BASE}/voice", data={"title": "Junk"}, files={"audio_file": ("note.mp3", b"plain text")})

    note = response.json()["data"]["voice_note"]
    assert (response.status_code, note["transcription_status"]) == (201, "failed")
    assert note["transcription_error"] == "The file is not audio that can be decoded"
