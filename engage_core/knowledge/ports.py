"""What the knowledge base needs from storage."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry, KnowledgeBaseFilter


class KnowledgeBaseRepository(Protocol):
    """Knowledge-base entries of one account: the fields every type shares, and a text entry's
    content. Each other type keeps its parts in tables of its own beside the entry."""

    def add(self, draft: KnowledgeBaseDraft, now: datetime) -> KnowledgeBaseEntry:
        """Store a new entry (`embedding_updated_at` None, `created_at` = `updated_at` = `now`)."""

    def get(self, entry_id: int) -> KnowledgeBaseEntry | None:
        """The entry `entry_id`, or None."""

    def find(self, filters: KnowledgeBaseFilter, page: PageRequest) -> Page[KnowledgeBaseEntry]:
        """One page of the entries `filters` matches, newest first (`created_at`, then `id`, descending)."""

    def content(self, entry_id: int) -> str | None:
        """The text of a `text` entry (None for another type or an unknown entry)."""

    def update(self, entry: KnowledgeBaseEntry, content: str | None = None) -> None:
        """Store the entry's shared fields as `entry` has them and, when `content` is given, its text."""

    def delete(self, entry_id: int) -> bool:
        """Remove the entry and everything that belongs to it (chunks, products, documents, voice
        notes); False when there was none."""


class KnowledgeRepositories(Protocol):
    """The knowledge base's repositories, as a workspace unit of work hands them out."""

    @property
    def knowledge_base(self) -> KnowledgeBaseRepository:
        """The knowledge-base entries."""
