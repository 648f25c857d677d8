"""The inbox: where every channel gateway hands what arrives from the networks.

Provider callbacks (and the sandbox's actions) name only the provider's account id. The inbox
finds the workspace that owns it (`ChannelDirectory`) and passes the value on to the workspace's
message or channel service, so the sandbox and a hosted provider's webhook route feed exactly the
same code. It implements `engage_core.messaging.ports.InboundSink`. Once a message or a receipt is
stored, it tells the live feed under `INBOX_TOPIC` (after the commit), so the dashboard's inbox
shows it without looking again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from engage_core.kernel.errors import NotFound
from engage_core.messaging.channel_service import ChannelService
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.gateway import InboundMessage, Receipt, StatusChange
from engage_core.messaging.message_service import MessageService
from engage_core.messaging.messages import Message
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.webchat.ports import LiveFeed, NoLiveFeed

T = TypeVar("T")

INBOX_TOPIC = "inbox"
"""The live feed's topic of a workspace's channel conversations (web chat sessions have their own)."""


class ChannelInbox:
    """The :class:`.InboundSink` of every gateway: finds the workspace that owns the provider account and
    hands the callback to its :class:`.MessageService` or :class:`.ChannelService`. A callback for an
    account no workspace owns, or one disconnected meanwhile, is ignored (None)."""

    def __init__(
        self, uow: UnitOfWorkFactory, channels: ChannelService, messages: MessageService, live: LiveFeed | None = None
    ) -> None:
        """`live` is told of every stored message and receipt (nobody without it)."""
        self._uow = uow
        self._channels = channels
        self._messages = messages
        self._live = live or NoLiveFeed()

    def owner_of(self, provider_account_id: str) -> int | None:
        """The workspace whose channel setting has this provider account, if any."""
        with self._uow.admin(readonly=True) as admin:
            return admin.channel_directory.owner_of(provider_account_id)

    def receive(self, message: InboundMessage) -> Message | None:
        """Store an inbound message in the owning workspace (:meth:`.MessageService.receive`); None when
        no workspace owns the account."""
        return self._dispatch(
            message.provider_account_id, lambda owner: self._told(owner, self._messages.receive(owner, message))
        )

    def receipt(self, receipt: Receipt) -> Message | None:
        """Apply a delivery or read receipt in the owning workspace (:meth:`.MessageService.receipt`);
        None when no workspace owns the account or no message has that id."""
        return self._dispatch(
            receipt.provider_account_id, lambda owner: self._told(owner, self._messages.receipt(owner, receipt))
        )

    def status_changed(self, change: StatusChange) -> ChannelAccount | None:
        """Apply a provider status change in the owning workspace
        (:meth:`.ChannelService.status_changed`); None when no workspace owns the account."""
        return self._dispatch(change.provider_account_id, lambda owner: self._channels.status_changed(owner, change))

    def _told(self, owner: int, stored: Message | None) -> Message | None:
        if stored is not None:
            self._live.publish(owner, INBOX_TOPIC)
        return stored

    def _dispatch(self, provider_account_id: str, handle: Callable[[int], T | None]) -> T | None:
        owner = self.owner_of(provider_account_id)
        if owner is None:
            return None  # no workspace owns the account (any more): nothing to do
        try:
            return handle(owner)
        except NotFound:
            return None  # disconnected between the look-up and the change
