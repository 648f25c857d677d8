"""Products: search, and restocking tracked stock. Catalogues are made in the knowledge base."""

from __future__ import annotations

from engage_core.commerce.products import (
    STOCK_MAX,
    Product,
    ProductFilter,
    stock_over_maximum,
)
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

CATALOG = "product_catalog"


class ProductService:
    """Products: the catalogue (products are created with their knowledge-base catalog entry, see
    :class:`.KnowledgeBaseService`) and their stock."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    # -- reading ------------------------------------------------------------------------------

    def find(self, account_id: int, filters: ProductFilter, page: PageRequest) -> Page[Product]:
        """`GET /products`: search by name, SKU or category, filter by category, in catalogue order."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.products.find(filters, page)

    def get(self, account_id: int, product_id: int) -> Product:
        """The product `product_id`.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _product(uow, product_id)

    # -- writing ------------------------------------------------------------------------------

    def restock(self, account_id: int, product_id: int, quantity: int) -> Product:
        """Add `quantity` units to a product whose stock is tracked.

        Raises :class:`.ValidationFailed` on `quantity` for a quantity outside 1 to `STOCK_MAX`, an
        untracked stock, or a stock that would pass the maximum; :class:`.NotFound` when the product is
        not in the account."""
        if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= STOCK_MAX:
            raise ValidationFailed.on("quantity", f"The quantity must be a whole number from 1 to {STOCK_MAX}.")
        with self._uow.workspace(account_id) as uow:
            product = _product(uow, product_id)
            if product.stock_quantity is None:
                raise ValidationFailed.on("quantity", f"The stock of {product.name} is not tracked.")
            # The repository checks the maximum on the row it changes: a concurrent restock may have
            # added to the stock read above.
            if not uow.products.restore_stock(product_id, quantity):
                _product(uow, product_id)  # deleted since it was read: 404
                raise ValidationFailed.on("quantity", stock_over_maximum(product))
            restocked = _product(uow, product_id)
            uow.commit()
        return restocked


# -- helpers -----------------------------------------------------------------------------------


def _product(uow: WorkspaceUnitOfWork, product_id: int) -> Product:
    product = uow.products.get(product_id)
    if product is None:
        raise NotFound("Product")
    return product
