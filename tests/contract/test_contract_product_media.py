"""Products link files of the media library, on every adapter: the links are stored in order, must
be the account's own files, render in one lookup, and go when the file is deleted."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import NOW

from engage_core.commerce.products import MEDIA_FILES_MAX, ProductDraft, ProductInput
from engage_core.kernel.blobs import new_key
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.model import KnowledgeBaseDraft, KnowledgeBaseFilter
from engage_core.knowledge.service import CatalogInput, ProductsInput
from engage_core.media.model import MediaDraft
from engage_core.media.service import MediaService
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeMediaProber, InMemoryBlobStore
from engage_core.unit_of_work import UnitOfWorkFactory


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


@pytest.fixture
def media(uow: UnitOfWorkFactory, clock: FakeClock, services: Services) -> MediaService:
    return MediaService(uow, clock, InMemoryBlobStore(), FakeMediaProber(), services.entitlements)


def _files(uow: UnitOfWorkFactory, account: int, count: int = 2) -> list[int]:
    with uow.workspace(account) as unit:
        ids = [
            unit.media.add(
                MediaDraft(
                    f"Photo {n}", f"photo{n}.png", new_key("media", "png"), "image", "image/png", "png", 2048, None
                ),
                NOW,
            ).id
            for n in range(count)
        ]
        unit.commit()
    return ids


def _catalog(services: Services, account: int, *media_ids: int) -> int:
    data = CatalogInput("Menu", products=[ProductInput("Tea", price="2.50", media_file_ids=list(media_ids))])
    return services.knowledge_base.create_catalog(account, data).products[0].id


def _links(uow: UnitOfWorkFactory, account: int, product: int) -> tuple[int, ...]:
    with uow.workspace(account, readonly=True) as unit:
        found = unit.products.get(product)
    assert found is not None
    return found.media_file_ids


def test_links_are_stored_in_the_order_given(uow: UnitOfWorkFactory, account: int, services: Services) -> None:
    """A product keeps its media file ids in the order given, repeats dropped."""
    first, second = _files(uow, account)

    product = _catalog(services, account, second, first, second)

    assert _links(uow, account, product) == (second, first)


def test_another_accounts_file_is_refused(uow: UnitOfWorkFactory, account: int, other: int, services: Services) -> None:
    """Linking a file of another account is a 422 naming the product, and stores nothing."""
    foreign = _files(uow, other, 1)[0]

    with pytest.raises(ValidationFailed) as refused:
        _catalog(services, account, foreign)

    assert set(refused.value.errors) == {"products.0.media_file_ids"}
    with uow.workspace(account, readonly=True) as unit:
        assert unit.knowledge_base.find(KnowledgeBaseFilter(), PageRequest(1, 10)).total == 0


def test_appended_products_are_checked_too(uow: UnitOfWorkFactory, account: int, services: Services) -> None:
    """Products added to a catalog later may link only the account's existing files."""
    catalog = services.knowledge_base.create_catalog(account, CatalogInput("Menu", products=[ProductInput("Tea")]))
    data = ProductsInput([ProductInput("Cake"), ProductInput("Pie", media_file_ids=[999_999])])

    with pytest.raises(ValidationFailed) as refused:
        services.knowledge_base.add_products(account, catalog.knowledge_base.id, data)

    assert set(refused.value.errors) == {"products.1.media_file_ids"}


def test_more_than_the_maximum_is_refused(services: Services, account: int) -> None:
    """A product may link at most MEDIA_FILES_MAX files."""
    data = CatalogInput("Menu", products=[ProductInput("Tea", media_file_ids=list(range(1, MEDIA_FILES_MAX + 2)))])

    with pytest.raises(ValidationFailed) as refused:
        services.knowledge_base.create_catalog(account, data)

    assert set(refused.value.errors) == {"products.0.media_file_ids"}


def test_deleting_a_file_unlinks_it(
    uow: UnitOfWorkFactory, account: int, services: Services, media: MediaService
) -> None:
    """A deleted file leaves every product that linked it, the other links kept."""
    first, second = _files(uow, account)
    product = _catalog(services, account, first, second)

    media.delete(account, first)

    assert _links(uow, account, product) == (second,)


def test_unlinking_leaves_other_accounts_alone(
    uow: UnitOfWorkFactory, account: int, other: int, services: Services
) -> None:
    """Unlinking an id in one account does not touch another account's product holding the same id."""
    mine = _files(uow, account, 1)[0]
    product = _catalog(services, account, mine)
    with uow.workspace(other) as unit:
        entry = unit.knowledge_base.add(KnowledgeBaseDraft("Menu", "product_catalog"), NOW)
        theirs = unit.products.add_many(entry.id, [ProductDraft("Cake", media_file_ids=(mine,))], NOW)[0].id
        unit.commit()

    with uow.workspace(other) as unit:
        assert unit.products.unlink_media(mine, NOW) == 1
        unit.commit()

    assert (_links(uow, account, product), _links(uow, other, theirs)) == ((mine,), ())


def test_an_id_inside_another_is_not_unlinked(uow: UnitOfWorkFactory, account: int) -> None:
    """Unlinking file 1 keeps file 12 and 21 (the stored list is matched by id, not as text)."""
    with uow.workspace(account) as unit:
        entry = unit.knowledge_base.add(KnowledgeBaseDraft("Menu", "product_catalog"), NOW)
        product = unit.products.add_many(entry.id, [ProductDraft("Cake", media_file_ids=(12, 21))], NOW)[0].id
        changed = unit.products.unlink_media(1, NOW)
        unit.commit()

    assert (changed, _links(uow, account, product)) == (0, (12, 21))


def test_linked_files_are_read_for_many_products_at_once(
    uow: UnitOfWorkFactory, account: int, other: int, media: MediaService
) -> None:
    """`many` returns the account's files among the ids, with their URLs, and leaves others out."""
    mine = _files(uow, account)
    foreign = _files(uow, other, 1)

    found = media.many(account, [*mine, *foreign, 999_999])

    assert sorted(found) == sorted(mine)
    assert all(f.url for f in found.values())
