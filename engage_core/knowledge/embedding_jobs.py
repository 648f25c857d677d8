"""Embedding an entry's chunks after their text changed: a job, when an embedder is configured.

Every service that writes chunk text tells its `EmbeddingQueue` (`changed`), in the unit of work of
the change, so the job commits with it. The job embeds the chunks that still lack a vector
(`KnowledgeSearch.embed_entry`). It has no key on purpose: a keyed job still running would take the
place of the next change's (`JobRepository.enqueue` returns the unfinished one) and miss its new
chunks, while a second run only embeds what is still missing. Without an embedder nothing is queued.
"""

from __future__ import annotations

from datetime import datetime

from engage_core.jobs.model import JobRequest
from engage_core.jobs.runner import Handler, JobContext
from engage_core.kernel.errors import NotFound
from engage_core.knowledge.embeddings import KnowledgeSearch
from engage_core.unit_of_work import WorkspaceUnitOfWork

EMBED_JOB = "knowledge_base.embed"


class EmbeddingQueue:
    """Queues `EMBED_JOB` for an entry whose chunk text changed, when `enabled` (an embedder is set)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def changed(self, uow: WorkspaceUnitOfWork, entry_id: int, now: datetime) -> None:
        """Queue the embedding of the entry's chunks, in `uow`'s transaction (nothing without an embedder)."""
        if self.enabled:
            uow.jobs.enqueue(JobRequest(EMBED_JOB, {"knowledge_base_id": entry_id}), now)


NO_EMBEDDINGS = EmbeddingQueue(False)
"""The queue of services built without an embedder: it queues nothing."""


def embed_job(search: KnowledgeSearch) -> Handler:
    """The handler of `EMBED_JOB`: embed the entry's chunks that lack a vector (an entry deleted
    meanwhile has nothing left to embed)."""

    def run(context: JobContext) -> None:
        try:
            search.embed_entry(context.account_id, int(str(context.payload["knowledge_base_id"])))
        except NotFound:
            return

    return run
