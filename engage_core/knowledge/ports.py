"""What the knowledge base needs from storage."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry


class KnowledgeBaseRepository(Protocol):
    """Knowledge-base entries of one account: the fields every type shares. Only what product
    catalogs need so far; each later type keeps its parts in tables of its own beside the entry."""

    def add(self, draft: KnowledgeBaseDraft, now: datetime) -> KnowledgeBaseEntry:
        """Store a new entry (`embedding_updated_at` None, `created_at` = `updated_at` = `now`)."""

    def get(self, entry_id: int) -> KnowledgeBaseEntry | None:
        """The entry `entry_id`, or None."""


class KnowledgeRepositories(Protocol):
    """The knowledge base's repositories, as a workspace unit of work hands them out."""

    @property
    def knowledge_base(self) -> KnowledgeBaseRepository:
        """The knowledge-base entries."""
