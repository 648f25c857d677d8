"""Document processing as a state machine over the fakes and the real extractor: uploads of readable,
mismatched, corrupt and empty files, crashes while reading, re-uploads, renames and deletions in any
order keep every document in one final state with one matching event, chunks exactly where text was
read, and nothing behind a deleted entry."""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

import pytest
from document_files import PNG_HEADER, pdf_with_pages
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule
from pypdf import PdfReader, PdfWriter

from engage_connectors.documents import FileExtractor
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.knowledge.documents import (
    COMPLETED,
    FAILED,
    PROCESSING_STATES,
    Document,
    DocumentInput,
    DocumentUpload,
    can_move,
)
from engage_core.knowledge.extraction import ExtractedDocument
from engage_core.knowledge.model import KnowledgeBasePatch
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_testing.machines.base import START

PROCESSED = "knowledge_base.processing."


def encrypted_pdf() -> bytes:
    """A one-page PDF with text, locked with a user password."""
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf_with_pages([["Secret prices."]]))))
    writer.encrypt("password", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# name suffix, bytes, and the status the real extractor gives them
FILES: dict[str, tuple[str, bytes, str]] = {
    "text": (".txt", b"Returns within 30 days.\n\nRefunds take five days.", COMPLETED),
    "latin1": (".txt", "Café crème, prix spécial.".encode("latin-1"), COMPLETED),
    "csv": (".csv", b"name,price\nTea,3\nCoffee,4\n", COMPLETED),
    "pdf": (".pdf", pdf_with_pages([["Shipping is free over 50 euros."]]), COMPLETED),
    "png_as_pdf": (".pdf", PNG_HEADER + b"\x00" * 64, FAILED),
    "text_as_docx": (".docx", b"plain words, not a zip", FAILED),
    "pdf_without_text": (".pdf", pdf_with_pages([[]]), FAILED),
    "truncated_pdf": (".pdf", pdf_with_pages([["Cut short."]])[:60], FAILED),
    "encrypted_pdf": (".pdf", encrypted_pdf(), FAILED),
    "empty": (".txt", b"", FAILED),
    "blank": (".txt", b" \n\n\t\n", FAILED),
}


class Crash(Exception):
    """The process died while reading a file (not an extraction failure)."""


class CrashingExtractor:
    """The real extractor, made to crash on the `crash_at`-th file of the next request."""

    def __init__(self) -> None:
        self.inner = FileExtractor()
        self.crash_at: int | None = None
        self.read = 0

    def extract(self, name: str, path: Path) -> ExtractedDocument:
        if self.crash_at is not None and self.read == self.crash_at:
            raise Crash(name)
        self.read += 1
        return self.inner.extract(name, path)


class DocumentMachine(RuleBasedStateMachine):
    entries = Bundle("entries")

    @initialize()
    def start(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="engage-docmachine-"))
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.extractor = CrashingExtractor()
        self.services = Services.build(self.uow, self.clock, extractor=self.extractor)
        self.account = self.services.accounts.create("Acme").account.id
        self.live: dict[int, str] = {}  # entry id -> title
        self.deleted: set[int] = set()
        self.expected: dict[int, str] = {}  # document id -> status it must have
        self.seen: dict[int, str] = {}  # document id -> status last observed
        self.uploads = 0

    def teardown(self) -> None:
        if hasattr(self, "dir"):
            shutil.rmtree(self.dir, ignore_errors=True)

    def _uploads(self, kinds: list[str]) -> list[DocumentUpload]:
        made = []
        for kind in kinds:
            self.uploads += 1
            suffix, data, _ = FILES[kind]
            path = self.dir / f"upload-{self.uploads}"
            path.write_bytes(data)
            made.append(DocumentUpload(f"{kind}-{self.uploads}{suffix}", path))
        return made

    def _documents(self, entry_id: int) -> list[Document]:
        with self.uow.workspace(self.account, readonly=True) as uow:
            return uow.knowledge_documents.for_entry(entry_id)

    def _events(self) -> list[DomainEvent]:
        return self.uow.store.events(self.account)

    @rule(target=entries, kinds=st.lists(st.sampled_from(sorted(FILES)), min_size=1, max_size=3))
    def upload(self, kinds: list[str]) -> int:
        self.clock.advance(seconds=1)
        result = self.services.knowledge_documents.create(
            self.account, DocumentInput(title=f"Docs {self.uploads}", files=self._uploads(kinds))
        )
        assert [d.original_name.split("-")[0] for d in result.documents] == kinds
        for kind, document in zip(kinds, result.documents, strict=True):
            self.expected[document.id] = FILES[kind][2]
        self.live[result.knowledge_base.id] = result.knowledge_base.title
        return result.knowledge_base.id

    @rule(kinds=st.lists(st.sampled_from(sorted(FILES)), min_size=1, max_size=3), data=st.data())
    def crash_while_reading_then_retry(self, kinds: list[str], data: st.DataObject) -> None:
        uploads = self._uploads(kinds)
        before = (len(self._events()), len(self.live))
        self.extractor.crash_at, self.extractor.read = data.draw(st.integers(0, len(kinds) - 1)), 0
        try:
            with pytest.raises(Crash):
                self.services.knowledge_documents.create(self.account, DocumentInput(title="Crashed", files=uploads))
        finally:
            self.extractor.crash_at = None
        assert (len(self._events()), len(self.live)) == before
        result = self.services.knowledge_documents.create(self.account, DocumentInput(title="Retried", files=uploads))
        for kind, document in zip(kinds, result.documents, strict=True):
            self.expected[document.id] = FILES[kind][2]
        self.live[result.knowledge_base.id] = result.knowledge_base.title

    @rule(name=st.sampled_from(["notes.md", "noext", "x" * 300 + ".txt"]))
    def refused_upload_stores_nothing(self, name: str) -> None:
        path = self.dir / "refused"
        path.write_bytes(b"words")
        before = len(self._events())
        with pytest.raises(ValidationFailed):
            self.services.knowledge_documents.create(
                self.account, DocumentInput(title="Refused", files=[DocumentUpload(name, path)])
            )
        assert len(self._events()) == before

    @rule(entry=entries, title=st.sampled_from(["Handbook", "  Policies ", "Docs 1", "Docs 10"]))
    def rename(self, entry: int, title: str) -> None:
        if entry in self.deleted:
            with pytest.raises(NotFound):
                self.services.knowledge_entries.update(self.account, entry, KnowledgeBasePatch(title=title))
            return
        self.clock.advance(seconds=1)
        renamed = self.services.knowledge_entries.update(self.account, entry, KnowledgeBasePatch(title=title))
        assert renamed.title == title.strip()
        self.live[entry] = renamed.title

    @rule(entry=entries, status=st.sampled_from(["active", "inactive"]))
    def change_status(self, entry: int, status: str) -> None:
        if entry not in self.deleted:
            self.services.knowledge_entries.update(self.account, entry, KnowledgeBasePatch(status=status))

    @rule(entry=entries)
    def delete(self, entry: int) -> None:
        if entry in self.deleted:
            with pytest.raises(NotFound):
                self.services.knowledge_entries.delete(self.account, entry)
            return
        self.services.knowledge_entries.delete(self.account, entry)
        del self.live[entry]
        self.deleted.add(entry)

    @invariant()
    def statuses_are_final_and_never_move_back(self) -> None:
        for entry in getattr(self, "live", {}):
            for document in self._documents(entry):
                status = document.processing_status
                assert status in PROCESSING_STATES and status in (COMPLETED, FAILED)
                assert status == self.expected[document.id], (document.original_name, document.processing_error)
                last = self.seen.setdefault(document.id, status)
                assert status == last or can_move(last, status)
                self.seen[document.id] = status

    @invariant()
    def outcomes_are_readable(self) -> None:
        for entry in getattr(self, "live", {}):
            for document in self._documents(entry):
                if document.processing_status == FAILED:
                    assert document.processing_error and document.processing_error.strip()
                    assert document.extracted_content is None
                else:
                    assert document.processing_error is None
                    assert document.extracted_content and document.extracted_content.strip()

    @invariant()
    def chunks_exist_exactly_where_text_was_read(self) -> None:
        for entry, title in getattr(self, "live", {}).items():
            with self.uow.workspace(self.account, readonly=True) as uow:
                chunks = uow.knowledge_chunks.for_entry(entry)
            read = [d.extracted_content or "" for d in self._documents(entry) if d.processing_status == COMPLETED]
            assert bool(chunks) == bool(read)
            assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
            words = set(" ".join(read).split())
            for chunk in chunks:
                assert chunk.total_chunks == len(chunks)
                assert set(chunk.content.split()) <= words
                assert chunk.context_header is not None and chunk.context_header.startswith(title)
            status = self.services.knowledge_documents.document_status(self.account, entry)
            assert status.completed and status.pending_count == 0
            assert status.failed_count == status.total - len(read)

    @invariant()
    def every_document_has_exactly_one_matching_event(self) -> None:
        if not hasattr(self, "live"):
            return
        events = [e for e in self._events() if e.name.startswith(PROCESSED)]
        assert len(events) == len(self.expected)
        by_item = {e.payload["item_id"]: e for e in events}
        assert by_item.keys() == self.expected.keys()
        for entry in self.live:
            for document in self._documents(entry):
                event = by_item[document.id]
                assert event.name == PROCESSED + document.processing_status
                assert event.payload["status"] == document.processing_status
                assert event.payload["error"] == document.processing_error
                assert event.payload["knowledge_base_id"] == entry
        names = [e.name for e in self._events()]
        assert names.count("knowledge_base.created") == len(self.live) + len(self.deleted)
        assert names.count("knowledge_base.deleted") == len(self.deleted)

    @invariant()
    def deleted_entries_leave_nothing(self) -> None:
        for entry in getattr(self, "deleted", set()):
            with self.uow.workspace(self.account, readonly=True) as uow:
                assert uow.knowledge_chunks.for_entry(entry) == []
                assert uow.knowledge_documents.for_entry(entry) == []
            with pytest.raises(NotFound):
                self.services.knowledge_documents.document_status(self.account, entry)

    @invariant()
    def processing_leaves_no_files_of_its_own(self) -> None:
        if hasattr(self, "dir"):
            assert all(p.name.startswith(("upload-", "refused")) for p in self.dir.iterdir())


DocumentMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=15, deadline=None)
test_document_machine = DocumentMachine.TestCase
test_document_machine.__doc__ = "Uploads, crashes, renames and deletions keep documents final, evented once, chunked."
