"""KnowledgeSearch: full text alone without an embedder, blended with cosine similarity with one."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from engage_core.kernel.errors import Unavailable
from engage_core.knowledge.chunking import chunk_records
from engage_core.knowledge.embeddings import KnowledgeSearch, blend, cosine
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.knowledge.search import SearchHit
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

from ..factories import START


class LetterEmbedder:
    """A toy model: a text's vector counts the letters "c", "t" and "z"; `down` makes it fail."""

    def __init__(self) -> None:
        self.down = False
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        if self.down:
            raise Unavailable("down")
        return [[float(t.count("c")), float(t.count("t")), float(t.count("z"))] for t in texts]


@pytest.fixture
def uow() -> InMemoryUnitOfWorkFactory:
    return InMemoryUnitOfWorkFactory()


@pytest.fixture
def account(uow: InMemoryUnitOfWorkFactory) -> int:
    from engage_core.services import Services

    return Services.build(uow, FakeClock(START)).accounts.create("Acme").account.id


def _entry(uow: InMemoryUnitOfWorkFactory, account: int, *records: str) -> int:
    with uow.workspace(account) as unit:
        entry = unit.knowledge_base.add(KnowledgeBaseDraft("Menu", "text"), START)
        unit.knowledge_chunks.replace(entry.id, chunk_records(records), START)
        unit.commit()
    return entry.id


def test_cosine_of_parallel_vectors_is_one() -> None:
    """Vectors pointing the same way have similarity 1."""
    assert cosine([1.0, 2.0], [2.0, 4.0]) == pytest.approx(1.0)


def test_cosine_of_vectors_of_other_lengths_is_zero() -> None:
    """Vectors of another model (another length) are not comparable."""
    assert cosine([1.0, 2.0], [1.0, 2.0, 3.0]) == 0.0


def test_blend_moves_a_similar_passage_up() -> None:
    """With equal text scores, the passage closer to the query comes first."""
    hits = [SearchHit(i, 1, "T", "text", "x", None, 0.5, "x") for i in (1, 2)]

    blended = blend(hits, {1: [0.0, 1.0], 2: [1.0, 0.0]}, [1.0, 0.0])

    assert [(h.chunk_id, h.score) for h in blended] == [(2, 0.75), (1, 0.25)]


def test_without_an_embedder_search_is_full_text(uow: InMemoryUnitOfWorkFactory, account: int) -> None:
    """No embedder: the retriever's hits as they are, and nothing is embedded."""
    entry = _entry(uow, account, "hot tea", "iced tea")
    search = KnowledgeSearch(uow, FakeClock(START))

    assert search.embed_entry(account, entry) == 0
    assert [h.content for h in search.search(account, "tea")] == ["hot tea", "iced tea"]


def test_embed_entry_stores_a_vector_per_chunk(uow: InMemoryUnitOfWorkFactory, account: int) -> None:
    """Every chunk without an embedding gets one, once."""
    entry = _entry(uow, account, "hot tea", "iced tea")
    embedder = LetterEmbedder()
    search = KnowledgeSearch(uow, FakeClock(START), embedder)

    assert (search.embed_entry(account, entry), search.embed_entry(account, entry)) == (2, 0)
    with uow.workspace(account, readonly=True) as unit:
        assert all(c.has_embedding for c in unit.knowledge_chunks.for_entry(entry))


def test_search_blends_in_similarity(uow: InMemoryUnitOfWorkFactory, account: int) -> None:
    """Between two passages matching the same words, the one whose vector is closer wins."""
    entry = _entry(uow, account, "tea zzz", "tea ccc")
    search = KnowledgeSearch(uow, FakeClock(START), LetterEmbedder())
    search.embed_entry(account, entry)

    full_text = KnowledgeSearch(uow, FakeClock(START)).search(account, "tea cc")
    blended = search.search(account, "tea cc")

    assert ([h.content for h in full_text], [h.content for h in blended]) == (
        ["tea zzz", "tea ccc"],
        ["tea ccc", "tea zzz"],
    )


def test_a_failing_embedder_leaves_full_text(uow: InMemoryUnitOfWorkFactory, account: int) -> None:
    """When the query cannot be embedded, search still answers with full text."""
    _entry(uow, account, "hot tea")
    embedder = LetterEmbedder()
    embedder.down = True

    hits = KnowledgeSearch(uow, FakeClock(START), embedder).search(account, "tea")

    assert [h.content for h in hits] == ["hot tea"]
