"""Documents of document entries on every adapter: stored in order with their outcome, scoped to
the account, removed with their entry; and the document service over them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support import NOW

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.knowledge.document_service import KnowledgeDocumentService
from engage_core.knowledge.documents import DocumentDraft, DocumentInput, DocumentUpload
from engage_core.knowledge.extraction_fakes import FakeDocumentExtractor
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


@pytest.fixture
def documents(uow: UnitOfWorkFactory, clock: FakeClock) -> KnowledgeDocumentService:
    return KnowledgeDocumentService(uow, clock, FakeDocumentExtractor(failures={"bad.pdf": "Unreadable."}))


def _entry(uow: UnitOfWorkFactory, account: int, kind: str = "document") -> int:
    with uow.workspace(account) as unit:
        entry = unit.knowledge_base.add(KnowledgeBaseDraft("Files", kind), NOW)
        unit.commit()
    return entry.id


def test_documents_read_back_in_upload_order(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of each stored document survives the round trip, in order."""
    entry = _entry(uow, account)
    drafts = [
        DocumentDraft("a.pdf", "pdf", "completed", "Alpha text", None),
        DocumentDraft("b.doc", "doc", "failed", None, "Install LibreOffice."),
    ]
    with uow.workspace(account) as unit:
        stored = unit.knowledge_documents.add_many(entry, drafts, NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        read = unit.knowledge_documents.for_entry(entry)
    assert read == stored
    assert [
        (d.original_name, d.file_type, d.processing_status, d.extracted_content, d.processing_error) for d in read
    ] == [("a.pdf", "pdf", "completed", "Alpha text", None), ("b.doc", "doc", "failed", None, "Install LibreOffice.")]
    assert {(d.knowledge_base_id, d.created_at) for d in read} == {(entry, NOW)}


def test_another_accounts_documents_are_not_seen(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """The documents of another account's entry read as none."""
    entry = _entry(uow, other)
    with uow.workspace(other) as unit:
        unit.knowledge_documents.add_many(entry, [DocumentDraft("a.txt", "txt", "completed", "x")], NOW)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_documents.for_entry(entry) == []


def test_documents_go_with_their_entry(uow: UnitOfWorkFactory, account: int) -> None:
    """Deleting the entry removes its documents."""
    entry = _entry(uow, account)
    with uow.workspace(account) as unit:
        unit.knowledge_documents.add_many(entry, [DocumentDraft("a.txt", "txt", "completed", "x")], NOW)
        unit.knowledge_base.delete(entry)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_documents.for_entry(entry) == []


def test_the_service_stores_each_outcome_and_searchable_chunks(
    documents: KnowledgeDocumentService, uow: UnitOfWorkFactory, account: int, tmp_path: Path
) -> None:
    """A read file is `completed` and searchable, an unreadable one `failed`; the status counts them."""
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.write_text("Refunds take five working days.")
    bad.write_bytes(b"%PDF")

    created = documents.create(
        account, DocumentInput("Policies", [DocumentUpload("refunds.txt", good), DocumentUpload("bad.pdf", bad)])
    )

    status = documents.document_status(account, created.knowledge_base.id)
    assert [d.processing_status for d in status.documents] == ["completed", "failed"]
    assert (status.total, status.failed_count, status.pending_count, status.completed) == (2, 1, 0, True)
    with uow.workspace(account, readonly=True) as unit:
        hits = unit.knowledge_search.search("refunds")
    assert [h.knowledge_base_id for h in hits] == [created.knowledge_base.id]


def test_the_status_of_another_type_of_entry_is_refused(
    documents: KnowledgeDocumentService, uow: UnitOfWorkFactory, account: int, other: int
) -> None:
    """The document status is for document entries: another type is a 422, another account's a 404."""
    text_entry = _entry(uow, account, "text")
    theirs = _entry(uow, other)

    with pytest.raises(ValidationFailed):
        documents.document_status(account, text_entry)
    with pytest.raises(NotFound):
        documents.document_status(account, theirs)
