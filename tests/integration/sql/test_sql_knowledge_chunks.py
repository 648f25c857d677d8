"""Knowledge-base chunks on SQL only: the full-text index follows deletions made in the tables, and
a retriever made from a `Database` (the rest is in tests/contract/test_contract_knowledge_search.py)."""

from __future__ import annotations

from sqlalchemy import delete

from engage_core.knowledge.chunking import chunk_text
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_sql import Database
from engage_sql.accounts.tables import accounts
from engage_sql.knowledge.retriever import DatabaseRetriever
from engage_sql.knowledge.tables import knowledge_base_entries

from .conftest import START


def _entry(database: Database, account: int, text: str) -> int:
    with database.uow.workspace(account) as uow:
        entry = uow.knowledge_base.add(KnowledgeBaseDraft("Menu", "text"), START)
        uow.knowledge_chunks.replace(entry.id, chunk_text(text, title="Menu"), START)
        uow.commit()
    return entry.id


def test_a_retriever_made_from_a_database_searches_the_account(database: Database, account: int) -> None:
    """`DatabaseRetriever` opens its own read-only unit of work per search."""
    entry = _entry(database, account, "Cardamom coffee, brewed to order.")

    hits = DatabaseRetriever(database, account).search("cardamom")

    assert [(h.knowledge_base_id, h.context_header) for h in hits] == [(entry, "Menu")]


def test_deleting_an_entry_deletes_its_chunks_from_the_index(database: Database, account: int) -> None:
    """Chunks go with their entry (ON DELETE CASCADE), and so does their full-text index entry."""
    entry = _entry(database, account, "saffron latte")
    with database.engine.begin() as connection:
        connection.execute(delete(knowledge_base_entries).where(knowledge_base_entries.c.id == entry))
    _entry(database, account, "plain latte")

    assert [h.content for h in DatabaseRetriever(database, account).search("saffron latte")] == ["plain latte"]


def test_deleting_the_account_empties_its_index(database: Database, account: int) -> None:
    """An account's deletion cascades to its chunks; another account's search finds none of them."""
    _entry(database, account, "saffron latte")
    with database.engine.begin() as connection:
        connection.execute(delete(accounts).where(accounts.c.id == account))
        if connection.dialect.name == "sqlite":
            left = connection.exec_driver_sql(
                "SELECT count(*) FROM knowledge_base_chunks_fts WHERE knowledge_base_chunks_fts MATCH 'saffron'"
            ).scalar_one()
        else:
            left = connection.exec_driver_sql(
                "SELECT count(*) FROM knowledge_base_chunks WHERE search_vector @@ to_tsquery('simple', 'saffron')"
            ).scalar_one()

    assert left == 0
