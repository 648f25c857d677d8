"""In-memory fakes of the knowledge base's ports."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.knowledge.documents import Document, DocumentDraft
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry, KnowledgeBaseFilter
from engage_core.knowledge.voice import VoiceNote, VoiceNoteDraft


@attrs.define
class KnowledgeTables(Tables):
    """The knowledge area's rows, by table."""

    knowledge_base: dict[int, tuple[int, KnowledgeBaseEntry]] = attrs.Factory(dict)
    knowledge_base_content: dict[int, str] = attrs.Factory(dict)
    knowledge_base_documents: dict[int, tuple[int, Document]] = attrs.Factory(dict)
    knowledge_base_voice_notes: dict[int, tuple[int, VoiceNote]] = attrs.Factory(dict)

    def forget(self, kind: str, ident: int) -> None:
        """A deleted entry takes its documents and voice notes with it (SQL: ON DELETE CASCADE)."""
        if kind == "knowledge_base":
            for table in (self.knowledge_base_documents, self.knowledge_base_voice_notes):
                for key in [k for k, (_, row) in table.items() if row.knowledge_base_id == ident]:
                    del table[key]


class _Repo(Repo):
    @property
    def _t(self) -> KnowledgeTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(KnowledgeTables)


class InMemoryKnowledgeBaseRepository(_Repo):
    """The in-memory :class:`.KnowledgeBaseRepository`."""

    def add(self, draft: KnowledgeBaseDraft, now: datetime) -> KnowledgeBaseEntry:
        """In memory, as :meth:`.KnowledgeBaseRepository.add`."""
        entry = KnowledgeBaseEntry(
            id=self._store.next_id(),
            title=draft.title,
            type=draft.type,
            description=draft.description,
            business_description=draft.business_description,
            status=draft.status,
            embedding_updated_at=None,
            created_at=now,
            updated_at=now,
        )
        self._t.knowledge_base[entry.id] = (self._account, entry)
        if draft.content is not None:
            self._t.knowledge_base_content[entry.id] = draft.content
        return entry

    def get(self, entry_id: int) -> KnowledgeBaseEntry | None:
        """In memory, as :meth:`.KnowledgeBaseRepository.get`."""
        row = self._t.knowledge_base.get(entry_id)
        return None if row is None or row[0] != self._account else row[1]

    def find(self, filters: KnowledgeBaseFilter, page: PageRequest) -> Page[KnowledgeBaseEntry]:
        """In memory, as :meth:`.KnowledgeBaseRepository.find`."""
        found = sorted(
            (e for account, e in self._t.knowledge_base.values() if account == self._account and filters.matches(e)),
            key=lambda e: (e.created_at, e.id),
            reverse=True,
        )
        return paginate(found, page)

    def content(self, entry_id: int) -> str | None:
        """In memory, as :meth:`.KnowledgeBaseRepository.content`."""
        return self._t.knowledge_base_content.get(entry_id) if self.get(entry_id) is not None else None

    def update(self, entry: KnowledgeBaseEntry, content: str | None = None) -> None:
        """In memory, as :meth:`.KnowledgeBaseRepository.update`."""
        if self.get(entry.id) is None:
            return
        self._t.knowledge_base[entry.id] = (self._account, entry)
        if content is not None:
            self._t.knowledge_base_content[entry.id] = content

    def delete(self, entry_id: int) -> bool:
        """In memory, as :meth:`.KnowledgeBaseRepository.delete`."""
        if self.get(entry_id) is None:
            return False
        del self._t.knowledge_base[entry_id]
        self._t.knowledge_base_content.pop(entry_id, None)
        self._state.forget("knowledge_base", entry_id)  # its chunks, products, documents, voice notes
        return True


class InMemoryDocumentRepository(_Repo):
    """The in-memory :class:`.DocumentRepository`."""

    def add_many(self, entry_id: int, drafts: Sequence[DocumentDraft], now: datetime) -> list[Document]:
        """In memory, as :meth:`.DocumentRepository.add_many`."""
        stored = [
            Document(
                id=self._store.next_id(),
                knowledge_base_id=entry_id,
                original_name=draft.original_name,
                file_type=draft.file_type,
                processing_status=draft.processing_status,
                extracted_content=draft.extracted_content,
                processing_error=draft.processing_error,
                created_at=now,
                updated_at=now,
            )
            for draft in drafts
        ]
        for document in stored:
            self._t.knowledge_base_documents[document.id] = (self._account, document)
        return stored

    def for_entry(self, entry_id: int) -> list[Document]:
        """In memory, as :meth:`.DocumentRepository.for_entry`."""
        return sorted(
            (
                d
                for account, d in self._t.knowledge_base_documents.values()
                if account == self._account and d.knowledge_base_id == entry_id
            ),
            key=lambda d: d.id,
        )


class InMemoryVoiceNoteRepository(_Repo):
    """The in-memory :class:`.VoiceNoteRepository`."""

    def add(self, entry_id: int, draft: VoiceNoteDraft, now: datetime) -> VoiceNote:
        """In memory, as :meth:`.VoiceNoteRepository.add`."""
        note = VoiceNote(
            id=self._store.next_id(),
            knowledge_base_id=entry_id,
            original_name=draft.original_name,
            audio_format=draft.audio_format,
            duration_seconds=draft.duration_seconds,
            language=draft.language,
            transcription_status=draft.transcription_status,
            transcription=draft.transcription,
            transcription_error=draft.transcription_error,
            created_at=now,
            updated_at=now,
        )
        self._t.knowledge_base_voice_notes[note.id] = (self._account, note)
        return note

    def for_entry(self, entry_id: int) -> list[VoiceNote]:
        """In memory, as :meth:`.VoiceNoteRepository.for_entry`."""
        return sorted(
            (
                n
                for account, n in self._t.knowledge_base_voice_notes.values()
                if account == self._account and n.knowledge_base_id == entry_id
            ),
            key=lambda n: n.id,
        )


AREA = FakeArea(
    KnowledgeTables,
    workspace={
        "knowledge_base": InMemoryKnowledgeBaseRepository,
        "knowledge_documents": InMemoryDocumentRepository,
        "knowledge_voice_notes": InMemoryVoiceNoteRepository,
    },
)
