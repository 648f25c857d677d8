"""Knowledge-base entries (SPEC 2, Knowledge base entry and parts).

An entry is what an AI agent is grounded in. Every type shares the fields of `KnowledgeBaseEntry`;
each type adds its parts in rows of its own (a `product_catalog` entry has products, see
`engage_core.commerce.products`; documents, voice notes and websites have tables of their own beside
the entry). The text of a `text` entry is its `content`, kept on the entry's row but read apart
(`KnowledgeBaseRepository.content`): lists never carry it.

Status is `active` or `inactive`, set at creation (default `active`) or by update. Creating an
entry emits `knowledge_base.created`, changing any of its fields (a text entry's content
included) `knowledge_base.updated`, deleting it `knowledge_base.deleted` (SPEC 3, 6). Adding or
removing a catalog's products changes none of the entry's fields, so it emits no `knowledge_base.updated`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.pagination import PageLimits
from engage_core.kernel.unset import UNSET, Unset

KB_TYPES: tuple[str, ...] = ("text", "document", "voice", "product_catalog", "website")
KB_STATUSES: tuple[str, ...] = ("active", "inactive")
TITLE_MAX = 255
DESCRIPTION_MAX = 1000
BUSINESS_DESCRIPTION_MAX = 5000
CONTENT_MAX = 200_000
"""The longest text entry, in characters: about 200 chunks, a long handbook."""

ENTRIES = PageLimits(default=25)
"""`GET /knowledge-base` (SPEC 8: default 25, at most 100)."""


@attrs.frozen
class KnowledgeBaseEntry:
    id: int
    title: str
    type: str
    description: str | None
    business_description: str | None
    status: str
    embedding_updated_at: datetime | None
    created_at: datetime
    updated_at: datetime

    def event_payload(self) -> Mapping[str, Any]:
        """`knowledge_base.created` / `knowledge_base.updated` data (SPEC 6)."""
        return {
            "id": self.id,
            "title": self.title,
            "type": self.type,
            "status": self.status,
            "description": self.description,
            "business_description": self.business_description,
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }

    def deleted_payload(self, deleted_at: datetime) -> Mapping[str, Any]:
        """`knowledge_base.deleted` data (SPEC 6)."""
        return {"id": self.id, "title": self.title, "type": self.type, "deleted_at": format_timestamp(deleted_at)}


@attrs.frozen
class KnowledgeBaseDraft:
    """A validated new entry, before it has an id."""

    title: str
    type: str
    description: str | None = None
    business_description: str | None = None
    status: str = "active"
    content: str | None = None
    """The text of a `text` entry; None for every other type."""


@attrs.frozen
class KnowledgeBaseFilter:
    """Filters of `GET /knowledge-base`."""

    type: str | None = None
    status: str | None = None

    def matches(self, entry: KnowledgeBaseEntry) -> bool:
        """The reference semantics of the filter (the in-memory store uses it)."""
        return (self.type is None or entry.type == self.type) and (self.status is None or entry.status == self.status)


@attrs.frozen
class KnowledgeBasePatch:
    """Fields of `PUT /knowledge-base/{id}`: any subset; `UNSET` leaves a field alone. `content` is
    for `text` entries only."""

    title: str | Unset = UNSET
    content: str | Unset = UNSET
    description: str | Unset | None = UNSET
    business_description: str | Unset | None = UNSET
    status: str | Unset = UNSET
