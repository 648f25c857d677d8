"""Tags on SQL only: concurrent adds of one title (the rest is in tests/contract/test_contract_contacts.py)."""

from __future__ import annotations

import threading
import time

from engage_sql import Database

from .conftest import START


def test_concurrent_add_of_one_title_makes_one_tag(database: Database, account: int) -> None:
    """Two transactions adding the same title at once end with one tag, and neither fails."""
    results: list[int] = []

    def second() -> None:
        with database.uow.workspace(account) as uow:
            results.append(uow.tags.add("vip", START).id)
            uow.commit()

    with database.uow.workspace(account) as uow:
        first = uow.tags.add("VIP", START)
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.2)  # the second transaction now waits on the first (its lock or its unique key)
        uow.commit()
    thread.join(timeout=10)

    with database.uow.workspace(account, readonly=True) as uow:
        assert (results, [t.id for t in uow.tags.list()]) == ([first.id], [first.id])
