"""Knowledge-base entries (SPEC 2, Knowledge base entry and parts).

An entry is what an AI agent is grounded in. Every type shares the fields of `KnowledgeBaseEntry`;
each type adds its parts in rows of its own (a `product_catalog` entry has products, see
`engage_core.commerce.products`; text content, documents, voice notes and websites come later and add their
own tables beside the entry, never columns that only one type uses).

Status is `active` or `inactive`, set at creation (default `active`) or by update. Creating an
entry emits `knowledge_base.created` (SPEC 3, 6). Adding or removing a catalog's products changes
none of the entry's fields, so it emits no `knowledge_base.updated`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_core.kernel.clock import format_timestamp

KB_TYPES: tuple[str, ...] = ("text", "document", "voice", "product_catalog", "website")
KB_STATUSES: tuple[str, ...] = ("active", "inactive")
TITLE_MAX = 255
DESCRIPTION_MAX = 1000
BUSINESS_DESCRIPTION_MAX = 5000


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


@attrs.frozen
class KnowledgeBaseDraft:
    """A validated new entry, before it has an id."""

    title: str
    type: str
    description: str | None = None
    business_description: str | None = None
    status: str = "active"
