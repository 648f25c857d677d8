"""Plans in SQL: seeded by the migration, changed by the plan service, resolved per workspace."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest

from engage_core.kernel.errors import NotFound
from engage_core.partners.client_service import ClientPatch
from engage_core.plans.model import SEED_PLANS
from engage_core.plans.plan_service import PlanPatch
from engage_core.testing import FakeClock
from engage_sql import Database

from .partner_support import PartnerServices, client_input, partner_services


@pytest.fixture
def partner(database: Database, clock: FakeClock) -> PartnerServices:
    return partner_services(database, clock)


def test_migrated_database_holds_the_seed_plans(make_database: Callable[..., Database]) -> None:
    """A freshly migrated database lists exactly `SEED_PLANS`, ascending id."""
    database = make_database()

    with database.uow.partners(readonly=True) as uow:
        assert list(uow.plans.list()) == list(SEED_PLANS)


def test_by_slug_finds_a_plan_and_not_an_unknown_one(database: Database) -> None:
    """`by_slug` returns the stored plan, or None for a slug that is no plan."""
    with database.uow.partners(readonly=True) as uow:
        assert (uow.plans.by_slug("pro"), uow.plans.by_slug("gold")) == (SEED_PLANS[1], None)


def test_update_round_trips_name_limits_and_features(database: Database) -> None:
    """An updated plan reads back with its new name, limits and features."""
    changed = attrs.evolve(
        SEED_PLANS[0],
        name="Starter+",
        limits={**SEED_PLANS[0].limits, "contacts": 5},
        features=frozenset({"webhooks"}),
    )
    with database.uow.partners() as uow:
        uow.plans.update(changed)
        uow.commit()

    with database.uow.partners(readonly=True) as uow:
        assert uow.plans.by_slug("starter") == changed


def test_plan_service_update_merges_a_partial_patch(partner: PartnerServices) -> None:
    """The service changes only the limits and features named, and stores the result."""
    partner.plans.update("pro", PlanPatch(limits={"channels": 1}, features={"campaigns": False}))

    stored = partner.plans.get("pro")
    assert (stored.limit("channels"), stored.limit("contacts"), stored.has("campaigns"), stored.has("webhooks")) == (
        1,
        10_000,
        False,
        True,
    )


def test_unknown_plan_is_not_found(partner: PartnerServices) -> None:
    """Reading a plan that does not exist is NotFound."""
    with pytest.raises(NotFound):
        partner.plans.get("gold")


def test_workspace_without_partner_runs_on_the_default_plan(partner: PartnerServices, account: int) -> None:
    """A workspace no partner owns gets the configured default plan."""
    assert partner.entitlements.plan_of(account).slug == "business"


def test_client_runs_on_its_plan(partner: PartnerServices) -> None:
    """A client workspace's plan is its client record's."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input(plan="starter")).client

    assert partner.entitlements.plan_of(client.id).slug == "starter"


def test_deferred_plan_change_applies_at_the_next_boundary(partner: PartnerServices, clock: FakeClock) -> None:
    """A non-immediate change keeps the old plan until the cycle boundary, then the new one is in force."""
    partner_id = partner.partners.create("Reseller", "ops@reseller.example").partner.id
    client = partner.clients.create(partner_id, client_input(plan="starter")).client
    partner.clients.update(partner_id, client.id, ClientPatch(plan="pro"))
    before = partner.entitlements.plan_of(client.id).slug

    clock.advance(days=31)

    assert (before, partner.entitlements.plan_of(client.id).slug) == ("starter", "pro")
