"""Tags: labels on contacts, unique per account regardless of case."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import attrs

TITLE_MAX = 100
TAGS_MAX = 100
"""Tags one request may give a contact (or assign at once): each is a lookup and a write."""


@attrs.frozen
class Tag:
    id: int
    title: str
    contacts_count: int | None
    created_at: datetime
    updated_at: datetime


def title_key(title: str) -> str:
    """The uniqueness key of a title: `VIP`, `vip` and ` Vip ` are one tag."""
    return title.strip().casefold()


def tag_order(titles: Iterable[str]) -> tuple[str, ...]:
    """A contact's tag titles in the order they are listed: by casefolded title."""
    return tuple(sorted(titles, key=str.casefold))


def clean_title(title: str) -> str:
    """Trim and check a title. Raises ValueError with the message for the `title` field."""
    cleaned = title.strip()
    if not cleaned:
        raise ValueError("The title field is required.")
    if len(cleaned) > TITLE_MAX:
        raise ValueError(f"The title may not be greater than {TITLE_MAX} characters.")
    return cleaned
