"""Folding of searchable text, shared by the stored `*_key` columns and the values compared with them."""

from __future__ import annotations


def fold(text: str) -> str:
    """The case-insensitive form `engage_core` compares with (`str.casefold`)."""
    return text.casefold()


def fold_optional(text: str | None) -> str | None:
    return None if text is None else text.casefold()
