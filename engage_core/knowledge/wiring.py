"""The knowledge base's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.jobs.runner import Handler
from engage_core.knowledge.chunks import KnowledgeChunkService
from engage_core.knowledge.document_service import KnowledgeDocumentService
from engage_core.knowledge.embedding_jobs import EMBED_JOB, EmbeddingQueue, embed_job
from engage_core.knowledge.embeddings import KnowledgeSearch
from engage_core.knowledge.entries import KnowledgeEntryService
from engage_core.knowledge.service import KnowledgeBaseService
from engage_core.knowledge.voice_service import KnowledgeVoiceService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class KnowledgeServices:
    """The knowledge area's services: product catalogs, entries of every type, their chunks and search."""

    knowledge_base: KnowledgeBaseService
    knowledge_entries: KnowledgeEntryService
    knowledge_chunks: KnowledgeChunkService
    knowledge_documents: KnowledgeDocumentService
    knowledge_voice: KnowledgeVoiceService
    knowledge_search: KnowledgeSearch
    _embeddings: EmbeddingQueue

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        embeddings = self._embeddings = EmbeddingQueue(deps.embedder is not None)
        self.knowledge_search = KnowledgeSearch(deps.uow, deps.clock, deps.embedder)
        self.knowledge_base = KnowledgeBaseService(deps.uow, deps.clock, embeddings)
        self.knowledge_entries = KnowledgeEntryService(deps.uow, deps.clock, embeddings)
        self.knowledge_chunks = KnowledgeChunkService(deps.uow, deps.clock, self.knowledge_search, embeddings)
        self.knowledge_documents = KnowledgeDocumentService(deps.uow, deps.clock, deps.extractor, embeddings)
        self.knowledge_voice = KnowledgeVoiceService(deps.uow, deps.clock, deps.transcriber, deps.prober, embeddings)

    def job_handlers(self) -> dict[str, Handler]:
        """The embedding job's handler, by kind (none without an embedder: nothing is then queued)."""
        return {EMBED_JOB: embed_job(self.knowledge_search)} if self._embeddings.enabled else {}
