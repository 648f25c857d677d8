"""The plans area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.plans.entitlements import Entitlements
from engage_core.plans.plan_service import PlanService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class PlansServices:
    plans: PlanService
    entitlements: Entitlements

    def wire(self, deps: Dependencies) -> None:
        self.plans = PlanService(deps.uow, deps.clock)
        self.entitlements = Entitlements(deps.uow, deps.clock, deps.default_plan)
