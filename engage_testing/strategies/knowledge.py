"""Knowledge-base text entries (SPEC 2 Knowledge base; SPEC 4 Knowledge base)."""

from __future__ import annotations

from hypothesis import strategies as st

from engage_core.knowledge.entries import TextInput
from engage_core.knowledge.model import KB_STATUSES, TITLE_MAX

from ._text import blanks, broken, field, optional_texts, texts, too_long


def knowledge_entries(*, invalid: bool = False) -> st.SearchStrategy[TextInput]:
    """`POST /knowledge-base` text entries; `invalid=True` draws a blank or long title, blank
    content or an unknown status."""
    valid = st.builds(
        TextInput,
        title=texts(TITLE_MAX),
        content=texts(5000, min_words=1, max_words=40),
        description=optional_texts(1000),
        business_description=optional_texts(1000),
        status=st.sampled_from(KB_STATUSES),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("title", blanks() | too_long(TITLE_MAX)),
        field("content", blanks()),
        field("status", st.sampled_from(["draft", "ACTIVE"])),
    )
