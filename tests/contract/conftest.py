"""Contract tests: every port family against the in-memory fakes and the SQL adapter alike.

`storage` is `memory` (the fakes of `engage_core.testing`, as users get them), `sqlite` or
`postgres` (the SQL adapter; PostgreSQL skipped, with its reason, unless ENGAGE_TEST_POSTGRES_URL is
set). `uow` is a `UnitOfWorkFactory` over an empty storage of that kind; `services` every use case
over it, with fakes for the outbound ports (`sandbox`, the messaging networks, and `mailer` among
them). `outbox_events`, `delivery_queue`, `job_queue` and `idempotency_store` are what each adapter
offers next to its units of work: the events committed to the outbox, the delivery log and the jobs
as the worker's queues, and the idempotency keys of the HTTP API. A contract test uses only these,
never an engine or a store's internals: what it asserts, every adapter must do. Helpers shared by
several suites are in `support.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engage_core.contacts.model import Contact, ContactInput
from engage_core.jobs.ports import JobQueue
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.idempotency import IdempotencyStore, InMemoryIdempotencyStore
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeMailer,
    FakePasswordHasher,
    FakeStorePlatform,
    InMemoryDeliveryQueue,
    InMemoryJobQueue,
    InMemoryUnitOfWorkFactory,
)
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.webhooks.ports import DeliveryQueue

STORAGES = ("memory", "sqlite", "postgres")


class _SqlStorages:
    """One migrated database per SQL backend for the session, emptied before each test."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._opened: dict[str, tuple[Any, Any, str]] = {}

    def database(self, backend: str) -> Any:
        from databases import open_test_databases, wipe

        from engage_sql import Database

        if backend not in self._opened:
            databases = open_test_databases(backend, self._directory / backend)
            url = databases.create()
            self._opened[backend] = (databases, Database.connect(url), url)
        database = self._opened[backend][1]
        wipe(database)
        return database

    def close(self) -> None:
        for databases, database, url in self._opened.values():
            database.dispose()
            databases.drop(url)
            databases.close()


@pytest.fixture(scope="session")
def _sql_storages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_SqlStorages]:
    directory = tmp_path_factory.mktemp("contract")
    for backend in ("sqlite", "postgres"):
        (directory / backend).mkdir()
    storages = _SqlStorages(directory)
    yield storages
    storages.close()


@pytest.fixture(
    params=[pytest.param(kind, marks=[pytest.mark.postgres] if kind == "postgres" else []) for kind in STORAGES]
)
def storage(request: pytest.FixtureRequest) -> str:
    """`memory`, `sqlite` or `postgres`."""
    from databases import POSTGRES_ENV, postgres_server_url

    kind: str = request.param
    if kind == "postgres" and postgres_server_url() is None:
        pytest.skip(f"{POSTGRES_ENV} is not set")
    return kind


@pytest.fixture
def _adapter(storage: str, _sql_storages: _SqlStorages) -> Any:
    """An empty storage of the kind under test: an `InMemoryUnitOfWorkFactory` or an `engage_sql.Database`."""
    if storage == "memory":
        return InMemoryUnitOfWorkFactory()
    return _sql_storages.database(storage)


@pytest.fixture
def uow(storage: str, _adapter: Any) -> UnitOfWorkFactory:
    """A unit-of-work factory over an empty storage of the kind under test."""
    factory: UnitOfWorkFactory = _adapter if storage == "memory" else _adapter.uow
    return factory


@pytest.fixture
def outbox_events(storage: str, _adapter: Any) -> Callable[..., list[DomainEvent]]:
    """`outbox_events(account_id=None) -> events`: committed to the outbox, oldest first; of one account, or of all."""
    if storage == "memory":
        events: Callable[..., list[DomainEvent]] = _adapter.store.events
        return events
    outbox: Callable[..., list[DomainEvent]] = _adapter.outbox_events
    return outbox


@pytest.fixture
def delivery_queue(storage: str, _adapter: Any) -> Iterator[DeliveryQueue]:
    """The delivery log of `uow` as the worker's queue, closed after the test."""
    queue: DeliveryQueue = InMemoryDeliveryQueue(_adapter.store) if storage == "memory" else _adapter.delivery_queue()
    yield queue
    queue.close()


@pytest.fixture
def job_queue(storage: str, _adapter: Any) -> Iterator[JobQueue]:
    """The jobs of `uow`, every account's, as the worker's queue; closed after the test."""
    queue: JobQueue = InMemoryJobQueue(_adapter.store) if storage == "memory" else _adapter.job_queue()
    yield queue
    queue.close()


@pytest.fixture
def idempotency_store(storage: str, _adapter: Any) -> IdempotencyStore:
    """The idempotency keys of the storage under test, none kept yet."""
    if storage == "memory":
        return InMemoryIdempotencyStore()
    store: IdempotencyStore = _adapter.idempotency_store()
    return store


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def sandbox(clock: FakeClock) -> SandboxGateway:
    """The offline messaging networks `services` reach (`scan`, `inject_message`, `outage`, ...)."""
    return SandboxGateway(clock)


@pytest.fixture
def mailer() -> FakeMailer:
    """The mailer `services` send invitations through: it records them in `sent`."""
    return FakeMailer()


@pytest.fixture
def services(uow: UnitOfWorkFactory, clock: FakeClock, sandbox: SandboxGateway, mailer: FakeMailer) -> Services:
    """Every use case over `uow`, with fakes for the outbound ports; the sandbox calls back into `inbox`."""
    built = Services.build(
        uow,
        clock,
        cipher=FakeCipher(),
        guard=AllowAllTargets(),
        store=FakeStorePlatform(),
        gateway=sandbox,
        hasher=FakePasswordHasher(),
        mailer=mailer,
    )
    sandbox.attach(built.inbox)
    return built


@pytest.fixture
def make_account(services: Services) -> Callable[..., int]:
    """`make_account(name="Acme") -> account id`."""

    def make(name: str = "Acme") -> int:
        return services.accounts.create(name).account.id

    return make


@pytest.fixture
def account(make_account: Callable[..., int]) -> int:
    return make_account()


@pytest.fixture
def make_contact(services: Services, account: int) -> Callable[..., Contact]:
    """`make_contact(account_id=account, **ContactInput fields) -> Contact`, with a fresh phone each time."""
    numbers = iter(range(1, 10_000))

    def make(account_id: int | None = None, **fields: Any) -> Contact:
        n = next(numbers)
        data: dict[str, Any] = {"name": f"Contact {n}", "type": "whatsapp", "phone": f"+96650{n:07d}"} | fields
        return services.contacts.create(account if account_id is None else account_id, ContactInput(**data))

    return make
