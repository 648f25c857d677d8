"""Document entries over HTTP (SPEC 4, `POST /knowledge-base/document`): several files in one form,
each read before the response (completed or failed), chunked, searchable, shown with the entry,
reported by the status of the entry's documents, with their events and limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from http_support import Api, Tenant

from engage_core.knowledge.extraction import ExtractedDocument, Record, Section
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.services import Services
from engage_core.testing import InMemoryUnitOfWorkFactory

BASE = "/knowledge-base"
DOCUMENTS = f"{BASE}/document"
HANDBOOK = b"Returns are accepted within 30 days.\n\nRefunds take five working days."


def files(*named: tuple[str, bytes]) -> list[tuple[str, tuple[str, bytes, str]]]:
    return [("files", (name, data, "application/octet-stream")) for name, data in named]


def upload(api: Api, *named: tuple[str, bytes], **fields: str) -> Any:
    return api.post(DOCUMENTS, data={"title": "Handbook", **fields}, files=files(*named))


def test_a_document_entry_answers_201_with_the_entry_and_its_documents(api: Api) -> None:
    """The response holds `knowledge_base` and one completed document per file, with its text."""
    response = upload(api, ("handbook.txt", HANDBOOK))

    data = response.json()["data"]
    assert response.status_code == 201
    assert (data["knowledge_base"]["type"], data["knowledge_base"]["title"]) == ("document", "Handbook")
    [document] = data["documents"]
    assert {k: v for k, v in document.items() if k != "id"} == {
        "original_name": "handbook.txt",
        "file_type": "txt",
        "processing_status": "completed",
        "extracted_content": "Returns are accepted within 30 days.\n\nRefunds take five working days.",
        "processing_error": None,
    }


def test_several_files_are_read_in_order(api: Api, extractor: FakeDocumentExtractor) -> None:
    """Repeated `files` parts (or `files[]`) become documents in upload order."""
    response = api.post(
        DOCUMENTS,
        data={"title": "Policies"},
        files=[
            ("files", ("a.txt", b"Alpha", "text/plain")),
            ("files[]", ("b.txt", b"Beta", "text/plain")),
        ],
    )

    assert [d["original_name"] for d in response.json()["data"]["documents"]] == ["a.txt", "b.txt"]
    assert extractor.extracted == ["a.txt", "b.txt"]


def test_the_text_is_searchable_when_the_response_is_sent(api: Api) -> None:
    """The documents' text is chunked in the same transaction: search finds it at once."""
    entry = upload(api, ("handbook.txt", HANDBOOK)).json()["data"]["knowledge_base"]

    results = api.get(f"{BASE}/search", params={"q": "refund"}).json()["data"]["results"]
    assert [r["knowledge_base_id"] for r in results] == [entry["id"]]


def test_table_rows_become_one_chunk_each(api: Api, extractor: FakeDocumentExtractor) -> None:
    """A spreadsheet's records are chunked one per row, headed by the sheet."""
    extractor.documents["prices.xlsx"] = ExtractedDocument(
        "xlsx",
        (
            Record((("Item", "Mug"), ("Price", "8")), 2, ("Sheet1",)),
            Record((("Item", "Teapot"), ("Price", "45")), 3, ("Sheet1",)),
        ),
        row_count=2,
    )
    entry = upload(api, ("prices.xlsx", b"ignored")).json()["data"]["knowledge_base"]

    chunks = api.get(f"{BASE}/{entry['id']}/chunks").json()["data"]["chunks"]
    assert [(c["content"], c["context_header"]) for c in chunks] == [
        ("Item: Mug\nPrice: 8", "Handbook > Sheet1"),
        ("Item: Teapot\nPrice: 45", "Handbook > Sheet1"),
    ]


def test_sections_keep_their_heading_path(api: Api, extractor: FakeDocumentExtractor) -> None:
    """Prose under headings is headed by the title and the heading path."""
    extractor.documents["guide.docx"] = ExtractedDocument("docx", (Section("Ship in two days.", ("Shipping",)),))
    entry = upload(api, ("guide.docx", b"ignored")).json()["data"]["knowledge_base"]

    [chunk] = api.get(f"{BASE}/{entry['id']}/chunks").json()["data"]["chunks"]
    assert chunk["context_header"] == "Handbook > Shipping"


def test_a_new_title_heads_the_documents_chunks(api: Api, extractor: FakeDocumentExtractor) -> None:
    """Retitling a document entry puts the new title at the head of its chunks' `context_header`."""
    extractor.documents["guide.docx"] = ExtractedDocument("docx", (Section("Ship in two days.", ("Shipping",)),))
    entry = upload(api, ("guide.docx", b"ignored")).json()["data"]["knowledge_base"]

    api.put(f"{BASE}/{entry['id']}", json={"title": "Staff handbook"})

    [chunk] = api.get(f"{BASE}/{entry['id']}/chunks").json()["data"]["chunks"]
    assert chunk["context_header"] == "Staff handbook > Shipping"


def test_a_file_that_cannot_be_read_is_failed_not_an_error(api: Api, extractor: FakeDocumentExtractor) -> None:
    """An unreadable file ends `failed` with a readable error; the other files and the entry are kept."""
    extractor.failures["scan.pdf"] = "The PDF is encrypted."

    response = upload(api, ("scan.pdf", b"%PDF-1.7"), ("handbook.txt", HANDBOOK))

    failed, completed = response.json()["data"]["documents"]
    assert response.status_code == 201
    assert (failed["processing_status"], failed["processing_error"], failed["extracted_content"]) == (
        "failed",
        "The PDF is encrypted.",
        None,
    )
    assert (failed["file_type"], completed["processing_status"]) == ("pdf", "completed")


def test_each_document_emits_its_processing_event(
    api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory, extractor: FakeDocumentExtractor
) -> None:
    """`knowledge_base.created`, then `.processing.failed`/`.completed` per file with the SPEC 6 fields."""
    extractor.failures["scan.pdf"] = "The PDF is encrypted."

    data = upload(api, ("scan.pdf", b"x"), ("handbook.txt", HANDBOOK)).json()["data"]

    created, failed, completed = uow.store.events(tenant.account_id)
    entry, (bad, good) = data["knowledge_base"], data["documents"]
    assert [e.name for e in (created, failed, completed)] == [
        "knowledge_base.created",
        "knowledge_base.processing.failed",
        "knowledge_base.processing.completed",
    ]
    assert failed.payload == {
        "knowledge_base_id": entry["id"],
        "title": "Handbook",
        "type": "document",
        "item_id": bad["id"],
        "error": "The PDF is encrypted.",
        "occurred_at": "2026-01-01T12:00:00.000000Z",
        "original_name": "scan.pdf",
        "status": "failed",
    }
    assert (completed.payload["item_id"], completed.payload["error"], completed.payload["status"]) == (
        good["id"],
        None,
        "completed",
    )


def test_the_entry_shows_its_documents(api: Api) -> None:
    """`GET /knowledge-base/{id}` of a document entry lists its documents."""
    entry = upload(api, ("handbook.txt", HANDBOOK)).json()["data"]["knowledge_base"]

    shown = api.get(f"{BASE}/{entry['id']}").json()["data"]
    assert ([d["original_name"] for d in shown["documents"]], shown["content"], shown["products"]) == (
        ["handbook.txt"],
        None,
        None,
    )


def test_deleting_the_entry_removes_its_documents_and_chunks(api: Api) -> None:
    """The entry, its documents and its chunks go together."""
    entry = upload(api, ("handbook.txt", HANDBOOK)).json()["data"]["knowledge_base"]

    assert api.delete(f"{BASE}/{entry['id']}").status_code == 204
    assert api.get(f"{BASE}/search", params={"q": "refund"}).json()["data"]["results"] == []


def test_the_document_status_counts_the_files(
    api: Api, tenant: Tenant, services: Services, extractor: FakeDocumentExtractor
) -> None:
    """`document_status` reports every file, how many failed, and that none is pending."""
    extractor.failures["scan.pdf"] = "The PDF is encrypted."
    data = upload(api, ("scan.pdf", b"x"), ("handbook.txt", HANDBOOK)).json()["data"]

    status = services.knowledge_documents.document_status(tenant.account_id, data["knowledge_base"]["id"])

    assert (status.total, status.pending_count, status.failed_count, status.completed) == (2, 0, 1, True)
    assert [(d.original_name, d.processing_status) for d in status.documents] == [
        ("scan.pdf", "failed"),
        ("handbook.txt", "completed"),
    ]


# -- limits ------------------------------------------------------------------------------------------


def test_a_json_body_is_refused(api: Api) -> None:
    """Documents come as a form: a JSON body is a 422."""
    response = api.post(DOCUMENTS, json={"title": "Handbook", "files": ["x"]})

    assert response.status_code == 422


def test_at_least_one_file_is_required(api: Api) -> None:
    """A form without files is a 422 on `files`."""
    response = api.post(DOCUMENTS, data={"title": "Handbook"}, files={"other": ("x.txt", b"x")})

    assert (response.status_code, "files" in response.json()["errors"]) == (422, True)


def test_more_than_ten_files_are_refused(api: Api) -> None:
    """At most ten files per request."""
    response = upload(api, *[(f"f{n}.txt", b"x") for n in range(11)])

    assert (response.status_code, "files" in response.json()["errors"]) == (422, True)


def test_a_format_that_is_not_accepted_is_refused_before_anything_is_read(
    api: Api, extractor: FakeDocumentExtractor
) -> None:
    """A file whose extension is not PDF, DOCX, DOC, XLSX, CSV or TXT is a 422 naming it; nothing is read."""
    response = upload(api, ("handbook.txt", HANDBOOK), ("movie.mp4", b"x"))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["files.1"])
    assert extractor.extracted == []


def test_a_file_over_20_mb_is_refused(api: Api) -> None:
    """Each file is at most 20 MB."""
    response = upload(api, ("big.txt", b"a" * (20 * 1024 * 1024 + 1)))

    assert (response.status_code, list(response.json()["errors"])) == (422, ["files.0"])


def test_a_title_is_required(api: Api) -> None:
    """`title` is required."""
    response = api.post(DOCUMENTS, files=files(("handbook.txt", HANDBOOK)))

    assert (response.status_code, "title" in response.json()["errors"]) == (422, True)


def test_another_accounts_document_entry_is_not_found(
    api: Api, make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """Another account's document entry is a 404."""
    theirs = upload(client_for(make_tenant("Other")), ("handbook.txt", HANDBOOK)).json()["data"]["knowledge_base"]

    assert api.get(f"{BASE}/{theirs['id']}").status_code == 404


def test_a_file_name_holding_nul_is_refused(api: Api) -> None:
    """A raw NUL in the part's file name (no database column can store it) is a 422, not a 500."""
    body = (
        b'--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nT\r\n'
        b'--b\r\nContent-Disposition: form-data; name="files"; filename="a\x00b.txt"\r\n\r\nx\r\n--b--\r\n'
    )

    response = api.post(DOCUMENTS, content=body, headers={"Content-Type": "multipart/form-data; boundary=b"})

    assert (response.status_code, list(response.json()["errors"])) == (422, ["files.0"])
