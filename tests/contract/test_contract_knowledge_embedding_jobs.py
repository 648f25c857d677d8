"""Embeddings as a job: a change of an entry's text queues the embedding of its chunks, run by the
worker, only when an embedder is configured; on every adapter."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engage_core.jobs.ports import JobQueue
from engage_core.jobs.runner import JobRunner
from engage_core.knowledge.embedding_jobs import EMBED_JOB
from engage_core.knowledge.entries import TextInput
from engage_core.knowledge.model import KnowledgeBasePatch
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, FakePasswordHasher
from engage_core.unit_of_work import UnitOfWorkFactory


class LengthEmbedder:
    """A vector from each text's length and vowels: enough to tell texts apart."""

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [[float(len(t)), float(sum(c in "aeiou" for c in t)), 1.0] for t in texts]


@pytest.fixture
def embedder() -> LengthEmbedder:
    return LengthEmbedder()


@pytest.fixture
def embedding_services(uow: UnitOfWorkFactory, clock: FakeClock, embedder: LengthEmbedder) -> Services:
    """Every use case with an embedder."""
    return Services.build(
        uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), hasher=FakePasswordHasher(), embedder=embedder
    )


def run_jobs(services: Services, queue: JobQueue, clock: FakeClock) -> None:
    runner = JobRunner(queue, services.job_handlers(), clock)
    while runner.run_once():
        pass


def test_a_new_text_entry_is_embedded_by_the_job(
    embedding_services: Services, job_queue: JobQueue, clock: FakeClock, account: int
) -> None:
    """The embedding job runs after the commit; then every chunk `has_embedding`."""
    entry = embedding_services.knowledge_entries.create_text(account, TextInput("Hours", "We open at nine."))

    run_jobs(embedding_services, job_queue, clock)

    chunks = embedding_services.knowledge_chunks.list(account, entry.id).chunks
    assert chunks and all(chunk.has_embedding for chunk in chunks)


def test_new_content_is_embedded_again(
    embedding_services: Services, job_queue: JobQueue, clock: FakeClock, account: int, embedder: LengthEmbedder
) -> None:
    """Changed text drops the old vectors and queues their replacement."""
    entry = embedding_services.knowledge_entries.create_text(account, TextInput("Hours", "We open at nine."))
    run_jobs(embedding_services, job_queue, clock)
    embedding_services.knowledge_entries.update(account, entry.id, KnowledgeBasePatch(content="We open at ten."))
    run_jobs(embedding_services, job_queue, clock)

    chunks = embedding_services.knowledge_chunks.list(account, entry.id).chunks
    assert embedder.calls == 2 and all(chunk.has_embedding for chunk in chunks)


def test_without_an_embedder_no_job_is_queued(
    services: Services, job_queue: JobQueue, clock: FakeClock, account: int
) -> None:
    """No embedder: nothing queued, no handler, and the chunks truthfully have no embedding."""
    entry = services.knowledge_entries.create_text(account, TextInput("Hours", "We open at nine."))

    assert EMBED_JOB not in services.job_handlers()
    assert job_queue.claim((EMBED_JOB,), clock.now(), 60.0, 10) == []
    assert not any(c.has_embedding for c in services.knowledge_chunks.list(account, entry.id).chunks)
