"""Text building blocks shared by the input strategies: trimmed, non-blank text of bounded length,
blank text, and text one character over a limit."""

from __future__ import annotations

from typing import Any, TypeVar, cast

import attrs
from hypothesis import strategies as st

T = TypeVar("T")

# Letters, digits, punctuation and symbols of any script: no spaces or control characters, which
# every store keeps as given (PostgreSQL refuses NUL) and `str.strip` never removes.
_WORD = st.text(st.characters(codec="utf-8", categories=("L", "N", "P", "S")), min_size=1, max_size=12)


def texts(max_length: int, *, min_words: int = 1, max_words: int = 4) -> st.SearchStrategy[str]:
    """Trimmed, non-blank text of at most `max_length` characters: a few words joined by spaces."""
    return (
        st.lists(_WORD, min_size=min_words, max_size=max_words)
        .map(" ".join)
        .map(lambda text: text[:max_length].strip())
        .filter(bool)
    )


def optional_texts(max_length: int) -> st.SearchStrategy[str | None]:
    """None, or text as `texts` draws it."""
    return st.none() | texts(max_length)


def blanks() -> st.SearchStrategy[str]:
    """Empty or whitespace only: what a required text field refuses."""
    return st.sampled_from(["", " ", "   ", "\t", " \n "])


def too_long(max_length: int) -> st.SearchStrategy[str]:
    """Text one to a few characters over `max_length` once trimmed."""
    return st.integers(1, 3).map(lambda extra: "x" * (max_length + extra))


def broken(valid: st.SearchStrategy[T], *overrides: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[T]:
    """A value of `valid` with the fields of one drawn override replaced: each override breaks a
    rule, so every value drawn is one the service refuses."""
    return st.tuples(valid, st.one_of(*overrides)).map(lambda pair: _evolve(pair[0], pair[1]))


def _evolve(value: T, changes: dict[str, Any]) -> T:
    evolved: T = attrs.evolve(cast(Any, value), **changes)
    return evolved


def field(name: str, values: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """An override of one field: `{name: value}`."""
    return values.map(lambda value: {name: value})
