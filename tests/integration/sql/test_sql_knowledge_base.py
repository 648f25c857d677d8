"""Knowledge-base entries through the SQL knowledge-base repository (reference: engage_core.testing)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError

from engage_core.commerce.products import ProductDraft, ProductInput
from engage_core.knowledge.model import KB_TYPES, KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_sql import Database
from engage_sql.accounts.tables import accounts
from engage_sql.knowledge.tables import knowledge_base_entries

from .conftest import START


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(database: Database, account: int, draft: KnowledgeBaseDraft) -> KnowledgeBaseEntry:
    with database.uow.workspace(account) as uow:
        entry = uow.knowledge_base.add(draft, START)
        uow.commit()
    return entry


def test_added_entry_reads_back_equal(database: Database, account: int) -> None:
    """Every field of an added entry survives the round trip; it starts with no embedding."""
    draft = KnowledgeBaseDraft("Spring menu", "product_catalog", "What we sell", "Quote prices exactly", "inactive")

    entry = _add(database, account, draft)

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.knowledge_base.get(entry.id) == entry
    assert (entry.title, entry.type, entry.description, entry.business_description, entry.status) == (
        "Spring menu",
        "product_catalog",
        "What we sell",
        "Quote prices exactly",
        "inactive",
    )
    assert (entry.embedding_updated_at, entry.created_at, entry.updated_at) == (None, START, START)


@pytest.mark.parametrize("kind", KB_TYPES)
def test_every_entry_type_is_stored(database: Database, account: int, kind: str) -> None:
    """The one table holds entries of each of the five types."""
    entry = _add(database, account, KnowledgeBaseDraft("Entry", kind))

    with database.uow.workspace(account, readonly=True) as uow:
        found = uow.knowledge_base.get(entry.id)
    assert found is not None and found.type == kind


def test_unknown_type_is_refused_by_the_schema(database: Database, account: int) -> None:
    """A type outside SPEC 2's five cannot be written, even bypassing the core."""
    row = {"account_id": account, "type": "podcast", "title": "x", "status": "active"}
    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(insert(knowledge_base_entries).values(**row, created_at=START, updated_at=START))


def test_missing_entry_is_none(database: Database, account: int) -> None:
    """An id that was never used reads as None."""
    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.knowledge_base.get(4242) is None


def test_other_accounts_entry_is_none(database: Database, account: int, other: int) -> None:
    """Another account's entry id reads as None."""
    entry = _add(database, other, KnowledgeBaseDraft("Theirs", "text"))

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.knowledge_base.get(entry.id) is None


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


def test_catalog_creation_records_its_event(database: Database, services: Services, account: int) -> None:
    """Creating a catalog commits the entry, its products and `knowledge_base.created` together."""
    result = services.knowledge_base.create_catalog(account, CatalogInput("Menu", products=[ProductInput("Tea")]))

    assert [(e.name, e.payload) for e in database.outbox_events(account)] == [
        ("knowledge_base.created", result.knowledge_base.event_payload())
    ]
    assert [p.name for p in services.knowledge_base.catalog_products(account, result.knowledge_base.id)] == ["Tea"]
