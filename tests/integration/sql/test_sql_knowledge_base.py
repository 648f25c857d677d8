"""Knowledge-base entries on SQL only: the schema's check of a type, and the cascades of a delete
made in the tables (the rest is in tests/contract/test_contract_knowledge.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError

from engage_core.commerce.products import ProductDraft
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_sql import Database
from engage_sql.accounts.tables import accounts
from engage_sql.knowledge.tables import knowledge_base_entries

from .conftest import START


def _add(database: Database, account: int, draft: KnowledgeBaseDraft) -> KnowledgeBaseEntry:
    with database.uow.workspace(account) as uow:
        entry = uow.knowledge_base.add(draft, START)
        uow.commit()
    return entry


def test_unknown_type_is_refused_by_the_schema(database: Database, account: int) -> None:
    """A type outside SPEC 2's five cannot be written, even bypassing the core."""
    row = {"account_id": account, "type": "podcast", "title": "x", "status": "active"}
    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(insert(knowledge_base_entries).values(**row, created_at=START, updated_at=START))


def test_deleting_an_entry_deletes_its_products(database: Database, account: int) -> None:
    """A catalog's products go with its entry."""
    entry = _add(database, account, KnowledgeBaseDraft("Menu", "product_catalog"))
    with database.uow.workspace(account) as uow:
        (product,) = uow.products.add_many(entry.id, [ProductDraft("Tea")], START)
        uow.commit()

    with database.engine.begin() as connection:
        connection.execute(delete(knowledge_base_entries).where(knowledge_base_entries.c.id == entry.id))

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.products.get(product.id) is None


def test_deleting_an_account_deletes_its_entries(database: Database, account: int) -> None:
    """Entries are deleted with their account."""
    entry = _add(database, account, KnowledgeBaseDraft("Menu", "text"))

    with database.engine.begin() as connection:
        connection.execute(delete(accounts).where(accounts.c.id == account))

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.knowledge_base.get(entry.id) is None
