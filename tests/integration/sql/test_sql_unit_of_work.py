"""Units of work on SQL only: the time an outbox row was written, and units of work in parallel threads
(the transaction rules every adapter follows are in tests/contract/test_contract_unit_of_work.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import select

from engage_core.kernel.events import DomainEvent
from engage_core.testing import FakeClock
from engage_sql import Database
from engage_sql.webhooks.tables import events

from .conftest import START


def _event(name: str = "contact.created", contact_name: str = "Ada") -> DomainEvent:
    return DomainEvent(name, {"id": 1, "name": contact_name, "tags": ["VIP"]}, START)


def test_outbox_rows_record_when_they_were_written(make_database: Callable[..., Database]) -> None:
    """Each outbox row records the adapter's clock at commit as well as the event's own time."""
    adapter_clock = FakeClock(datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=UTC))
    database = make_database(clock=adapter_clock)
    with database.uow.admin() as admin:
        account = admin.accounts.add("Acme", "0" * 64, "eng_abcd…", START).id
        admin.commit()
    with database.uow.workspace(account) as uow:
        uow.emit(_event())
        uow.commit()

    with database.engine.connect() as connection:
        row = connection.execute(select(events.c.occurred_at, events.c.created_at)).one()
    assert tuple(row) == (START, adapter_clock.now())


def test_units_of_work_run_in_parallel_threads(database: Database, account: int) -> None:
    """The factory is shared by threads; each unit of work has its own connection."""
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(5):
                with database.uow.workspace(account) as uow:
                    uow.lists.add(f"List {n}.{i}", START)
                    uow.commit()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (errors, len(uow.lists.list())) == ([], 40)
