"""In-memory fakes of the knowledge base's ports."""

from __future__ import annotations

from datetime import datetime

import attrs

from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry


@attrs.define
class KnowledgeTables(Tables):
    """The knowledge area's rows, by table."""

    knowledge_base: dict[int, tuple[int, KnowledgeBaseEntry]] = attrs.Factory(dict)


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
        return entry

    def get(self, entry_id: int) -> KnowledgeBaseEntry | None:
        """In memory, as :meth:`.KnowledgeBaseRepository.get`."""
        row = self._t.knowledge_base.get(entry_id)
        return None if row is None or row[0] != self._account else row[1]


AREA = FakeArea(
    KnowledgeTables,
    workspace={
        "knowledge_base": InMemoryKnowledgeBaseRepository,
    },
)
