"""The plan in force for limit checks: one statement, the same rule as `ScheduledPlan.plan_at`."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engage_core.accounts.account_service import AccountService
from engage_core.partners.client_service import ClientPatch
from engage_core.plans.entitlements import Entitlements
from engage_core.testing import FakeClock
from engage_sql import Database

from .partner_support import PartnerServices, client_input, partner_services


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database, clock)


@pytest.fixture
def partner_id(partner: PartnerServices) -> int:
    return partner.partners.create("Reseller", "ops@reseller.example").partner.id


@pytest.fixture
def entitlements(database: Database, clock: FakeClock) -> Entitlements:
    return Entitlements(database.uow, clock, "pro")


def test_reading_the_plan_in_force_is_one_statement(
    database: Database, clock: FakeClock, entitlements: Entitlements, statements: list[str]
) -> None:
    """`plan_of` runs exactly one SQL statement."""
    account_id = AccountService(database.uow, clock).create("Acme").account.id
    statements.clear()

    entitlements.plan_of(account_id)

    assert len(statements) == 1


def test_a_workspace_without_a_partner_is_on_the_default_plan(
    database: Database, clock: FakeClock, entitlements: Entitlements
) -> None:
    """No client row: the configured default plan."""
    account_id = AccountService(database.uow, clock).create("Acme").account.id

    assert entitlements.plan_of(account_id).slug == "pro"


def test_a_client_is_on_its_plan_until_the_boundary_of_a_pending_one(
    partner: PartnerServices, partner_id: int, entitlements: Entitlements, clock: FakeClock
) -> None:
    """Before `pending_from` the client's plan; from that instant on, the pending one."""
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    pending = partner.clients.update(partner_id, client.id, ClientPatch(plan="business"))
    assert pending.schedule.pending_from is not None
    clock.set(pending.schedule.pending_from - timedelta(microseconds=1))
    before = entitlements.plan_of(client.id)
    clock.set(pending.schedule.pending_from)

    assert (before.slug, entitlements.plan_of(client.id)) == ("starter", partner.plans.get("business"))
