"""Factories for the SQL adapter tests: the real services over a real database, and a clock that stands still."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event

from engage_core.contacts.model import Contact, ContactInput
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_sql import Database

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    return Services.build(database.uow, clock)


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
    numbers = itertools.count(1)

    def make(account_id: int | None = None, **fields: Any) -> Contact:
        n = next(numbers)
        data: dict[str, Any] = {"name": f"Contact {n}", "type": "whatsapp", "phone": f"+96650{n:07d}"} | fields
        return services.contacts.create(account if account_id is None else account_id, ContactInput(**data))

    return make


@pytest.fixture
def statements(database: Database) -> Iterator[list[str]]:
    """Every SQL statement the database runs from here on, in order."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(database.engine, "before_cursor_execute", record)
    yield seen
    event.remove(database.engine, "before_cursor_execute", record)


@pytest.fixture
def commits(database: Database) -> Iterator[list[int]]:
    """One entry per COMMIT the database runs from here on."""
    seen: list[int] = []

    def record(_connection: Any) -> None:
        seen.append(1)

    event.listen(database.engine, "commit", record)
    yield seen
    event.remove(database.engine, "commit", record)


@pytest.fixture
def sqlite(backend: str) -> None:
    """Skips on PostgreSQL: for what only SQLite has (group commit, the write lane)."""
    if backend != "sqlite":
        pytest.skip("SQLite only: PostgreSQL commits concurrent transactions concurrently")


@pytest.fixture
def batch(sqlite: None, database: Database) -> Callable[[], contextlib.AbstractContextManager[None]]:
    """`with batch():` the units of work of this thread share one transaction, as on the write lane."""
    groups = database.uow.write_groups
    assert groups is not None
    return groups.batch
