"""The knowledge base: product-catalogue entries and their products (`POST /knowledge-base/...`)."""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from engage_core.commerce.product_csv import FIELD as CSV_FIELD
from engage_core.commerce.product_csv import parse_products_csv
from engage_core.commerce.products import (
    MAX_PRODUCTS_PER_REQUEST,
    Product,
    ProductDraft,
    ProductInput,
    validate_product,
)
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.validation import ErrorCollector, one_of, optional_text, required_text
from engage_core.knowledge.catalog_chunks import rechunk_catalog
from engage_core.knowledge.embedding_jobs import NO_EMBEDDINGS, EmbeddingQueue
from engage_core.knowledge.model import (
    BUSINESS_DESCRIPTION_MAX,
    DESCRIPTION_MAX,
    KB_STATUSES,
    TITLE_MAX,
    KnowledgeBaseDraft,
    KnowledgeBaseEntry,
)
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

CATALOG = "product_catalog"


@attrs.frozen
class ProductsInput:
    """The products of a catalog request: a JSON array, a CSV upload (its bytes or text), or both;
    at least one (SPEC 4, `POST /knowledge-base/{id}/products`)."""

    products: Sequence[ProductInput] = ()
    csv_file: bytes | str | None = None


@attrs.frozen
class CatalogInput:
    """Fields of `POST /knowledge-base/product-catalog`."""

    title: str
    products: Sequence[ProductInput] = ()
    csv_file: bytes | str | None = None
    description: str | None = None
    business_description: str | None = None
    status: str = "active"


@attrs.frozen
class CatalogResult:
    """The catalog entry and the products this request created (JSON products first, then CSV rows)."""

    knowledge_base: KnowledgeBaseEntry
    products: Sequence[Product]

    @property
    def products_created(self) -> int:
        """How many products this request created."""
        return len(self.products)


class KnowledgeBaseService:
    """The knowledge base: product catalog entries and their products.

    Methods that name an entry raise :class:`.NotFound` when it is not in the account, and
    :class:`.ValidationFailed` on `type` when it is not a product catalog; invalid fields, products or
    CSV rows raise :class:`.ValidationFailed` and nothing is stored."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, embeddings: EmbeddingQueue = NO_EMBEDDINGS) -> None:
        self._uow = uow
        self._clock = clock
        self._embeddings = embeddings

    def catalog_products(self, account_id: int, knowledge_base_id: int) -> Sequence[Product]:
        """The products of one catalog entry (for `GET /knowledge-base/{id}`)."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            _catalog(uow, knowledge_base_id)
            return uow.products.for_catalog(knowledge_base_id)

    def create_catalog(self, account_id: int, data: CatalogInput) -> CatalogResult:
        """A new `product_catalog` entry with its products; emits `knowledge_base.created`. Every
        field, product and CSV row is checked first: one error anywhere and nothing is stored."""
        errors = ErrorCollector()
        draft = errors.run(lambda: _entry_draft(data))
        try:
            products = _product_drafts(ProductsInput(data.products, data.csv_file))
        except ValidationFailed as exc:
            if not errors.errors:
                raise  # keeps the message naming the first bad CSV row and column
            errors.errors.update(exc.errors)
        errors.raise_if_any()
        assert draft is not None
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            _check_media(uow, products)
            entry = uow.knowledge_base.add(draft, now)
            created = uow.products.add_many(entry.id, products, now)
            rechunk_catalog(uow, entry, now)
            self._embeddings.changed(uow, entry.id, now)
            uow.emit(DomainEvent("knowledge_base.created", entry.event_payload(), now))
            uow.commit()
        return CatalogResult(entry, list(created))

    def add_products(self, account_id: int, knowledge_base_id: int, data: ProductsInput) -> CatalogResult:
        """Append products to a catalog entry, all or nothing, and re-chunk it (one chunk a product).
        The entry's own fields do not change, so no `knowledge_base.updated` is emitted."""
        products = _product_drafts(data)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            entry = _catalog(uow, knowledge_base_id)
            _check_media(uow, products)
            created = uow.products.add_many(entry.id, products, now)
            rechunk_catalog(uow, entry, now)
            self._embeddings.changed(uow, entry.id, now)
            uow.commit()
        return CatalogResult(entry, list(created))

    def delete_product(self, account_id: int, knowledge_base_id: int, product_id: int) -> None:
        """Remove a product from its catalog. Orders that hold it keep their item snapshot; their
        stock has nowhere to go back to, so a later cancellation restores nothing for it."""
        with self._uow.workspace(account_id) as uow:
            catalog = _catalog(uow, knowledge_base_id)
            product = uow.products.get(product_id)
            if product is None or product.knowledge_base_id != knowledge_base_id:
                raise NotFound("Product")
            uow.products.delete(product_id)
            rechunk_catalog(uow, catalog, self._clock.now())
            self._embeddings.changed(uow, catalog.id, self._clock.now())
            uow.commit()


def _catalog(uow: WorkspaceUnitOfWork, knowledge_base_id: int) -> KnowledgeBaseEntry:
    entry = uow.knowledge_base.get(knowledge_base_id)
    if entry is None:
        raise NotFound("Knowledge base entry")
    if entry.type != CATALOG:
        raise ValidationFailed.on("type", f"The knowledge base entry is a {entry.type} entry, not a product catalog.")
    return entry


def _check_media(uow: WorkspaceUnitOfWork, drafts: Sequence[ProductDraft]) -> None:
    """Every linked media file is one of the account's (another account's id is as unknown as a
    deleted one), read in one query. Only JSON products link media (a CSV has no such column), and
    they come first in `drafts`, so the error names the product as the request does."""
    wanted = {i for draft in drafts for i in draft.media_file_ids}
    if not wanted:
        return
    found = uow.media.get_many(wanted)
    errors: dict[str, list[str]] = {}
    for index, draft in enumerate(drafts):
        missing = [i for i in draft.media_file_ids if i not in found]
        if missing:
            ids = ", ".join(map(str, missing))
            errors[f"products.{index}.media_file_ids"] = [f"No media file {ids} in this workspace's library."]
    if errors:
        raise ValidationFailed(errors)


def _entry_draft(data: CatalogInput) -> KnowledgeBaseDraft:
    errors = ErrorCollector()
    title = errors.run(lambda: required_text("title", data.title, max_length=TITLE_MAX))
    description = errors.run(lambda: optional_text("description", data.description, max_length=DESCRIPTION_MAX))
    business = errors.run(
        lambda: optional_text("business_description", data.business_description, max_length=BUSINESS_DESCRIPTION_MAX)
    )
    status = errors.run(lambda: one_of("status", data.status, KB_STATUSES))
    errors.raise_if_any()
    assert title is not None and status is not None
    return KnowledgeBaseDraft(title, CATALOG, description, business, status)


def _product_drafts(data: ProductsInput) -> list[ProductDraft]:
    """The JSON products, then the CSV rows, validated together: every error of both is reported.
    When only the CSV is wrong, its own message (naming the first bad row and column) is kept."""
    if not data.products and data.csv_file is None:
        message = "Provide products, a csv_file, or both."
        raise ValidationFailed({"products": [message], CSV_FIELD: [message]}, message)
    if len(data.products) > MAX_PRODUCTS_PER_REQUEST:
        raise ValidationFailed.on("products", f"A request may add at most {MAX_PRODUCTS_PER_REQUEST} products.")
    errors: dict[str, list[str]] = {}
    drafts: list[ProductDraft] = []
    for index, item in enumerate(data.products):
        try:
            drafts.append(validate_product(item))
        except ValidationFailed as exc:
            errors.update({f"products.{index}.{key}": msgs for key, msgs in exc.errors.items()})
    if data.csv_file is not None:
        try:
            drafts.extend(parse_products_csv(data.csv_file))
        except ValidationFailed as exc:
            if not errors:
                raise
            errors.update(exc.errors)
    if errors:
        raise ValidationFailed(errors)
    if len(drafts) > MAX_PRODUCTS_PER_REQUEST:
        raise ValidationFailed.on("products", f"A request may add at most {MAX_PRODUCTS_PER_REQUEST} products.")
    return drafts
