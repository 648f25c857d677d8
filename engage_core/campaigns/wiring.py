"""The campaigns area's services, and the handler of its send jobs, as `Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.campaigns.sender import CampaignSendJob
from engage_core.campaigns.service import SEND_JOB, CampaignService
from engage_core.dependencies import Unconfigured
from engage_core.jobs.runner import Handler
from engage_core.plans.entitlements import Entitlements

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class CampaignsServices:
    """The campaigns' service, and their send job when a channel gateway is configured."""

    campaigns: CampaignService
    entitlements: Entitlements  # wired by the plans area
    _send_job: CampaignSendJob | None

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.campaigns = CampaignService(deps.uow, deps.clock)
        configured = not isinstance(deps.gateway, Unconfigured)
        self._send_job = (
            CampaignSendJob(
                deps.uow,
                deps.clock,
                deps.gateway,
                quotas=deps.campaign_quotas,
                entitlements=self.entitlements,
                stale_after=deps.job_lease_seconds,
                sleep=deps.sleep,
            )
            if configured
            else None
        )

    def job_handlers(self) -> dict[str, Handler]:
        """The send job's handler, by kind (none without a gateway: sends then wait in the queue)."""
        return {} if self._send_job is None else {SEND_JOB: self._send_job}
