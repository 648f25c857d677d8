"""Factories shared by the unit tests: a clock, the in-memory storage, the services, and helpers
that create an account or a contact in one line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engage_core.contacts import Contact
from engage_core.services import Services
from engage_core.services.contacts import ContactInput
from engage_core.testing import FakeClock, InMemoryStore, InMemoryUnitOfWorkFactory

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
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock) -> Services:
    return Services.build(uow, clock)


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
