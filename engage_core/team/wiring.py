"""The team area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.partners.client_service import PartnerClientService
from engage_core.plans.entitlements import Entitlements
from engage_core.team.service import TeamService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class TeamServices:
    """The team area's service: team members."""

    team: TeamService
    entitlements: Entitlements  # wired by the plans area
    partner_clients: PartnerClientService  # wired by the partners area

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`, after the partners
        area, whose sign-in check it uses)."""
        self.team = TeamService(
            deps.uow,
            deps.clock,
            deps.hasher,
            deps.mailer,
            deps.app_url,
            self.entitlements,
            sign_in_check=self.partner_clients.ensure_not_suspended,
        )
