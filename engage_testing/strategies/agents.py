"""AI agent settings (SPEC 2 AI agent; SPEC 4 AI agents)."""

from __future__ import annotations

from hypothesis import strategies as st

from engage_core.agents.memories import FACT_MAX
from engage_core.agents.model import (
    GUIDELINE_KEY_MAX,
    MAX_REPLY_CHARS_RANGE,
    NAME_MAX,
    PROMPT_MAX,
    SYSTEM_PROMPT_MAX,
    AgentInput,
)

from ._text import blanks, broken, field, optional_texts, texts, too_long

guidelines = st.none() | st.fixed_dictionaries(
    {},
    optional={
        "max_reply_chars": st.integers(*MAX_REPLY_CHARS_RANGE),
        "refused_topics": st.lists(texts(100), max_size=5),
        "tone": texts(100),
    },
)
"""`response_guidelines`: the known keys (`max_reply_chars`, `refused_topics`) and a free one."""


def agent_settings(*, invalid: bool = False) -> st.SearchStrategy[AgentInput]:
    """`POST /ai-agents` bodies (not the default agent: making one the default is a move of its
    own). `invalid=True` draws a blank or long name or prompt, guidelines out of range or not an
    object, or a flag that is not a boolean."""
    valid = st.builds(
        AgentInput,
        name=texts(NAME_MAX),
        system_prompt=texts(SYSTEM_PROMPT_MAX, max_words=20),
        instruction_prompt=optional_texts(PROMPT_MAX),
        personality_prompt=optional_texts(PROMPT_MAX),
        response_guidelines=guidelines,
        is_active=st.booleans(),
    )
    if not invalid:
        return valid
    low, high = MAX_REPLY_CHARS_RANGE
    return broken(
        valid,
        field("name", blanks() | too_long(NAME_MAX)),
        field("system_prompt", blanks() | too_long(SYSTEM_PROMPT_MAX)),
        field("instruction_prompt", too_long(PROMPT_MAX)),
        field("response_guidelines", st.sampled_from([{"max_reply_chars": low - 1}, {"max_reply_chars": high + 1}])),
        field("response_guidelines", st.just({"x" * (GUIDELINE_KEY_MAX + 1): "y"})),
        field("response_guidelines", st.just(["not", "an", "object"])),
        field("is_active", st.just("yes")),
        st.just({"is_default": True, "is_active": False}),
    )


def memory_facts(*, invalid: bool = False) -> st.SearchStrategy[str]:
    """`POST /contacts/{id}/memories` facts (one line; longer text is cut to `FACT_MAX`, not
    refused); `invalid=True` draws blank text."""
    if not invalid:
        return texts(FACT_MAX * 2, max_words=30)
    return blanks()
