"""The product image an automatic reply may carry: the first image linked to the first product the
reply drew on.

A catalogue's chunks are one per product, in product order (`engage_core.knowledge.catalog_chunks`,
re-chunked in the same unit of work as every change to its products), so a cited chunk of a
`product_catalog` entry is the product at its `chunk_index`, while the counts agree. The product's
`media_file_ids` are tried in order; the first that is still an image of the library is attached.
Nothing is attached when the reply cites no product, or no linked image is left.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from engage_core.kernel.blobs import BlobStore
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
            products = uow.products.for_catalog(entry.id)
            if len(products) != chunk.total_chunks or chunk.chunk_index >= len(products):
                continue  # the chunks no longer match the products
            attachment = self._first_image(uow, products[chunk.chunk_index].media_file_ids)
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
