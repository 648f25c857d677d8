"""The LinkedIn area's service, as `engage_core.services.Services` holds it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.linkedin.service import LinkedInService
from engage_core.plans.entitlements import Entitlements, PlanLimits

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class LinkedInServices:
    """LinkedIn sourcing: the overview, the people search and campaign launches."""

    linkedin: LinkedInService
    entitlements: Entitlements  # wired by the plans area

    def wire(self, deps: Dependencies) -> None:
        """Build this area's service from `deps` (called once by :class:`.Services`, after the plans area)."""
        self.linkedin = LinkedInService(
            deps.uow,
            deps.clock,
            deps.gateway,
            deps.features or self.entitlements,
            deps.campaign_quotas,
            PlanLimits(self.entitlements),
        )
