"""Plan limits through the services on both databases: `ContactService.create` racing itself stops
exactly at the plan's `contacts` limit (the plan read from storage, the room reserved at the write)."""

from __future__ import annotations

from collections import Counter

from engage_core.contacts.model import ContactFilter, ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services

from .concurrency import at_once, outcome


def test_concurrent_contact_creates_through_the_service_stop_at_the_plan_limit(
    services: Services, account: int
) -> None:
    """20 racing `ContactService.create` calls under a stored limit of 5 store exactly 5 contacts."""
    services.plans.update("business", PlanPatch(limits={"contacts": 5}))

    results = at_once(20, lambda n: services.contacts.create(account, ContactInput(name=f"C{n}", type="instagram")))

    stored = services.contacts.find(account, ContactFilter(), PageRequest(page=1, per_page=100)).total
    assert (Counter(outcome(r) for r in results), stored) == (
        {"ok": 5, "PlanLimitReached plan_limit_reached": 15},
        5,
    )
