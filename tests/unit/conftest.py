"""Factories shared by the unit tests: a clock, the in-memory storage, the services, and helpers
that create an account or a contact in one line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ItemRequest, Order
from engage_core.commerce.products import Product, ProductInput
from engage_core.contacts.model import Contact, ContactInput
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeStorePlatform, InMemoryStore, InMemoryUnitOfWorkFactory

from .factories import START


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def uow() -> InMemoryUnitOfWorkFactory:
    return InMemoryUnitOfWorkFactory()


@pytest.fixture
def store(uow: InMemoryUnitOfWorkFactory) -> InMemoryStore:
    return uow.store


@pytest.fixture
def store_platform() -> FakeStorePlatform:
    return FakeStorePlatform()


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, store_platform: FakeStorePlatform) -> Services:
    return Services.build(uow, clock, store=store_platform)


@pytest.fixture
def new_account(services: Services) -> Callable[..., int]:
    """`new_account(name="Acme") -> account id`."""

    def make(name: str = "Acme") -> int:
        return services.accounts.create(name).account.id

    return make


@pytest.fixture
def account_id(new_account: Callable[..., int]) -> int:
    return new_account()


@pytest.fixture
def new_contact(services: Services, account_id: int) -> Callable[..., Contact]:
    """`new_contact(name="Ada", type="instagram", account=None, **fields) -> Contact`.

    Defaults to an instagram contact, which needs no phone."""

    def make(name: str = "Ada", type: str = "instagram", *, account: int | None = None, **fields: Any) -> Contact:
        data = ContactInput(name=name, type=type, **fields)
        return services.contacts.create(account_id if account is None else account, data)

    return make


@pytest.fixture
def new_product(services: Services, account_id: int) -> Callable[..., Product]:
    """`new_product(name="Tea", price="3.50", stock_quantity=10, account=None, **fields) -> Product`.

    Each call makes a one-product catalog. `stock_quantity=None` makes an untracked product."""

    def make(
        name: str = "Tea", price: Any = "3.50", stock_quantity: Any = 10, *, account: int | None = None, **fields: Any
    ) -> Product:
        product = ProductInput(product_name=name, price=price, stock_quantity=stock_quantity, **fields)
        result = services.knowledge_base.create_catalog(
            account_id if account is None else account, CatalogInput(title=f"{name} catalog", products=[product])
        )
        return result.products[0]

    return make


@pytest.fixture
def new_order(services: Services, account_id: int, new_product: Callable[..., Product]) -> Callable[..., Order]:
    """`new_order(*lines, customer_name="Ada", account=None, created_by="api", **fields) -> Order`.

    A line is a product (quantity 1) or a `(product, quantity)` pair; no lines orders one unit of a
    new product. Fails if the create returned a duplicate."""

    def make(
        *lines: Product | tuple[Product, int],
        customer_name: str | None = "Ada",
        account: int | None = None,
        created_by: str = "api",
        **fields: Any,
    ) -> Order:
        pairs = [line if isinstance(line, tuple) else (line, 1) for line in lines] or [(new_product(), 1)]
        items = [ItemRequest(product.id, quantity) for product, quantity in pairs]
        placed = services.orders.create(
            account_id if account is None else account,
            OrderInput(items=items, customer_name=customer_name, **fields),
            created_by=created_by,
        )
        assert not placed.is_duplicate
        return placed.order

    return make
