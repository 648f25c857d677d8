"""Knowledge-base entries of every type: text entries, and listing, reading, updating and deleting
any entry (SPEC 3, 4 Knowledge base).

A text entry is chunked (`chunking.chunk_text`) in the transaction that stores it, and again in the
one that changes its content, so its chunks are searchable as soon as the call returns. Every write
is one unit of work with its events (`knowledge_base.created`, `.updated`, `.deleted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.commerce.products import Product
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, pick
from engage_core.kernel.validation import ErrorCollector, one_of, optional_text, required_text
from engage_core.knowledge.catalog_chunks import rechunk_catalog
from engage_core.knowledge.chunking import HEADER_SEPARATOR, chunk_text
from engage_core.knowledge.documents import Document
from engage_core.knowledge.embedding_jobs import NO_EMBEDDINGS, EmbeddingQueue
from engage_core.knowledge.model import (
    BUSINESS_DESCRIPTION_MAX,
    CONTENT_MAX,
    DESCRIPTION_MAX,
    KB_STATUSES,
    KB_TYPES,
    TITLE_MAX,
    KnowledgeBaseDraft,
    KnowledgeBaseEntry,
    KnowledgeBaseFilter,
    KnowledgeBasePatch,
)
from engage_core.knowledge.search import ChunkPatch
from engage_core.knowledge.voice import VoiceNote
from engage_core.knowledge.websites import CRAWL_JOB, WEBSITE, Website, crawl_key
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

TEXT = "text"


@attrs.frozen
class TextInput:
    """Fields of `POST /knowledge-base`."""

    title: str
    content: str
    description: str | None = None
    business_description: str | None = None
    status: str = "active"


@attrs.frozen
class EntryDetail:
    """One entry with its parts by type (`GET /knowledge-base/{id}`): a text entry's `content`, a
    catalog's `products`, a document entry's `documents`, a voice entry's `voice_notes`, a website
    entry's `website` (its crawl); None where the type has no such part."""

    entry: KnowledgeBaseEntry
    content: str | None = None
    products: Sequence[Product] | None = None
    documents: Sequence[Document] | None = None
    voice_notes: Sequence[VoiceNote] | None = None
    website: Website | None = None


def validate_fields(
    kind: str,
    title: str,
    description: str | None,
    business_description: str | None,
    status: str,
    *,
    content: str | None = None,
) -> KnowledgeBaseDraft:
    """A new entry's shared fields checked together (every error at once); `content` is required
    for, and only kept on, a `text` entry."""
    errors = ErrorCollector()
    clean_title = errors.run(lambda: required_text("title", title, max_length=TITLE_MAX))
    clean_description = errors.run(lambda: optional_text("description", description, max_length=DESCRIPTION_MAX))
    business = errors.run(
        lambda: optional_text("business_description", business_description, max_length=BUSINESS_DESCRIPTION_MAX)
    )
    clean_status = errors.run(lambda: one_of("status", status, KB_STATUSES))
    text = errors.run(lambda: _content(content)) if kind == TEXT else None
    errors.raise_if_any()
    assert clean_title is not None and clean_status is not None
    return KnowledgeBaseDraft(clean_title, kind, clean_description, business, clean_status, text)


def _content(content: str | None) -> str:
    return required_text("content", content or "", max_length=CONTENT_MAX)


class KnowledgeEntryService:
    """Text entries, and the operations every entry type shares.

    Methods that name an entry raise :class:`.NotFound` when it is not in the account; invalid
    fields raise :class:`.ValidationFailed` and nothing is stored."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, embeddings: EmbeddingQueue = NO_EMBEDDINGS) -> None:
        self._uow = uow
        self._clock = clock
        self._embeddings = embeddings

    def create_text(self, account_id: int, data: TextInput) -> KnowledgeBaseEntry:
        """A new `text` entry, chunked for search in the same transaction; emits `knowledge_base.created`."""
        draft = validate_fields(
            TEXT, data.title, data.description, data.business_description, data.status, content=data.content
        )
        assert draft.content is not None
        chunks = chunk_text(draft.content, title=draft.title)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = uow.knowledge_base.add(draft, now)
            uow.knowledge_chunks.replace(entry.id, chunks, now)
            self._embeddings.changed(uow, entry.id, now)
            uow.emit(DomainEvent("knowledge_base.created", entry.event_payload(), now))
            uow.commit()
        return entry

    def list(self, account_id: int, filters: KnowledgeBaseFilter, page: PageRequest) -> Page[KnowledgeBaseEntry]:
        """One page of the account's entries, newest first, by `type` and `status` when given."""
        errors = ErrorCollector()
        if filters.type is not None:
            errors.run(lambda: one_of("type", filters.type or "", KB_TYPES))
        if filters.status is not None:
            errors.run(lambda: one_of("status", filters.status or "", KB_STATUSES))
        errors.raise_if_any()
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.knowledge_base.find(filters, page)

    def get(self, account_id: int, entry_id: int) -> EntryDetail:
        """The entry with its parts (`EntryDetail`)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            entry = entry_of(uow, entry_id)
            if entry.type == TEXT:
                return EntryDetail(entry, content=uow.knowledge_base.content(entry_id) or "")
            if entry.type == "product_catalog":
                return EntryDetail(entry, products=uow.products.for_catalog(entry_id))
            if entry.type == "document":
                return EntryDetail(entry, documents=uow.knowledge_documents.for_entry(entry_id))
            if entry.type == "voice":
                return EntryDetail(entry, voice_notes=uow.knowledge_voice_notes.for_entry(entry_id))
            if entry.type == WEBSITE:
                return EntryDetail(entry, website=uow.knowledge_websites.get(entry_id))
            return EntryDetail(entry)

    def type_of(self, account_id: int, entry_id: int) -> str:
        """The entry's `type` (:class:`.NotFound` for an unknown entry)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return entry_of(uow, entry_id).type

    def update(self, account_id: int, entry_id: int, patch: KnowledgeBasePatch) -> KnowledgeBaseEntry:
        """Change the given fields. `content` is for text entries only (422 on `content` otherwise);
        new content replaces the entry's chunks. Emits `knowledge_base.updated` when a field
        changed; a request that changes nothing stores and emits nothing."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = entry_of(uow, entry_id)
            if patch.content is not UNSET and entry.type != TEXT:
                raise ValidationFailed.on("content", "Only a text entry has content to change.")
            draft = validate_fields(
                entry.type,
                pick(patch.title, entry.title),
                pick(patch.description, entry.description),
                pick(patch.business_description, entry.business_description),
                pick(patch.status, entry.status),
                content=pick(patch.content, uow.knowledge_base.content(entry_id)),
            )
            content = draft.content if draft.content != uow.knowledge_base.content(entry_id) else None
            changed = attrs.evolve(
                entry,
                title=draft.title,
                description=draft.description,
                business_description=draft.business_description,
                status=draft.status,
            )
            if changed == entry and content is None:
                return entry
            changed = attrs.evolve(changed, updated_at=now)
            uow.knowledge_base.update(changed, content)
            if content is not None or changed.title != entry.title:
                # The title heads every chunk (`context_header`), so a new one re-chunks too.
                text = content if content is not None else uow.knowledge_base.content(entry_id)
                if text is not None:
                    uow.knowledge_chunks.replace(entry_id, chunk_text(text, title=changed.title), now)
                    self._embeddings.changed(uow, entry_id, now)
                elif changed.type == "product_catalog":
                    rechunk_catalog(uow, changed, now)
                    self._embeddings.changed(uow, entry_id, now)
                else:  # documents, voice notes, pages: their text is chunked as it was, under the new title
                    retitle_chunks(uow, entry_id, entry.title, changed.title, now)
            uow.emit(DomainEvent("knowledge_base.updated", changed.event_payload(), now))
            uow.commit()
        return changed

    def delete(self, account_id: int, entry_id: int) -> None:
        """Remove the entry with its chunks and parts, and cancel a website entry's crawl (a
        running one stops at its next page); emits `knowledge_base.deleted`."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = entry_of(uow, entry_id)
            if entry.type == WEBSITE:
                uow.jobs.cancel(CRAWL_JOB, crawl_key(entry_id), now)
            uow.knowledge_chunks.replace(entry_id, [], now)
            uow.knowledge_base.delete(entry_id)
            uow.emit(DomainEvent("knowledge_base.deleted", entry.deleted_payload(now), now))
            uow.commit()


def retitle_chunks(uow: WorkspaceUnitOfWork, entry_id: int, old: str, new: str, now: datetime) -> None:
    """Put `new` in place of the title `old` that heads the entry's chunks (`context_header`)."""
    for chunk in uow.knowledge_chunks.for_entry(entry_id):
        header = chunk.context_header
        if header == old or (header is not None and header.startswith(old + HEADER_SEPARATOR)):
            uow.knowledge_chunks.update(chunk.id, ChunkPatch(context_header=new + header[len(old) :]), now)


def entry_of(uow: WorkspaceUnitOfWork, entry_id: int) -> KnowledgeBaseEntry:
    """The account's entry `entry_id`, or :class:`.NotFound`."""
    entry = uow.knowledge_base.get(entry_id)
    if entry is None:
        raise NotFound("Knowledge base entry")
    return entry
