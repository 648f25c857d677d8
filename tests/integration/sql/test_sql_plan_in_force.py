"""The plan in force on SQL only: read in one statement (the rule itself is in
tests/contract/test_contract_plans.py)."""

from __future__ import annotations

import pytest

from engage_core.accounts.account_service import AccountService
from engage_core.plans.entitlements import Entitlements
from engage_core.testing import FakeClock
from engage_sql import Database


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
