"""Products on SQL only: the schema's foreign key and stock check, and the one statement a stock
move costs (the rest is in tests/contract/test_contract_commerce.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from engage_core.commerce.products import Product, ProductDraft
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_sql import Database
from engage_sql.commerce.tables import products

from .conftest import START


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


@pytest.fixture
def catalog(database: Database, account: int) -> int:
    """A product catalog entry of `account`."""
    return _catalog(database, account)


def _catalog(database: Database, account: int) -> int:
    with database.uow.workspace(account) as uow:
        entry = uow.knowledge_base.add(KnowledgeBaseDraft("Menu", "product_catalog"), START)
        uow.commit()
    return entry.id


def _add(database: Database, account: int, catalog: int, *drafts: ProductDraft) -> Sequence[Product]:
    with database.uow.workspace(account) as uow:
        added = uow.products.add_many(catalog, drafts, START)
        uow.commit()
    return added


def test_products_cannot_join_another_accounts_catalog(database: Database, account: int, other: int) -> None:
    """The composite foreign key refuses a product in a catalog of another account."""
    theirs = _catalog(database, other)

    with pytest.raises(IntegrityError), database.uow.workspace(account) as uow:
        uow.products.add_many(theirs, [ProductDraft("Sneaky")], START)


def test_take_stock_is_one_conditional_update(
    database: Database, account: int, catalog: int, statements: list[str]
) -> None:
    """take_stock runs exactly one statement, an UPDATE: never a read followed by a write."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=5))

    with database.uow.workspace(account) as uow:
        statements.clear()
        uow.products.take_stock(product.id, 1)
        ran = list(statements)

    assert len(ran) == 1 and ran[0].lstrip().upper().startswith("UPDATE PRODUCTS")


def test_schema_refuses_negative_stock(database: Database, account: int, catalog: int) -> None:
    """Even a statement that bypasses take_stock cannot drive tracked stock below zero."""
    (product,) = _add(database, account, catalog, ProductDraft("Tea", stock_quantity=1))

    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(update(products).where(products.c.id == product.id).values(stock_quantity=-1))
