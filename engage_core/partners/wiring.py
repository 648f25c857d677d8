"""The partners area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.partners.client_service import PartnerClientService
from engage_core.partners.partner_service import PartnerService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class PartnersServices:
    """The partners area's services: partners and their client workspaces."""

    partners: PartnerService
    partner_clients: PartnerClientService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.partners = PartnerService(deps.uow, deps.clock, deps.cipher, deps.guard)
        self.partner_clients = PartnerClientService(deps.uow, deps.clock, deps.hasher, deps.mailer, deps.app_url)
