"""The campaign guard of the channel rules: a running or paused campaign holds its channel
(SPEC 3 Campaign; SPEC 7: disconnecting WhatsApp then answers 422)."""

from __future__ import annotations

from engage_core.unit_of_work import UnitOfWorkFactory


class ActiveCampaigns:
    """The real `messaging.ports.CampaignGuard`: reads the workspace's campaigns."""

    def __init__(self, uow: UnitOfWorkFactory) -> None:
        self._uow = uow

    def active_on(self, account_id: int, channel: str) -> bool:
        """Whether a campaign of the account is running or paused on this channel."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.campaigns.active_on(channel)
