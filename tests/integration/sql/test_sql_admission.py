"""Admission in SQL: a workspace key, its suspension and its plan in force, in one statement."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from partner_workspace import PartnerServices, client_input, partner_services

from engage_core.accounts.account_service import AccountService
from engage_core.accounts.model import Admission
from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.partners.client_service import ClientPatch
from engage_core.testing import FakeClock
from engage_sql import Database

Admit = Callable[[int], Admission]


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database.uow, clock)


@pytest.fixture
def accounts(database: Database, clock: FakeClock) -> AccountService:
    return AccountService(database.uow, clock, "pro")


@pytest.fixture
def partner_id(partner: PartnerServices) -> int:
    return partner.partners.create("Reseller", "ops@reseller.example").partner.id


@pytest.fixture
def admit(accounts: AccountService) -> Admit:
    """`admit(account id) -> Admission`, through a freshly issued key of the account."""
    return lambda account_id: accounts.admit(accounts.rotate_key(account_id).api_key)


def test_admission_is_one_statement(accounts: AccountService, statements: list[str]) -> None:
    """Admitting a key runs exactly one SQL statement, whatever the unit of work around it."""
    key = accounts.create("Acme").api_key
    statements.clear()

    accounts.admit(key)

    assert len(statements) == 1


def test_admissions_of_one_key_in_a_batch_read_once(
    accounts: AccountService, statements: list[str], batch: Any
) -> None:
    """Ten admissions of the same key in one transaction run one statement."""
    key = accounts.create("Acme").api_key
    statements.clear()

    with batch():
        admitted = {accounts.admit(key).account.id for _ in range(10)}

    assert (len(admitted), len([s for s in statements if "key_digest" in s])) == (1, 1)


def test_a_key_rotated_in_a_batch_is_refused_after_the_rotation(accounts: AccountService, batch: Any) -> None:
    """In one transaction, the old key admits before a rotation and is refused after it."""
    issued = accounts.create("Acme")

    with batch():
        before = accounts.admit(issued.api_key)
        accounts.rotate_key(issued.account.id)
        with pytest.raises(Unauthenticated):
            accounts.admit(issued.api_key)

    assert before.account.id == issued.account.id


def test_a_deactivation_in_a_batch_is_seen_by_the_next_admission(accounts: AccountService, batch: Any) -> None:
    """In one transaction, deactivating the account makes the next admission a 403."""
    issued = accounts.create("Acme")

    with batch():
        accounts.admit(issued.api_key)
        accounts.set_active(issued.account.id, False)
        with pytest.raises(Forbidden):
            accounts.admit(issued.api_key)


def test_a_pending_plan_boundary_crossed_in_a_batch_is_seen(
    partner: PartnerServices, partner_id: int, accounts: AccountService, clock: FakeClock, batch: Any
) -> None:
    """In one transaction, an admission after the pending plan's boundary runs on the pending plan."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business"))
    assert pending.schedule.pending_from is not None
    key = accounts.rotate_key(client.id).api_key
    clock.set(pending.schedule.pending_from - timedelta(microseconds=1))

    with batch():
        before = accounts.admit(key).plan
        clock.set(pending.schedule.pending_from)
        after = accounts.admit(key).plan

    assert (before and before.slug, after and after.slug) == ("starter", "business")


def test_a_suspension_in_a_batch_is_seen_by_the_next_admission(
    partner: PartnerServices, partner_id: int, accounts: AccountService, batch: Any
) -> None:
    """In one transaction, suspending the client makes the next admission a suspended one."""
    client = partner.clients.create(partner_id, client_input()).client
    key = accounts.rotate_key(client.id).api_key

    with batch():
        before = accounts.admit(key).suspended
        partner.clients.suspend(partner_id, client.id)
        after = accounts.admit(key).suspended

    assert (before, after) == (False, True)


def test_an_admission_is_not_kept_past_its_batch(accounts: AccountService, batch: Any) -> None:
    """A key admitted in one batch and rotated between batches is refused in the next batch."""
    issued = accounts.create("Acme")
    with batch():
        accounts.admit(issued.api_key)
    accounts.rotate_key(issued.account.id)

    with batch(), pytest.raises(Unauthenticated):
        accounts.admit(issued.api_key)
