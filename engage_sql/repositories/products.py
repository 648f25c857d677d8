"""Products of one account, and the two statements that move their stock.

`take_stock` is one conditional UPDATE: the condition `stock_quantity >= :quantity` is checked by
the database on the row it changes, so two transactions can never both take the last unit. On
PostgreSQL the second waits for the first's row lock and then re-checks the condition against the
committed row (READ COMMITTED); on SQLite writers run one at a time anyway.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Integer, bindparam, delete, func, insert, or_, select, update

from engage_core.pagination import Page, PageRequest
from engage_core.products import Product, ProductDraft, ProductFilter
from engage_sql.repositories.base import WorkspaceRepository
from engage_sql.tables import products
from engage_sql.text import fold, fold_optional
from engage_sql.types import AnyRow, Id

_COLUMNS = (
    products.c.id,
    products.c.knowledge_base_id,
    products.c.name,
    products.c.description,
    products.c.sku,
    products.c.category,
    products.c.price,
    products.c.currency,
    products.c.stock_quantity,
    products.c.image_url,
    products.c.is_available,
    products.c.product_attributes,
    products.c.media_file_ids,
    products.c.created_at,
    products.c.updated_at,
)

_ACCOUNT = bindparam("account", type_=Id)
_PRODUCT = bindparam("product", type_=Id)
_QUANTITY = bindparam("quantity", type_=Integer())

_TAKE_STOCK = (
    update(products)
    .where(
        products.c.account_id == _ACCOUNT,
        products.c.id == _PRODUCT,
        or_(products.c.stock_quantity.is_(None), products.c.stock_quantity >= _QUANTITY),
    )
    .values(stock_quantity=products.c.stock_quantity - _QUANTITY)  # NULL (untracked) stays NULL
)
_RESTORE_STOCK = (
    update(products)
    .where(products.c.account_id == _ACCOUNT, products.c.id == _PRODUCT, products.c.stock_quantity.is_not(None))
    .values(stock_quantity=products.c.stock_quantity + _QUANTITY)
)
"""Built once: they run for every line of every order placed, changed or cancelled."""


def product_from_row(row: AnyRow) -> Product:
    return Product(
        id=row.id,
        knowledge_base_id=row.knowledge_base_id,
        name=row.name,
        description=row.description,
        sku=row.sku,
        category=row.category,
        price=row.price,
        currency=row.currency,
        stock_quantity=row.stock_quantity,
        image_url=row.image_url,
        is_available=row.is_available,
        product_attributes=row.product_attributes,
        media_file_ids=tuple(row.media_file_ids),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


class SqlProductRepository(WorkspaceRepository):
    def add_many(self, knowledge_base_id: int, drafts: Sequence[ProductDraft], now: datetime) -> Sequence[Product]:
        """One multi-row INSERT; the ids come back in the order of `drafts` (and ascend in it)."""
        if not drafts:
            return []
        rows = [self._row(knowledge_base_id, draft, now) for draft in drafts]
        ids = self._conn.execute(insert(products).returning(products.c.id, sort_by_parameter_order=True), rows)
        return [
            Product(
                id=product_id,
                knowledge_base_id=knowledge_base_id,
                name=draft.name,
                description=draft.description,
                sku=draft.sku,
                category=draft.category,
                price=draft.price,
                currency=draft.currency,
                stock_quantity=draft.stock_quantity,
                image_url=draft.image_url,
                is_available=draft.is_available,
                product_attributes=dict(draft.product_attributes),
                media_file_ids=(),
                created_at=now,
                updated_at=now,
            )
            for product_id, draft in zip(ids.scalars(), drafts, strict=True)
        ]

    def get(self, product_id: int) -> Product | None:
        row = self._conn.execute(select(*_COLUMNS).where(self._this(product_id))).one_or_none()
        return None if row is None else product_from_row(row)

    def get_many(self, product_ids: Collection[int]) -> Mapping[int, Product]:
        if not product_ids:
            return {}
        rows = self._conn.execute(
            select(*_COLUMNS).where(self.owned(products), products.c.id.in_(sorted(set(product_ids))))
        )
        return {row.id: product_from_row(row) for row in rows}

    def find(self, filters: ProductFilter, page: PageRequest) -> Page[Product]:
        """Catalogue order: ascending id."""
        where = [self.owned(products), *self._filters(filters)]
        total = self._conn.execute(select(func.count()).select_from(products).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_COLUMNS).where(*where).order_by(products.c.id).limit(page.per_page).offset(page.offset)
        )
        return Page(items=[product_from_row(row) for row in rows], request=page, total=total)

    def for_catalog(self, knowledge_base_id: int) -> Sequence[Product]:
        rows = self._conn.execute(
            select(*_COLUMNS)
            .where(self.owned(products), products.c.knowledge_base_id == knowledge_base_id)
            .order_by(products.c.id)
        )
        return [product_from_row(row) for row in rows]

    def delete(self, product_id: int) -> None:
        # Order items keep their copy of the product, `product_id` included: no foreign key to cascade.
        self._conn.execute(delete(products).where(self._this(product_id)))

    def take_stock(self, product_id: int, quantity: int) -> bool:
        params = {"account": self._account_id, "product": product_id, "quantity": quantity}
        return self._conn.execute(_TAKE_STOCK, params).rowcount == 1

    def restore_stock(self, product_id: int, quantity: int) -> None:
        self._conn.execute(_RESTORE_STOCK, {"account": self._account_id, "product": product_id, "quantity": quantity})

    # -- helpers ---------------------------------------------------------------------------------

    def _this(self, product_id: int) -> ColumnElement[bool]:
        return self.owned(products) & (products.c.id == product_id)

    def _row(self, knowledge_base_id: int, draft: ProductDraft, now: datetime) -> dict[str, Any]:
        return {
            "account_id": self._account_id,
            "knowledge_base_id": knowledge_base_id,
            "name": draft.name,
            "name_key": fold(draft.name),
            "description": draft.description,
            "sku": draft.sku,
            "sku_key": fold_optional(draft.sku),
            "category": draft.category,
            "category_key": fold_optional(draft.category),
            "price": draft.price,
            "currency": draft.currency,
            "stock_quantity": draft.stock_quantity,
            "image_url": draft.image_url,
            "is_available": draft.is_available,
            "product_attributes": dict(draft.product_attributes),
            "media_file_ids": [],
            "created_at": now,
            "updated_at": now,
        }

    @staticmethod
    def _filters(filters: ProductFilter) -> list[ColumnElement[bool]]:
        where: list[ColumnElement[bool]] = []
        if filters.category is not None:
            category = fold(filters.category)
            # A product without a category has none to match, except the empty one (as in the core).
            where.append(products.c.category_key == category if category else products.c.category_key.is_(None))
        if filters.search:
            needle = fold(filters.search)
            # autoescape: `%`, `_` and the escape character in the search match themselves.
            where.append(
                or_(
                    products.c.name_key.contains(needle, autoescape=True),
                    products.c.sku_key.contains(needle, autoescape=True),
                    products.c.category_key.contains(needle, autoescape=True),
                )
            )
        return where
