"""Passages: the knowledge-base chunks an answer is grounded in, as the prompt labels them."""

from __future__ import annotations

import attrs

from engage_core.knowledge.chunks import RELEVANT_SCORE
from engage_core.knowledge.search import SearchHit

PASSAGE_FLOOR = RELEVANT_SCORE
"""A hit scoring below this merely shares a word with the question (`engage_core.knowledge.chunks`):
it is not given to the model, and a question whose hits all score below it has nothing relevant."""


@attrs.frozen
class Passage:
    """A retrieved chunk: its id (what citations name), its entry's title, its context header, its
    text and its search score (0 to 1, `engage_core.knowledge.search`)."""

    chunk_id: int
    title: str
    context_header: str | None
    content: str
    score: float

    @classmethod
    def of(cls, hit: SearchHit) -> Passage:
        """The passage of a search hit."""
        return cls(hit.chunk_id, hit.title, hit.context_header, hit.content, hit.score)


def relevant(hits: list[SearchHit]) -> tuple[Passage, ...]:
    """The hits reaching `PASSAGE_FLOOR`, as passages, best first."""
    return tuple(Passage.of(hit) for hit in hits if hit.score >= PASSAGE_FLOOR)
