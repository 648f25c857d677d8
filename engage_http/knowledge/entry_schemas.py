"""Request and response bodies of knowledge-base entries of every type (SPEC 2, Knowledge base entry
and parts; SPEC 4, Knowledge base): text entries, the list filters, the update, and the full entry."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import attrs

from engage_core.kernel.unset import UNSET, Unset
from engage_core.knowledge import model as domain
from engage_core.knowledge.entries import EntryDetail, TextInput
from engage_http.commerce.product_schemas import CatalogProduct, LinkedMedia
from engage_http.constraints import Doc, Text
from engage_http.converter import structures_into
from engage_http.knowledge.schemas import (
    KnowledgeBase,
    KnowledgeBaseStatus,
    KnowledgeBaseType,
    KnowledgeDocument,
    KnowledgeVoiceNote,
)
from engage_http.knowledge.website_schemas import WebsiteRecord

Title = Annotated[str, Text(max_length=domain.TITLE_MAX, blank=False), Doc(example="Opening hours")]
Description = Annotated[str, Text(max_length=domain.DESCRIPTION_MAX)]
BusinessDescription = Annotated[
    str,
    Text(max_length=domain.BUSINESS_DESCRIPTION_MAX),
    Doc(description="Guidance on how the AI uses the entry.", example="Quote these hours when asked when we open."),
]
Content = Annotated[
    str,
    Text(max_length=domain.CONTENT_MAX, blank=False),
    Doc(
        description="The text, at most 200,000 characters. Markdown headings (`#` to `######`) open sections, "
        "whose path heads each chunk (`context_header`).",
        example="# Opening hours\n\nWe open at 7 am every day and close at 6 pm.",
    ),
]


@structures_into(TextInput)
@attrs.frozen
class TextCreate:
    """A new `text` entry; it is chunked for AI search before the response is sent."""

    title: Title
    content: Content
    description: Description | None = None
    business_description: BusinessDescription | None = None
    status: KnowledgeBaseStatus = "active"


@structures_into(domain.KnowledgeBasePatch)
@attrs.frozen
class KnowledgeBaseUpdate:
    """Any subset of the entry's fields; fields left out keep their value. `content` is for `text`
    entries only (a 422 on another type); new content replaces the entry's chunks."""

    title: Title | Unset = UNSET
    content: Content | Unset = UNSET
    description: Description | Unset | None = UNSET
    business_description: BusinessDescription | Unset | None = UNSET
    status: KnowledgeBaseStatus | Unset = UNSET


@structures_into(domain.KnowledgeBaseFilter)
@attrs.frozen
class KnowledgeBaseFilters:
    """Query filters of `GET /knowledge-base`."""

    type: KnowledgeBaseType | None = None
    status: KnowledgeBaseStatus | None = None


@attrs.frozen
class KnowledgeBaseDetail:
    """An entry with its parts by type: `content` for a `text` entry, `products` for a
    `product_catalog`, `documents` for a `document` entry, `voice_notes` for a `voice` entry,
    `website` for a `website` entry; each is null for the other types."""

    id: int
    title: str
    type: KnowledgeBaseType
    description: str | None
    business_description: str | None
    status: KnowledgeBaseStatus
    embedding_updated_at: datetime | None = attrs.field(
        metadata={"description": "When the entry was last prepared for AI search."}
    )
    created_at: datetime
    updated_at: datetime
    content: str | None = attrs.field(metadata={"description": "The text of a `text` entry."})
    products: tuple[CatalogProduct, ...] | None = attrs.field(
        metadata={"description": "The products of a `product_catalog` entry."}
    )
    documents: tuple[KnowledgeDocument, ...] | None = attrs.field(
        metadata={"description": "The files of a `document` entry, in upload order."}
    )
    voice_notes: tuple[KnowledgeVoiceNote, ...] | None = attrs.field(
        metadata={"description": "The recording of a `voice` entry."}
    )
    website: WebsiteRecord | None = attrs.field(metadata={"description": "The crawl of a `website` entry."})

    # By hand: the products carry money and their media (`CatalogProduct.from_domain`).
    @classmethod
    def from_domain(cls, detail: EntryDetail, media: LinkedMedia) -> KnowledgeBaseDetail:
        entry = KnowledgeBase.from_domain(detail.entry)
        fields: dict[str, Any] = attrs.asdict(entry, recurse=False)
        products = None
        if detail.products is not None:
            products = tuple(CatalogProduct.from_domain(p, media) for p in detail.products)
        documents = None
        if detail.documents is not None:
            documents = tuple(KnowledgeDocument.from_domain(d) for d in detail.documents)
        notes = None
        if detail.voice_notes is not None:
            notes = tuple(KnowledgeVoiceNote.from_domain(n) for n in detail.voice_notes)
        website = None if detail.website is None else WebsiteRecord.from_domain(detail.website)
        return cls(
            **fields,
            content=detail.content,
            products=products,
            documents=documents,
            voice_notes=notes,
            website=website,
        )


__all__ = ["KnowledgeBaseDetail", "KnowledgeBaseFilters", "KnowledgeBaseUpdate", "TextCreate"]
