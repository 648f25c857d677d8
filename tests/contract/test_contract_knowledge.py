"""The knowledge base: entries through their repository, and catalogs through the knowledge-base
service, on every adapter."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import NOW

from engage_core.commerce.products import ProductInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.knowledge.model import KB_TYPES, KnowledgeBaseDraft, KnowledgeBaseEntry
from engage_core.knowledge.service import CatalogInput, ProductsInput
from engage_core.services import Services
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(uow: UnitOfWorkFactory, account: int, draft: KnowledgeBaseDraft) -> KnowledgeBaseEntry:
    with uow.workspace(account) as unit:
        entry = unit.knowledge_base.add(draft, NOW)
        unit.commit()
    return entry


def test_added_entry_reads_back_equal(uow: UnitOfWorkFactory, account: int) -> None:
    """Every field of an added entry survives the round trip; it starts with no embedding."""
    draft = KnowledgeBaseDraft("Spring menu", "product_catalog", "What we sell", "Quote prices exactly", "inactive")

    entry = _add(uow, account, draft)

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.get(entry.id) == entry
    assert (entry.title, entry.type, entry.description, entry.business_description, entry.status) == (
        "Spring menu",
        "product_catalog",
        "What we sell",
        "Quote prices exactly",
        "inactive",
    )
    assert (entry.embedding_updated_at, entry.created_at, entry.updated_at) == (None, NOW, NOW)


@pytest.mark.parametrize("kind", KB_TYPES)
def test_every_entry_type_is_stored(uow: UnitOfWorkFactory, account: int, kind: str) -> None:
    """The one table holds entries of each of the five types."""
    entry = _add(uow, account, KnowledgeBaseDraft("Entry", kind))

    with uow.workspace(account, readonly=True) as unit:
        found = unit.knowledge_base.get(entry.id)
    assert found is not None and found.type == kind


def test_missing_entry_is_none(uow: UnitOfWorkFactory, account: int) -> None:
    """An id that was never used reads as None."""
    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.get(4242) is None


def test_other_accounts_entry_is_none(uow: UnitOfWorkFactory, account: int, other: int) -> None:
    """Another account's entry id reads as None."""
    entry = _add(uow, other, KnowledgeBaseDraft("Theirs", "text"))

    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.get(entry.id) is None


def test_catalog_creation_records_its_event(
    services: Services, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Creating a catalog commits the entry, its products and `knowledge_base.created` together."""
    result = services.knowledge_base.create_catalog(account, CatalogInput("Menu", products=[ProductInput("Tea")]))

    assert [(e.name, e.payload) for e in outbox_events(account)] == [
        ("knowledge_base.created", result.knowledge_base.event_payload())
    ]
    assert [p.name for p in services.knowledge_base.catalog_products(account, result.knowledge_base.id)] == ["Tea"]


def test_a_draft_with_title_and_type_only_reads_back_active_without_descriptions(
    uow: UnitOfWorkFactory, account: int
) -> None:
    """The optional fields of a draft are stored as None, and the status as `active`."""
    entry = _add(uow, account, KnowledgeBaseDraft("Notes", "text"))

    with uow.workspace(account, readonly=True) as unit:
        found = unit.knowledge_base.get(entry.id)

    assert found is not None and (found.description, found.business_description, found.status) == (
        None,
        None,
        "active",
    )


def test_products_added_to_a_catalog_follow_its_earlier_ones(services: Services, account: int) -> None:
    """add_products() appends to the catalog: its products are listed in the order they were added."""
    created = services.knowledge_base.create_catalog(account, CatalogInput("Menu", products=[ProductInput("Tea")]))
    catalog = created.knowledge_base.id

    services.knowledge_base.add_products(account, catalog, ProductsInput([ProductInput("Cake"), ProductInput("Jam")]))

    assert [p.name for p in services.knowledge_base.catalog_products(account, catalog)] == ["Tea", "Cake", "Jam"]


def test_products_cannot_be_added_to_another_accounts_catalog(services: Services, account: int, other: int) -> None:
    """add_products() to a catalog of another account is NotFound."""
    theirs = services.knowledge_base.create_catalog(other, CatalogInput("Menu", products=[ProductInput("Cake")]))

    with pytest.raises(NotFound):
        services.knowledge_base.add_products(account, theirs.knowledge_base.id, ProductsInput([ProductInput("Tea")]))


def test_products_cannot_be_added_to_an_entry_that_is_no_catalog(
    uow: UnitOfWorkFactory, services: Services, account: int
) -> None:
    """add_products() to an entry of another type is refused on `type`."""
    entry = _add(uow, account, KnowledgeBaseDraft("Notes", "text"))

    with pytest.raises(ValidationFailed) as refused:
        services.knowledge_base.add_products(account, entry.id, ProductsInput([ProductInput("Tea")]))

    assert list(refused.value.errors) == ["type"]


def _catalog_chunks(services: Services, account: int, catalog_id: int) -> list[str]:
    return [chunk.content for chunk in services.knowledge_chunks.list(account, catalog_id).chunks]


def test_a_catalogue_has_one_chunk_per_product(services: Services, account: int) -> None:
    """Each product becomes one `field: value` chunk, so search can find it."""
    products = [ProductInput("Green tea", sku="GT-1", price=4.5), ProductInput("Kettle", category="Kitchen")]
    result = services.knowledge_base.create_catalog(account, CatalogInput("Shop", products=products))

    chunks = _catalog_chunks(services, account, result.knowledge_base.id)

    assert len(chunks) == 2
    assert "Product: Green tea" in chunks[0] and "SKU: GT-1" in chunks[0] and "Price: 4.50 USD" in chunks[0]


def test_adding_and_removing_products_re_chunks_the_catalogue(services: Services, account: int) -> None:
    """The chunks follow the products: added ones appear, a removed one goes."""
    created = services.knowledge_base.create_catalog(account, CatalogInput("Shop", products=[ProductInput("Tea")]))
    catalog_id = created.knowledge_base.id
    added = services.knowledge_base.add_products(account, catalog_id, ProductsInput([ProductInput("Coffee")]))
    services.knowledge_base.delete_product(account, catalog_id, created.products[0].id)

    chunks = _catalog_chunks(services, account, catalog_id)

    assert [c.splitlines()[0] for c in chunks] == ["Product: Coffee"] and added.products[0].name == "Coffee"


def test_a_product_is_found_by_search(services: Services, account: int) -> None:
    """A question about a product finds the catalogue's chunk of it."""
    services.knowledge_base.create_catalog(
        account, CatalogInput("Shop", products=[ProductInput("Ceramic teapot", price=25), ProductInput("Mug")])
    )

    result = services.knowledge_chunks.search(account, "How much is the ceramic teapot?")

    assert result.hits and "Ceramic teapot" in result.hits[0].content
