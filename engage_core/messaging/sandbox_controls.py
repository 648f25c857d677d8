"""Sandbox actions as one workspace may use them (the sandbox HTTP routes and `engage sandbox`).

`SandboxGateway`'s actions name a provider account; a workspace names its own channel instead
(`whatsapp`, ...) and its own message ids, so an action can only ever reach the caller's accounts:
the channel setting of that type is looked up in the caller's workspace, and a message id of
another workspace is not found. What the action then sets off (a status change, an inbound
message, a receipt) reaches the services through the sandbox's attached inbox, exactly as a
provider's callback would; the answer is the state the workspace sees afterwards.

Errors: no channel setting of that type, or no such message: `NotFound`; an action that does not
apply (no QR code waiting to be scanned, a message the network never accepted): `Conflict`; a
status or receipt the sandbox does not know: `ValidationFailed`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from engage_core.kernel.errors import Conflict, NotFound, ValidationFailed
from engage_core.kernel.validation import optional_text, required_text
from engage_core.messaging.channels import CHANNEL_TYPES, ChannelAccount
from engage_core.messaging.messages import RECEIPT_STATUSES, Message
from engage_core.messaging.sandbox import SandboxGateway, SandboxRefused
from engage_core.unit_of_work import UnitOfWorkFactory

T = TypeVar("T")

SANDBOX_STATUSES: tuple[str, ...] = (
    "OK",
    "CONNECTING",
    "CREATION_SUCCESS",
    "RECONNECTED",
    "SYNC_SUCCESS",
    "CREDENTIALS",
    "PERMISSIONS",
    "ERROR",
    "STOPPED",
    "CREATION_FAIL",
    "DELETED",
)
"""The provider statuses `set_status` accepts: the hosted provider's words (docs/channels.md)."""
TEXT_MAX = 4096
REASON_MAX = 500
SENDER_MAX = 255


class SandboxControls:
    """The sandbox's actions, scoped to one workspace's channels and messages."""

    def __init__(self, uow: UnitOfWorkFactory, sandbox: SandboxGateway) -> None:
        self._uow = uow
        self._sandbox = sandbox

    def scan(self, account_id: int, channel: str, username: str | None = None) -> ChannelAccount | None:
        """The phone scans the waiting QR code of the workspace's WhatsApp or Telegram channel."""
        username = optional_text("username", username, max_length=SENDER_MAX)
        pid = self._provider_account(account_id, channel)
        self._act(lambda: self._sandbox.scan(pid, username or None))
        return self._channel(account_id, channel)

    def fail(self, account_id: int, channel: str, error: str | None = None) -> ChannelAccount | None:
        """The phone refuses the waiting QR code: the attempt fails (`CREATION_FAIL`)."""
        error = optional_text("error", error, max_length=REASON_MAX)
        pid = self._provider_account(account_id, channel)
        self._act(lambda: self._sandbox.fail(pid, error or "The QR code was refused."))
        return self._channel(account_id, channel)

    def set_status(
        self, account_id: int, channel: str, status: str, reason: str | None = None
    ) -> ChannelAccount | None:
        """The provider reports a new status for the channel's account; the setting afterwards (None
        when the status removed it: `DELETED`)."""
        status = status.strip().upper()
        if status not in SANDBOX_STATUSES:
            raise ValidationFailed.on("status", f"The status must be one of: {', '.join(SANDBOX_STATUSES)}.")
        reason = optional_text("reason", reason, max_length=REASON_MAX)
        pid = self._provider_account(account_id, channel)
        self._act(lambda: self._sandbox.set_status(pid, status, reason or None))
        return self._channel(account_id, channel)

    def inject_message(
        self, account_id: int, channel: str, sender: str, text: str, sender_name: str | None = None
    ) -> Message:
        """A contact writes to the channel's account: the stored inbound message (its contact is
        created when new). `sender` is a phone (WhatsApp, Telegram) or a handle (Instagram, LinkedIn)."""
        sender = required_text("sender", sender, max_length=SENDER_MAX)
        text = required_text("text", text, max_length=TEXT_MAX)
        sender_name = optional_text("sender_name", sender_name, max_length=SENDER_MAX)
        pid = self._provider_account(account_id, channel)
        inbound = self._act(lambda: self._sandbox.inject_message(pid, sender, text, sender_name=sender_name))
        with self._uow.workspace(account_id, readonly=True) as uow:
            stored = uow.messages.by_provider_id(channel, inbound.provider_message_id)
        if stored is None:  # the channel was disconnected meanwhile
            raise NotFound("Channel")
        return stored

    def inject_receipt(self, account_id: int, message_id: int, status: str) -> Message:
        """The network reports the workspace's outbound message `delivered` or `read`; the message
        afterwards (receipts only move forward)."""
        if status not in RECEIPT_STATUSES:
            raise ValidationFailed.on("status", "The status must be delivered or read.")
        with self._uow.workspace(account_id, readonly=True) as uow:
            message = uow.messages.get(message_id)
            channel = None if message is None else uow.channels.by_type(message.channel)
        if message is None:
            raise NotFound("Message")
        if message.direction != "outbound" or message.provider_message_id is None:
            raise Conflict("Only a message the network accepted (an outbound message, sent) can have a receipt.")
        if channel is None or channel.provider_account_id is None:
            raise NotFound("Channel")
        pid, provider_message_id = channel.provider_account_id, message.provider_message_id
        self._act(lambda: self._sandbox.inject_receipt(pid, provider_message_id, status))
        with self._uow.workspace(account_id, readonly=True) as uow:
            after = uow.messages.get(message_id)
        if after is None:
            raise NotFound("Message")
        return after

    def _provider_account(self, account_id: int, channel: str) -> str:
        if channel not in CHANNEL_TYPES:
            raise NotFound("Channel")
        current = self._channel(account_id, channel)
        if current is None or current.provider_account_id is None:
            raise NotFound("Channel")
        return current.provider_account_id

    def _channel(self, account_id: int, channel: str) -> ChannelAccount | None:
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.channels.by_type(channel)

    @staticmethod
    def _act(action: Callable[[], T]) -> T:
        try:
            return action()
        except SandboxRefused as exc:
            raise Conflict(str(exc)) from exc
