"""Admissions kept between requests on PostgreSQL (`engage_sql.accounts.admissions`), forgotten on any change."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import timedelta

import pytest
from partner_workspace import PartnerServices, client_input, partner_services
from sqlalchemy import text

from engage_core.accounts.account_service import AccountService
from engage_core.accounts.keys import digest_key, generate_key
from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.partners.client_service import ClientPatch
from engage_core.testing import FakeClock
from engage_sql import Database, notices
from engage_sql.accounts.admissions import CHANNEL
from engage_sql.notices import NoticeListener


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    """Until `condition()` holds; fails after `timeout` seconds (a notice crosses processes)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


@pytest.fixture
def accounts(database: Database, clock: FakeClock, backend: str) -> AccountService:
    if backend != "postgres":
        pytest.skip("SQLite keeps no admissions")
    return AccountService(database.uow, clock, "pro")


@pytest.fixture
def listener(database: Database, accounts: AccountService) -> Iterator[NoticeListener]:
    """A running listener of the database's admission changes, listening once this returns."""
    started = database.admission_listener()
    assert started is not None
    started.start()
    wait_for(lambda: _listeners(database) == 1)
    yield started
    started.stop()


@pytest.fixture
def elsewhere(make_database: Callable[..., Database], database: Database) -> Iterator[Database]:
    """Another process's view of the same database: its own engine and cache."""
    other = Database.connect(database.engine.url.render_as_string(hide_password=False))
    yield other
    other.dispose()


def _listening_backends(database: Database) -> set[int]:
    """The pids of the backends of this database that listen for admission changes."""
    with database.engine.connect() as connection:
        query = text("SELECT pid FROM pg_stat_activity WHERE query = :q AND datname = current_database()")
        return set(connection.execute(query, {"q": f"LISTEN {CHANNEL}"}).scalars())


def _listeners(database: Database) -> int:
    return len(_listening_backends(database))


def _reads(statements: list[str]) -> int:
    return len([statement for statement in statements if "key_digest" in statement])


def _refused(accounts: AccountService, key: str) -> bool:
    try:
        accounts.admit(key)
    except (Unauthenticated, Forbidden):
        return True
    return False


def test_without_a_listener_every_admission_reads(accounts: AccountService, statements: list[str]) -> None:
    """Nothing is kept while no listener hears the changes: each admission is a statement."""
    key = accounts.create("Acme").api_key
    statements.clear()

    accounts.admit(key)
    accounts.admit(key)

    assert _reads(statements) == 2


def test_with_a_listener_a_kept_admission_reads_nothing(
    accounts: AccountService, listener: NoticeListener, statements: list[str]
) -> None:
    """A key admitted once is admitted again without a statement."""
    key = accounts.create("Acme").api_key
    statements.clear()

    first, second = accounts.admit(key), accounts.admit(key)

    assert (_reads(statements), first) == (1, second)


def test_a_key_rotated_by_this_process_is_refused_at_once(accounts: AccountService, listener: NoticeListener) -> None:
    """The process that rotates a key refuses the old one on the very next admission."""
    issued = accounts.create("Acme")
    accounts.admit(issued.api_key)

    accounts.rotate_key(issued.account.id)

    with pytest.raises(Unauthenticated):
        accounts.admit(issued.api_key)


def test_a_deactivation_by_another_process_is_heard(
    accounts: AccountService, listener: NoticeListener, elsewhere: Database, clock: FakeClock
) -> None:
    """An account deactivated through another process is refused here once its notice arrives."""
    issued = accounts.create("Acme")
    accounts.admit(issued.api_key)

    AccountService(elsewhere.uow, clock, "pro").set_active(issued.account.id, False)

    wait_for(lambda: _refused(accounts, issued.api_key))


def test_a_plan_changed_in_sql_is_heard(accounts: AccountService, listener: NoticeListener, database: Database) -> None:
    """A plan changed by hand (psql) reaches the kept admissions of the plan's workspaces."""
    key = accounts.create("Acme").api_key
    before = accounts.admit(key).plan
    assert before is not None

    with database.engine.connect() as connection:
        connection.execute(text("UPDATE plans SET name = 'Renamed' WHERE slug = :slug"), {"slug": before.slug})
        connection.commit()

    wait_for(lambda: (accounts.admit(key).plan or before).name == "Renamed")


def test_a_suspension_by_a_partner_elsewhere_is_heard(
    accounts: AccountService, listener: NoticeListener, elsewhere: Database, clock: FakeClock
) -> None:
    """A client suspended through another process's partner services is refused here."""
    partner = partner_services(elsewhere.uow, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input()).client
    key = accounts.rotate_key(client.id).api_key
    accounts.admit(key).plan_to_run_on()

    partner.clients.suspend(partner_id, client.id)

    wait_for(lambda: accounts.admit(key).suspended)


def test_a_kept_admission_honours_its_plans_boundary(
    database: Database, accounts: AccountService, listener: NoticeListener, clock: FakeClock
) -> None:
    """A pending plan change takes effect at its boundary, with no notice at that moment."""
    partner: PartnerServices = partner_services(database.uow, clock)
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business"))
    assert pending.schedule.pending_from is not None
    key = accounts.rotate_key(client.id).api_key
    clock.set(pending.schedule.pending_from - timedelta(microseconds=1))
    before = accounts.admit(key).plan

    clock.set(pending.schedule.pending_from)
    after = accounts.admit(key).plan

    assert (before and before.slug, after and after.slug) == ("starter", "business")


def test_an_unknown_key_is_never_kept(
    accounts: AccountService, listener: NoticeListener, statements: list[str]
) -> None:
    """A refused key is read again each time: guessing keys cannot fill the cache."""
    unknown = generate_key().plaintext  # well formed, so it reaches the database
    statements.clear()

    for _ in range(2):
        with pytest.raises(Unauthenticated):
            accounts.admit(unknown)

    assert _reads(statements) == 2


def test_a_writing_unit_of_work_reads_its_own_admission(
    database: Database, accounts: AccountService, listener: NoticeListener, clock: FakeClock
) -> None:
    """Inside a transaction that deactivated the account, admission sees the change, not the kept one."""
    issued = accounts.create("Acme")
    accounts.admit(issued.api_key)  # kept
    with database.uow.admin() as uow:
        uow.accounts.set_active(issued.account.id, False, clock.now())
        found = uow.accounts.admission(digest_key(issued.api_key), clock.now(), "pro")

    assert found is not None and found[0].account.is_active is False


def test_a_stopped_listener_leaves_nothing_kept(
    accounts: AccountService, listener: NoticeListener, statements: list[str]
) -> None:
    """Once its listener stops, the process reads every admission again."""
    key = accounts.create("Acme").api_key
    accounts.admit(key)
    listener.stop()
    statements.clear()

    accounts.admit(key)

    assert _reads(statements) == 1


def test_a_listener_whose_connection_dropped_hears_again(
    database: Database, accounts: AccountService, listener: NoticeListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listener's connection terminated by the server comes back, and changes are heard again."""
    monkeypatch.setattr(notices, "RECONNECT_SECONDS", 0.05)
    issued = accounts.create("Acme")
    accounts.admit(issued.api_key)
    dropped = _listening_backends(database)
    with database.engine.connect() as connection:
        connection.execute(text("SELECT pg_terminate_backend(pid) FROM unnest(:pids) AS pid"), {"pids": list(dropped)})
        connection.commit()
    wait_for(lambda: len(_listening_backends(database) - dropped) == 1)

    with database.engine.connect() as connection:
        connection.execute(text("UPDATE accounts SET is_active = false WHERE id = :id"), {"id": issued.account.id})
        connection.commit()

    wait_for(lambda: _refused(accounts, issued.api_key))
