"""The knowledge base's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.knowledge.service import KnowledgeBaseService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class KnowledgeServices:
    """The knowledge area's service: the knowledge base."""

    knowledge_base: KnowledgeBaseService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.knowledge_base = KnowledgeBaseService(deps.uow, deps.clock)
