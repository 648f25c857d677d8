"""Plans on SQL only: a migrated database holds the seed plans (the rest is in
tests/contract/test_contract_plans.py)."""

from __future__ import annotations

from collections.abc import Callable

from engage_core.plans.model import SEED_PLANS
from engage_sql import Database


def test_migrated_database_holds_the_seed_plans(make_database: Callable[..., Database]) -> None:
    """A freshly migrated database lists exactly `SEED_PLANS`, ascending id."""
    database = make_database()

    with database.uow.partners(readonly=True) as uow:
        assert list(uow.plans.list()) == list(SEED_PLANS)
