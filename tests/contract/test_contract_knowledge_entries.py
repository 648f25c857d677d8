"""Knowledge-base entries of every type on every adapter: a text entry's content, the filtered and
paged list, updates, deletion with everything the entry holds, and chunks appended and removed one
by one (renumbered)."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest
from support import NOW

from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.chunking import ChunkDraft, chunk_records
from engage_core.knowledge.entries import TextInput
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseEntry, KnowledgeBaseFilter
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.unit_of_work import UnitOfWorkFactory

LATER = NOW.replace(hour=13)
PAGE = PageRequest(1, 25)


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(uow: UnitOfWorkFactory, account: int, draft: KnowledgeBaseDraft) -> KnowledgeBaseEntry:
    with uow.workspace(account) as unit:
        entry = unit.knowledge_base.add(draft, NOW)
        unit.commit()
    return entry


def test_a_text_entrys_content_reads_back(uow: UnitOfWorkFactory, account: int) -> None:
    """The content stored with a text entry is read apart from it."""
    entry = _add(uow, account, KnowledgeBaseDraft("Hours", "text", content="We open at 7."))

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.content(entry.id) == "We open at 7."


def test_another_accounts_content_is_none(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Content of another account's entry reads as None."""
    entry = _add(uow, other, KnowledgeBaseDraft("Theirs", "text", content="secret"))

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.content(entry.id) is None


def test_find_filters_by_type_and_status_newest_first(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """The list holds the account's matching entries, newest first."""
    first = _add(uow, account, KnowledgeBaseDraft("A", "text", content="a"))
    second = _add(uow, account, KnowledgeBaseDraft("B", "text", status="inactive", content="b"))
    _add(uow, account, KnowledgeBaseDraft("C", "product_catalog"))
    _add(uow, other, KnowledgeBaseDraft("D", "text", content="d"))

    with uow.workspace(account, readonly=True) as unit:
        texts = unit.knowledge_base.find(KnowledgeBaseFilter(type="text"), PAGE)
        inactive = unit.knowledge_base.find(KnowledgeBaseFilter(status="inactive"), PAGE)
    assert ([e.id for e in texts.items], texts.total) == ([second.id, first.id], 2)
    assert [e.id for e in inactive.items] == [second.id]


def test_find_pages(uow: UnitOfWorkFactory, account: int) -> None:
    """A page holds `per_page` entries at its offset; the total counts them all."""
    ids = [_add(uow, account, KnowledgeBaseDraft(f"E{n}", "product_catalog")).id for n in range(5)]

    with uow.workspace(account, readonly=True) as unit:
        page = unit.knowledge_base.find(KnowledgeBaseFilter(), PageRequest(2, 2))
    assert ([e.id for e in page.items], page.total) == ([ids[2], ids[1]], 5)


def test_update_stores_the_fields_and_the_content(uow: UnitOfWorkFactory, account: int) -> None:
    """An update writes the shared fields, and the content when given."""
    entry = _add(uow, account, KnowledgeBaseDraft("Hours", "text", content="old"))
    changed = attrs.evolve(entry, title="New", description="d", status="inactive", updated_at=LATER)

    with uow.workspace(account) as unit:
        unit.knowledge_base.update(changed, "new")
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.get(entry.id) == changed
        assert unit.knowledge_base.content(entry.id) == "new"


def test_delete_removes_the_entry_chunks_and_products(uow: UnitOfWorkFactory, services: Services, account: int) -> None:
    """Deleting an entry takes its chunks and a catalogue's products with it."""
    catalog = services.knowledge_base.create_catalog(account, CatalogInput("Menu", csv_file="product_name\nMug\n"))
    entry = catalog.knowledge_base
    with uow.workspace(account) as unit:
        unit.knowledge_chunks.replace(entry.id, chunk_records(["mug"]), NOW)
        assert unit.knowledge_base.delete(entry.id) is True
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.get(entry.id) is None
        assert unit.knowledge_chunks.count(entry.id) == 0
        assert unit.products.get(catalog.products[0].id) is None


def test_delete_of_another_accounts_entry_is_false(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """An entry of another account is not deleted."""
    entry = _add(uow, other, KnowledgeBaseDraft("Theirs", "product_catalog"))

    with uow.workspace(account) as unit:
        assert unit.knowledge_base.delete(entry.id) is False
        unit.commit()
    with uow.workspace(other, readonly=True) as unit:
        assert unit.knowledge_base.get(entry.id) is not None


def test_an_appended_chunk_goes_last_and_updates_every_total(uow: UnitOfWorkFactory, account: int) -> None:
    """The new chunk's index is the count before it; every chunk gets the new total; search finds it."""
    entry = _add(uow, account, KnowledgeBaseDraft("Menu", "text", content="x"))
    with uow.workspace(account) as unit:
        unit.knowledge_chunks.replace(entry.id, chunk_records(["mocha", "americano"]), NOW)
        added = unit.knowledge_chunks.append(entry.id, ChunkDraft("cortado", 0, 1, "Menu", ("cortado",)), LATER)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        chunks = unit.knowledge_chunks.for_entry(entry.id)
        hits = unit.knowledge_search.search("cortado")
    assert [(c.content, c.chunk_index, c.total_chunks) for c in chunks] == [
        ("mocha", 0, 3),
        ("americano", 1, 3),
        ("cortado", 2, 3),
    ]
    assert (added.chunk_index, added.keywords, [h.chunk_id for h in hits]) == (2, ("cortado",), [added.id])


def test_deleting_a_chunk_renumbers_the_rest(uow: UnitOfWorkFactory, account: int) -> None:
    """Later chunks move down one index and all carry the new total."""
    entry = _add(uow, account, KnowledgeBaseDraft("Menu", "text", content="x"))
    with uow.workspace(account) as unit:
        first, second, third = unit.knowledge_chunks.replace(entry.id, chunk_records(["a1", "b2", "c3"]), NOW)
        unit.knowledge_chunks.delete(second.id)
        unit.commit()

    with uow.workspace(account, readonly=True) as unit:
        chunks = unit.knowledge_chunks.for_entry(entry.id)
    assert [(c.id, c.chunk_index, c.total_chunks) for c in chunks] == [(first.id, 0, 2), (third.id, 1, 2)]


def test_a_text_entry_through_the_service_is_searchable(services: Services, account: int) -> None:
    """`create_text` stores the entry and its chunks in one transaction; search finds them."""
    entry = services.knowledge_entries.create_text(account, TextInput("Hours", "We open at 7 am."))

    found = services.knowledge_chunks.search(account, "when do you open")
    assert [h.knowledge_base_id for h in found.hits] == [entry.id]
