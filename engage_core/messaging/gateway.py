"""What the services and a channel gateway hand each other (`engage_core.messaging.ports.ChannelGateway`).

Outbound (service -> gateway): start a QR login, poll it, log in with credentials, answer and
resend 2FA checkpoints, refresh, disconnect, send. Inbound (gateway -> service): `InboundMessage`,
`Receipt` and `StatusChange` are plain values that every adapter builds the same way (the sandbox
from its actions, a hosted provider's webhook route from its callbacks) and hands to the same
service (`engage_core.messaging.ports.InboundSink`).

Statuses are the provider's words (`OK`, `CONNECTING`, `CREDENTIALS`, `SYNC_SUCCESS`, ...);
`engage_core.messaging.channels.trigger_for` turns them into moves of the connection lifecycle.

A gateway raises `GatewayUnavailable` when the provider could not be reached or failed (a timeout,
a 5xx): nothing was done, the call may be retried. It raises `GatewayRejected` when the provider
answered and refused (wrong password or code, an unknown or disconnected account, a recipient it
cannot reach): retrying the same call will not help.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import BinaryIO

import attrs


class GatewayError(Exception):
    """A channel gateway call did not do what was asked. `message` is fit to show the owner."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GatewayUnavailable(GatewayError):
    """The provider could not be reached or failed on its side; retrying later may work."""


class GatewayRejected(GatewayError):
    """The provider refused the request (bad credentials or code, unknown account, ...)."""


MEDIA_CHANNELS = frozenset({"whatsapp", "telegram", "instagram"})
"""The channels whose messages may carry a file (an image with its caption); LinkedIn's may not."""


@attrs.frozen
class Attachment:
    """A file sent with a message, its text as the caption: a name, a type, the public address it is
    served at, and how to read its bytes (for a provider that takes the file itself)."""

    name: str
    mime_type: str
    url: str
    open: Callable[[], BinaryIO] = attrs.field(eq=False, repr=False)


@attrs.frozen
class QrLogin:
    """A pending device link. `qr_code` is the text to encode in a QR image: the multi-device pairing
    string for WhatsApp (`2@...`), a `tg://login?token=...` link for Telegram."""

    provider_account_id: str
    qr_code: str


@attrs.frozen
class Authenticated:
    """The login went through; the provider starts importing the account's history."""

    provider_account_id: str
    username: str | None = None


@attrs.frozen
class Checkpoint:
    """The network asks for one more proof. `checkpoint_type` is the provider's word (`2FA`, `OTP`,
    `IN_APP_VALIDATION`, `CAPTCHA`, ...), passed on to the owner as it is."""

    provider_account_id: str
    checkpoint_type: str


LoginOutcome = Authenticated | Checkpoint
"""What credentials or a 2FA code lead to."""


@attrs.frozen
class StatusReport:
    """An account's state as the provider reports it when asked (poll, refresh). `error` says why it
    is not working, when the provider says."""

    status: str
    username: str | None = None
    error: str | None = None


@attrs.frozen
class SentMessage:
    """A message the provider accepted. Some networks do not name the message (`None`): receipts
    then cannot find it."""

    provider_message_id: str | None
    sent_at: datetime


@attrs.frozen
class InboundMessage:
    """A message a contact sent to one of the workspace's accounts.

    `sender` is how the channel addresses the contact: an E.164 phone number on WhatsApp and
    Telegram, the account handle on Instagram and LinkedIn. `provider_message_id` makes delivery
    idempotent: the same message handed over twice is stored once."""

    provider_account_id: str
    provider_message_id: str
    sender: str
    text: str
    received_at: datetime
    sender_name: str | None = None


@attrs.frozen
class Receipt:
    """The network says an outbound message was `delivered` to, or `read` by, the contact."""

    provider_account_id: str
    provider_message_id: str
    status: str
    at: datetime


@attrs.frozen
class StatusChange:
    """The provider says an account's status changed (a status callback). `username` is the
    account's phone or handle when the adapter knows it (it fills the setting's `username`)."""

    provider_account_id: str
    status: str
    reason: str | None = None
    username: str | None = None
