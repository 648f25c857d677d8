"""The messaging area's services, as `engage_core.services.Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.messaging.channel_service import ChannelService
from engage_core.messaging.handling_service import ConversationHandlingService
from engage_core.messaging.inbox_service import ChannelInbox
from engage_core.messaging.message_service import MessageService
from engage_core.partners.client_service import PartnerClientService
from engage_core.plans.entitlements import Entitlements

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class MessagingServices:
    """The messaging area's services: channels, messages, who answers each conversation (the AI or a
    human), and the inbox the gateways report to."""

    channels: ChannelService
    messages: MessageService
    conversation_handling: ConversationHandlingService
    inbox: ChannelInbox
    entitlements: Entitlements  # wired by the plans area
    partner_clients: PartnerClientService  # wired by the partners area

    def wire(self, deps: Dependencies) -> None:
        # The plan's feature gate unless the caller gives another; limits always follow the plan.
        """Build this area's services from `deps` (called once by :class:`.Services`, after the plans and
        partners areas, whose services these use)."""
        self.channels = ChannelService(
            deps.uow,
            deps.clock,
            deps.gateway,
            deps.campaigns,
            deps.features or self.entitlements,
            self.entitlements,
            relay=self.partner_clients.relay_channel_event,
        )
        self.messages = MessageService(deps.uow, deps.clock, deps.gateway, self.entitlements)
        self.conversation_handling = ConversationHandlingService(deps.uow, deps.clock)
        self.inbox = ChannelInbox(deps.uow, self.channels, self.messages, deps.live)
