"""The plans area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.plans.entitlements import Entitlements
from engage_core.plans.plan_service import PlanService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class PlansServices:
    """The plans area's services: the plans, and the entitlements every other area checks."""

    plans: PlanService
    entitlements: Entitlements

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`, first: the other
        areas use its entitlements)."""
        self.plans = PlanService(deps.uow, deps.clock)
        self.entitlements = Entitlements(deps.uow, deps.clock, deps.default_plan)
