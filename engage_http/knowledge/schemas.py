"""Request and response bodies of the knowledge base (SPEC 2, Knowledge base entry and parts; SPEC 4,
Knowledge base): for now, product catalogues and their products.

A catalogue request carries `products` (a JSON array), a `csv_file`, or both, as JSON or as
`multipart/form-data` (`engage_http.multipart`): in a form, `csv_file` is an uploaded file or a
text part, and `products` a part holding the JSON array. In a JSON body `csv_file` is the CSV text.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.commerce.product_csv import COLUMNS
from engage_core.commerce.products import MAX_PRODUCTS_PER_REQUEST, ProductInput
from engage_core.kernel.errors import ValidationFailed
from engage_core.knowledge import model as domain
from engage_core.knowledge.documents import Document
from engage_core.knowledge.service import CatalogInput, CatalogResult, ProductsInput
from engage_core.knowledge.voice import VoiceNote
from engage_http.commerce.product_schemas import CatalogProduct, LinkedMedia, ProductCreate, attribute_problems
from engage_http.constraints import Doc, Items, Text
from engage_http.converter import renders, structures_into
from engage_http.multipart import MEDIA_TYPE

CSV_MEDIA_TYPE = "text/csv"
CSV_FORMAT = "product-catalog-csv"
"""The `format` of `csv_file`: a CSV text the catalogue accepts (UTF-8, a header row naming the columns)."""

KnowledgeBaseType = Literal["text", "document", "voice", "product_catalog", "website"]
KnowledgeBaseStatus = Literal["active", "inactive"]
ProcessingStatus = Literal["pending", "processing", "completed", "failed"]
TranscriptionStatus = ProcessingStatus

_COLUMNS = ", ".join(f"`{name}`" for name in COLUMNS)
CsvFile = Annotated[
    str,
    Text(format=CSV_FORMAT),
    Doc(
        description="A CSV file: UTF-8, comma-separated, a header row, then one product per row. Columns "
        f"(any case, spaces read as underscores): {_COLUMNS}; any other column is kept in "
        "`product_attributes`. One bad row rejects the whole request.",
        example="product_name,sku,price,stock\nEspresso beans,ESP-1,19.99,40\n",
    ),
]
ProductList = Annotated[
    tuple[ProductCreate, ...],
    Items(max_items=MAX_PRODUCTS_PER_REQUEST),
]

_PRODUCTS_DESCRIPTION = (
    f"Products to add; with the CSV rows, at most {MAX_PRODUCTS_PER_REQUEST} in one request. In a form, a part "
    "holding the JSON array (or one part per product)."
)
_CSV_DESCRIPTION = "The CSV text in a JSON body; in a form, an uploaded file or a text part."


def _products_or_csv(schema: dict[str, Any]) -> dict[str, Any]:
    """At least one of a non-empty `products` and a `csv_file`; `csv_file` documented as CSV."""
    schema["properties"]["csv_file"] = {**schema["properties"]["csv_file"], "contentMediaType": CSV_MEDIA_TYPE}
    schema["anyOf"] = [
        {"required": ["products"], "properties": {"products": {"minItems": 1}}},
        {"required": ["csv_file"], "properties": {"csv_file": {"type": "string"}}},
    ]
    return schema


def check_products(products: Sequence[ProductInput]) -> None:
    """The checks of a request's `products` the converter cannot make (`attribute_problems`)."""
    errors: dict[str, list[str]] = {}
    for index, product in enumerate(products):
        errors.update(attribute_problems(product, f"products.{index}"))
    if errors:
        raise ValidationFailed(errors)


@structures_into(CatalogInput)
@attrs.frozen
class CatalogCreate:
    """A new product catalogue: a title, and `products`, a `csv_file`, or both."""

    title: Annotated[str, Text(max_length=domain.TITLE_MAX, blank=False)]
    products: ProductList = attrs.field(default=(), metadata={"description": _PRODUCTS_DESCRIPTION})
    csv_file: CsvFile | None = attrs.field(
        default=None, metadata={"description": _CSV_DESCRIPTION, MEDIA_TYPE: CSV_MEDIA_TYPE}
    )
    description: Annotated[str, Text(max_length=domain.DESCRIPTION_MAX)] | None = None
    business_description: Annotated[str, Text(max_length=domain.BUSINESS_DESCRIPTION_MAX)] | None = attrs.field(
        default=None, metadata={"description": "Guidance on how the AI uses the catalogue."}
    )
    status: KnowledgeBaseStatus = "active"

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _products_or_csv(schema)


@structures_into(ProductsInput)
@attrs.frozen
class ProductsAdd:
    """Products to append to a catalogue: `products`, a `csv_file`, or both."""

    products: ProductList = attrs.field(default=(), metadata={"description": _PRODUCTS_DESCRIPTION})
    csv_file: CsvFile | None = attrs.field(
        default=None, metadata={"description": _CSV_DESCRIPTION, MEDIA_TYPE: CSV_MEDIA_TYPE}
    )

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        return _products_or_csv(schema)


@renders(domain.KnowledgeBaseEntry)
@attrs.frozen
class KnowledgeBase:
    """A knowledge-base entry (SPEC 2)."""

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

    # By hand too: `CatalogProducts` and `KnowledgeBaseDetail` are built by hand.
    @classmethod
    def from_domain(cls, entry: domain.KnowledgeBaseEntry) -> KnowledgeBase:
        return cls(
            id=entry.id,
            title=entry.title,
            type=entry.type,  # type: ignore[arg-type]
            description=entry.description,
            business_description=entry.business_description,
            status=entry.status,  # type: ignore[arg-type]
            embedding_updated_at=entry.embedding_updated_at,
            created_at=entry.created_at,
            updated_at=entry.updated_at,
        )


@renders(Document)
@attrs.frozen
class KnowledgeDocument:
    """A file of a document entry: what was read from it, or why it could not be."""

    id: int
    original_name: str
    file_type: str = attrs.field(
        metadata={"description": "The format read from the content: `pdf`, `docx`, `doc`, `xlsx`, `csv` or `txt`."}
    )
    processing_status: ProcessingStatus
    extracted_content: str | None = attrs.field(metadata={"description": "The text read from the file."})
    processing_error: str | None = attrs.field(metadata={"description": "Why the file could not be read."})

    @classmethod
    def from_domain(cls, document: Document) -> KnowledgeDocument:
        return cls(
            document.id,
            document.original_name,
            document.file_type,
            document.processing_status,  # type: ignore[arg-type]
            document.extracted_content,
            document.processing_error,
        )


@renders(VoiceNote)
@attrs.frozen
class KnowledgeVoiceNote:
    """A recording of a voice entry: its transcription, or why there is none."""

    id: int
    original_name: str
    transcription_status: TranscriptionStatus
    transcription: str | None
    transcription_error: str | None = attrs.field(metadata={"description": "Why the recording was not transcribed."})
    language: str | None = attrs.field(metadata={"description": "The language asked for or recognised."})
    duration_seconds: float | None

    @classmethod
    def from_domain(cls, note: VoiceNote) -> KnowledgeVoiceNote:
        return cls(
            note.id,
            note.original_name,
            note.transcription_status,  # type: ignore[arg-type]
            note.transcription,
            note.transcription_error,
            note.language,
            note.duration_seconds,
        )


@attrs.frozen
class CatalogProducts:
    """A catalogue and the products this request added to it (JSON products first, then CSV rows)."""

    knowledge_base: KnowledgeBase
    products_created: int
    products: tuple[CatalogProduct, ...]

    # By hand: the products carry money and their media (`CatalogProduct.from_domain`).
    @classmethod
    def from_domain(cls, result: CatalogResult, media: LinkedMedia) -> CatalogProducts:
        return cls(
            knowledge_base=KnowledgeBase.from_domain(result.knowledge_base),
            products_created=result.products_created,
            products=tuple(CatalogProduct.from_domain(p, media) for p in result.products),
        )


__all__ = [
    "CSV_FORMAT",
    "CatalogCreate",
    "CatalogProducts",
    "KnowledgeBase",
    "KnowledgeDocument",
    "KnowledgeVoiceNote",
    "ProcessingStatus",
    "ProductsAdd",
    "check_products",
]
