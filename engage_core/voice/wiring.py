"""Voice's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.partners.client_service import PartnerClientService
from engage_core.plans.entitlements import Entitlements
from engage_core.voice.service import VoiceService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class VoiceServices:
    """The voice area's service: settings, cloning and text to speech."""

    voice: VoiceService
    entitlements: Entitlements  # wired by the plans area
    partner_clients: PartnerClientService  # wired by the partners area

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.voice = VoiceService(
            deps.uow, deps.clock, deps.blobs, deps.synthesizer, deps.cloner, deps.sample_prober, self.entitlements
        )
        self.partner_clients.object_owners.append(self.voice)  # a deleted workspace's audio goes too
