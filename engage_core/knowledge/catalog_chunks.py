"""A product catalogue's chunks: one per product, so search finds a product by any of its fields.

Every change to a catalogue's products (created with the entry, added, removed, found by a crawl)
re-chunks the whole catalogue in the same unit of work, so its chunks always match its products.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from engage_core.commerce.products import Product
from engage_core.knowledge.chunking import chunk_records, record_text
from engage_core.knowledge.model import KnowledgeBaseEntry
from engage_core.unit_of_work import WorkspaceUnitOfWork


def product_record(product: Product) -> str:
    """A product as one record: the fields a customer asks about, `field: value` per line."""
    price = None if product.price is None else f"{product.price} {product.currency}"
    return record_text(
        {
            "Product": product.name,
            "SKU": product.sku,
            "Category": product.category,
            "Price": price,
            "Available": "yes" if product.is_available else "no",
            "In stock": product.stock_quantity,
            "Description": product.description,
            "Purchase URL": product.product_attributes.get("purchase_url"),
        }
    )


def rechunk_catalog(uow: WorkspaceUnitOfWork, catalog: KnowledgeBaseEntry, now: datetime) -> None:
    """Replace the catalogue's chunks with one per product it holds now."""
    products: Sequence[Product] = uow.products.for_catalog(catalog.id)
    uow.knowledge_chunks.replace(
        catalog.id, chunk_records([product_record(p) for p in products], title=catalog.title), now
    )
