"""The product image an automatic reply may carry: the first linked image of the first product the
reply drew on that has one.

A catalogue's chunks follow its products in order, one per product unless a long product became
several (`engage_core.knowledge.catalog_chunks`, re-chunked in the same unit of work as every change
to its products), so a cited chunk of a `product_catalog` entry names its product by `chunk_index`.
The product's `media_file_ids` are tried in order; the first that is still an image of the library
is attached. Nothing is attached when the reply cites no product, or no linked image is left.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from engage_core.commerce.products import Product
from engage_core.kernel.blobs import BlobStore
from engage_core.knowledge.catalog_chunks import product_record
from engage_core.knowledge.chunking import chunk_records
from engage_core.knowledge.search import Chunk
from engage_core.knowledge.service import CATALOG
from engage_core.messaging.gateway import Attachment
from engage_core.unit_of_work import WorkspaceUnitOfWork


class ProductImages:
    """Finds the image of the product a reply cites; reads the file through the blob store."""

    def __init__(self, blobs: BlobStore) -> None:
        self._blobs = blobs

    def for_citations(self, uow: WorkspaceUnitOfWork, citations: Sequence[int]) -> Attachment | None:
        """The attachment for a reply citing the chunks `citations` (in the order cited), or None."""
        for chunk_id in citations:
            chunk = uow.knowledge_chunks.get(chunk_id)
            if chunk is None:
                continue
            entry = uow.knowledge_base.get(chunk.knowledge_base_id)
            if entry is None or entry.type != CATALOG:
                continue
            product = _product_of(uow.products.for_catalog(entry.id), chunk, entry.title)
            attachment = None if product is None else self._first_image(uow, product.media_file_ids)
            if attachment is not None:
                return attachment
        return None

    def _first_image(self, uow: WorkspaceUnitOfWork, media_ids: Sequence[int]) -> Attachment | None:
        found = uow.media.get_many(media_ids)
        for media_id in media_ids:
            media = found.get(media_id)
            if media is not None and media.file_type == "image":
                key = media.storage_key
                url = self._blobs.public_url(key)
                return Attachment(media.original_name, media.mime_type, url, partial(self._blobs.open, key))
        return None


def _product_of(products: Sequence[Product], chunk: Chunk, title: str) -> Product | None:
    """The product whose record `chunk` is part of."""
    if len(products) == chunk.total_chunks:  # one chunk each: the common case, no chunking needed
        return products[chunk.chunk_index] if chunk.chunk_index < len(products) else None
    start = 0
    for product in products:
        count = len(chunk_records([product_record(product)], title=title))
        if start <= chunk.chunk_index < start + count:
            return product
        start += count
    return None
