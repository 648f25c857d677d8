"""Products of one account, and the two statements that move their stock.

`take_stock` is one conditional UPDATE: the condition `stock_quantity >= :quantity` is checked by
the database on the row it changes, so two transactions can never both take the last unit. On
PostgreSQL the second waits for the first's row lock and then re-checks the condition against the
committed row (READ COMMITTED); on SQLite writers run one at a time anyway. `restore_stock` is its
mirror, `stock_quantity <= STOCK_MAX - :quantity`, so two restocks can never together pass the
maximum (on PostgreSQL the sum would overflow the `INTEGER` column: an error, not a refusal).

The statements every order placement runs (reading its products, moving their stock) are built
once and run on the driver's cursor (`DriverStatement`): SQLAlchemy's building and execution of
them cost several times what the database takes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Integer,
    String,
    bindparam,
    cast,
    delete,
    func,
    insert,
    or_,
    select,
    update,
)

from engage_core.commerce.products import STOCK_MAX, Product, ProductDraft, ProductFilter
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.commerce.tables import products
from engage_sql.driver import DriverStatement
from engage_sql.repository import WorkspaceRepository
from engage_sql.text import fold, fold_optional
from engage_sql.types import Id

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
_CEILING = bindparam("ceiling", type_=Integer())
"""`STOCK_MAX - quantity`, computed here: `stock_quantity + :quantity <= STOCK_MAX` would overflow in SQL."""

_TAKE_STOCK = DriverStatement(
    update(products)
    .where(
        products.c.account_id == _ACCOUNT,
        products.c.id == _PRODUCT,
        or_(products.c.stock_quantity.is_(None), products.c.stock_quantity >= _QUANTITY),
    )
    .values(stock_quantity=products.c.stock_quantity - _QUANTITY)  # NULL (untracked) stays NULL
)
_RESTORE_STOCK = DriverStatement(
    update(products)
    .where(
        products.c.account_id == _ACCOUNT,
        products.c.id == _PRODUCT,
        or_(products.c.stock_quantity.is_(None), products.c.stock_quantity <= _CEILING),
    )
    .values(stock_quantity=products.c.stock_quantity + _QUANTITY)  # NULL (untracked) stays NULL
)
"""They run for every line of every order placed, changed or cancelled."""

_BY_ID = DriverStatement(select(*_COLUMNS).where(products.c.account_id == _ACCOUNT, products.c.id == _PRODUCT))

MANY_ON_CURSOR = 128
"""`get_many` of up to this many distinct ids runs on the driver's cursor (an order has at most 100 lines)."""
_ID_NAMES = tuple(f"id{index}" for index in range(MANY_ON_CURSOR))


def numeric_rows(connection: Connection, statement: DriverStatement, params: Mapping[str, Any]) -> Sequence[Any]:
    """The rows of a prebuilt SELECT returning NUMERIC columns (prices, totals): on the driver's
    cursor on SQLite; through `Connection.execute` on PostgreSQL, where SQLAlchemy's psycopg NUMERIC
    result processor depends on the column's type code in the cursor's description, which a
    `DriverStatement` (its processors chosen before any execution) does not have."""
    if connection.dialect.name == "postgresql":
        return connection.execute(statement.statement, params).all()
    return statement.rows(connection, params)


@cache
def _by_ids(count: int) -> DriverStatement:
    """The account's products among `count` ids, given as parameters `id0` ... A `DriverStatement`
    takes no expanding IN, so there is one statement per count; the counts used are powers of two
    (see `get_many`), so at most eight statements are ever built."""
    ids = [bindparam(name, type_=Id) for name in _ID_NAMES[:count]]
    return DriverStatement(select(*_COLUMNS).where(products.c.account_id == _ACCOUNT, products.c.id.in_(ids)))


def product_from_row(row: Sequence[Any]) -> Product:
    """A product from a row of `_COLUMNS` (by position)."""
    id, knowledge_base_id, name, description, sku, category, price, currency, stock_quantity = row[:9]
    image_url, is_available, product_attributes, media_file_ids, created_at, updated_at = row[9:15]
    return Product(
        id=id,
        knowledge_base_id=knowledge_base_id,
        name=name,
        description=description,
        sku=sku,
        category=category,
        price=price,
        currency=currency,
        stock_quantity=stock_quantity,
        image_url=image_url,
        is_available=is_available,
        product_attributes=product_attributes,
        media_file_ids=tuple(media_file_ids),
        created_at=created_at,
        updated_at=updated_at,
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
                media_file_ids=draft.media_file_ids,
                created_at=now,
                updated_at=now,
            )
            for product_id, draft in zip(ids.scalars(), drafts, strict=True)
        ]

    def get(self, product_id: int) -> Product | None:
        rows = numeric_rows(self._conn, _BY_ID, {"account": self._account_id, "product": product_id})
        return product_from_row(rows[0]) if rows else None

    def get_many(self, product_ids: Collection[int]) -> Mapping[int, Product]:
        if not product_ids:
            return {}
        ids = sorted(set(product_ids))
        if len(ids) > MANY_ON_CURSOR:
            rows = self._conn.execute(select(*_COLUMNS).where(self.owned(products), products.c.id.in_(ids))).all()
        else:
            # Rounded up to a power of two, the list padded with its last id (IN ignores repeats).
            count = 1 << (len(ids) - 1).bit_length()
            params: dict[str, Any] = dict(zip(_ID_NAMES, ids + ids[-1:] * (count - len(ids)), strict=False))
            params["account"] = self._account_id
            rows = numeric_rows(self._conn, _by_ids(count), params)
        return {row[0]: product_from_row(row) for row in rows}

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

    def unlink_media(self, media_id: int, now: datetime) -> int:
        # The ids are a JSON list: its text narrows the rows on both engines, the list decides.
        linking = self._conn.execute(
            select(products.c.id, products.c.media_file_ids).where(
                self.owned(products), cast(products.c.media_file_ids, String).contains(str(media_id))
            )
        ).all()
        changed = 0
        for product_id, ids in linking:
            if media_id in ids:
                kept = [i for i in ids if i != media_id]
                self._conn.execute(
                    update(products).where(self._this(product_id)).values(media_file_ids=kept, updated_at=now)
                )
                changed += 1
        return changed

    def take_stock(self, product_id: int, quantity: int) -> bool:
        params = {"account": self._account_id, "product": product_id, "quantity": quantity}
        return _TAKE_STOCK.execute(self._conn, params) == 1

    def restore_stock(self, product_id: int, quantity: int) -> bool:
        params = {"account": self._account_id, "product": product_id, "quantity": quantity}
        return _RESTORE_STOCK.execute(self._conn, {**params, "ceiling": STOCK_MAX - quantity}) == 1

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
            "media_file_ids": list(draft.media_file_ids),
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
