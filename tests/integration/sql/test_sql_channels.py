"""Channel settings on SQL only: the unique indexes of the schema, and a locked read against a
concurrent change (the rest is in tests/contract/test_contract_messaging.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import attrs
import pytest
from sqlalchemy.exc import IntegrityError

from engage_core.kernel.errors import Conflict
from engage_core.messaging.channels import ChannelAccount, ChannelDraft
from engage_sql import Database

from .conftest import START

DEADLINE_SECONDS = 120.0


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def _add(database: Database, account: int, draft: ChannelDraft) -> ChannelAccount:
    with database.uow.workspace(account) as uow:
        channel = uow.channels.add(draft, START)
        uow.commit()
    return channel


def test_a_second_setting_of_a_type_is_refused_by_the_schema(database: Database, account: int) -> None:
    """The unique index on (account_id, type) refuses it; the repository says so with a 409."""
    _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    with pytest.raises(Conflict):
        _add(database, account, ChannelDraft("whatsapp", "acc-2"))


def test_a_provider_account_has_one_setting_across_accounts(database: Database, account: int, other: int) -> None:
    """The unique index on provider_account_id spans accounts."""
    _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    with pytest.raises(IntegrityError):
        _add(database, other, ChannelDraft("whatsapp", "acc-1"))


def test_a_write_reads_a_setting_only_after_a_concurrent_change_commits(database: Database, account: int) -> None:
    """A reader in a write unit of work sees the change another one was making (a locked read on
    PostgreSQL; SQLite's writers take turns)."""
    added = _add(database, account, ChannelDraft("whatsapp", "acc-1"))
    reading = threading.Event()

    def change_slowly() -> None:
        with database.uow.workspace(account) as uow:
            current = uow.channels.by_provider_account("acc-1")
            assert current is not None
            reading.set()
            time.sleep(0.3)  # the other transaction tries to read meanwhile
            uow.channels.update(attrs.evolve(current, sync_status="OK", is_connected=True))
            uow.commit()

    def read_for_writing() -> ChannelAccount | None:
        reading.wait(timeout=30)
        with database.uow.workspace(account) as uow:
            return uow.channels.by_type("whatsapp")

    with ThreadPoolExecutor(2) as pool:
        changer, reader = pool.submit(change_slowly), pool.submit(read_for_writing)
        changer.result(timeout=DEADLINE_SECONDS)
        seen = reader.result(timeout=DEADLINE_SECONDS)
    assert seen == attrs.evolve(added, sync_status="OK", is_connected=True)
