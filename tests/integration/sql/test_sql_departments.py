"""Departments on SQL only: seeding the default counted in the table, and concurrent first listings
(the rest is in tests/contract/test_contract_support.py)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import func, select

from engage_core.services import Services
from engage_core.support.departments import Department
from engage_sql import Database
from engage_sql.support.tables import departments

from .conftest import START


def _rows(database: Database, account: int) -> int:
    with database.engine.connect() as connection:
        return int(
            connection.execute(
                select(func.count()).select_from(departments).where(departments.c.account_id == account)
            ).scalar_one()
        )


def _add(database: Database, account: int, title: str) -> Department:
    with database.uow.workspace(account) as uow:
        department = uow.departments.add(title, START)
        uow.commit()
    return department


def test_ensure_default_returns_the_lowest_id_when_departments_exist(database: Database, account: int) -> None:
    """With departments but none called General, the oldest is the default and nothing is seeded."""
    sales = _add(database, account, "Sales")
    _add(database, account, "Billing")

    with database.uow.workspace(account) as uow:
        assert uow.departments.ensure_default("General", START) == sales
        uow.commit()

    assert _rows(database, account) == 2


def test_concurrent_first_listings_seed_exactly_one_default(
    database: Database, services: Services, account: int
) -> None:
    """Twelve threads listing a workspace's departments for the first time at once leave one "General"."""
    threads = 12
    start = threading.Barrier(threads)

    def first_listing(_: int) -> list[str]:
        start.wait(timeout=30)
        return [d.title for d in services.departments.list(account)]

    with ThreadPoolExecutor(threads) as pool:
        seen = list(pool.map(first_listing, range(threads)))

    assert (seen, _rows(database, account)) == ([["General"]] * threads, 1)
