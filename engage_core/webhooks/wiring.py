"""The webhooks area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.webhooks.service import WebhookService

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class WebhooksServices:
    """The webhooks area's service: subscriptions."""

    webhooks: WebhookService

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.webhooks = WebhookService(deps.uow, deps.clock, deps.cipher, deps.guard)
