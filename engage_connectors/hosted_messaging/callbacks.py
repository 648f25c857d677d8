"""The provider's webhook callbacks: who may send them, and what they say.

Authentication: the provider does not sign its callbacks, but it sends the custom headers a
webhook was registered with (`register_webhook(..., headers=...)`). We register every webhook
with `X-Engage-Provider-Secret: <ENGAGE_CHANNELS_WEBHOOK_SECRET>`; `CallbackAuthenticator`
refuses any request that does not carry exactly that value (compared in constant time). Serve
the callback URL over HTTPS only, or the secret travels in clear.

Parsing (pure, no I/O): `parse_callback(body)` turns one JSON body into an `InboundMessage`, a
`Receipt`, an `AccountStatusChange`, or an `IgnoredCallback` for events we do not act on
(reactions, edits, our own messages sent from another device, statuses we do not know), so the
route can answer 200 to those and the provider stops retrying them. A body that is not a callback
at all raises `MalformedCallback`.

Shapes (the provider's documented examples):

    {"AccountStatus": {"account_id": "h_EK...", "account_type": "LINKEDIN", "message": "CREDENTIALS"}}
    {"event": "message_received", "account_id": "...", "account_type": "WHATSAPP", "chat_id": "...",
     "message_id": "...", "message": "Hello", "timestamp": "2023-09-24T13:49:07.965Z",
     "sender": {"attendee_provider_id": "966500000001@s.whatsapp.net", "attendee_name": "Kim"},
     "account_info": {"user_id": "<the account's own attendee id>"}}
    {"event": "message_read" | "message_delivered", "account_id": "...", "chat_id": "...",
     "message_id": "...", "timestamp": "..."}
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_connectors.hosted_messaging.errors import ProviderProtocolError
from engage_connectors.hosted_messaging.handles import phone_of
from engage_connectors.hosted_messaging.readers import read_timestamp, require_text
from engage_connectors.hosted_messaging.values import AccountStatus

CALLBACK_SECRET_HEADER = "X-Engage-Provider-Secret"  # noqa: S105 - a header name, not a secret
MAX_CALLBACK_BYTES = 1024 * 1024

EVENT_MESSAGE_RECEIVED = "message_received"
EVENT_MESSAGE_READ = "message_read"
EVENT_MESSAGE_DELIVERED = "message_delivered"


class CallbackRefused(Exception):
    """The request does not carry the shared secret: it is not from our provider."""


class MalformedCallback(Exception):
    """The body is not a callback this provider sends."""


class ReceiptKind(enum.StrEnum):
    DELIVERED = "delivered"
    READ = "read"


@attrs.frozen
class InboundMessage:
    """Someone wrote to one of our accounts. `sender_id` is the provider's id for them (what
    `send_message` takes back as recipient); `sender_phone` is set on WhatsApp. `text` is None
    for a message with attachments only."""

    account_id: str
    provider: str
    provider_message_id: str
    chat_id: str
    sender_id: str
    sender_phone: str | None
    sender_name: str | None
    text: str | None
    timestamp: datetime


@attrs.frozen
class Receipt:
    """A message we sent was delivered to, or read by, its recipient."""

    account_id: str
    provider_message_id: str
    kind: ReceiptKind
    timestamp: datetime


@attrs.frozen
class AccountStatusChange:
    """An account's status changed. `message` explains the status in a sentence."""

    account_id: str
    provider: str
    status: AccountStatus
    message: str


@attrs.frozen
class IgnoredCallback:
    """A well-formed callback we do not act on, and why."""

    reason: str


Callback = InboundMessage | Receipt | AccountStatusChange | IgnoredCallback


class CallbackAuthenticator:
    """Checks the shared secret header of a callback request."""

    def __init__(self, secret: str) -> None:
        if len(secret) < 16:
            raise ValueError("The channels webhook secret must be at least 16 characters long.")
        self._digest = _digest(secret)

    def authenticate(self, headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> None:
        """Return if the request carries the secret exactly once; raise `CallbackRefused` otherwise."""
        pairs = headers.items() if isinstance(headers, Mapping) else headers
        given = [value for name, value in pairs if name.lower() == CALLBACK_SECRET_HEADER.lower()]
        if len(given) != 1:
            raise CallbackRefused(f"The callback must carry one {CALLBACK_SECRET_HEADER} header.")
        # Comparing fixed-length digests takes the same time whatever the given value's length.
        if not hmac.compare_digest(_digest(given[0]), self._digest):
            raise CallbackRefused(f"The callback's {CALLBACK_SECRET_HEADER} is wrong.")


def parse_callback(body: bytes) -> Callback:
    """What the callback body says; `MalformedCallback` if it is not one."""
    if len(body) > MAX_CALLBACK_BYTES:
        raise MalformedCallback("The callback body is too large.")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise MalformedCallback("The callback body is not JSON.") from None
    if not isinstance(data, dict):
        raise MalformedCallback("The callback body is not a JSON object.")
    try:
        return _parse(data)
    except ProviderProtocolError as exc:
        raise MalformedCallback(str(exc)) from None


def _parse(data: Mapping[str, Any]) -> Callback:
    if "AccountStatus" in data:
        return _status_change(_object(data["AccountStatus"], "AccountStatus"))
    event = data.get("event")
    if not isinstance(event, str) or not event:
        raise MalformedCallback("The callback has neither an AccountStatus nor an event.")
    if event == EVENT_MESSAGE_RECEIVED:
        return _message(data)
    if event in (EVENT_MESSAGE_READ, EVENT_MESSAGE_DELIVERED):
        kind = ReceiptKind.READ if event == EVENT_MESSAGE_READ else ReceiptKind.DELIVERED
        return Receipt(
            account_id=require_text(data, "account_id"),
            provider_message_id=require_text(data, "message_id"),
            kind=kind,
            timestamp=read_timestamp(data, "timestamp"),
        )
    return IgnoredCallback(f"The event {event!r} is not acted on.")


def _status_change(data: Mapping[str, Any]) -> Callback:
    account_id = require_text(data, "account_id")
    text = require_text(data, "message")
    try:
        status = AccountStatus(text)
    except ValueError:
        return IgnoredCallback(f"The account status {text!r} is not known.")
    return AccountStatusChange(account_id, require_text(data, "account_type"), status, status.description)


def _message(data: Mapping[str, Any]) -> Callback:
    sender = _object(data.get("sender"), "sender")
    sender_id = require_text(sender, "attendee_provider_id")
    if _sent_by_the_account(data, sender_id):
        return IgnoredCallback("The message was sent by the account itself.")
    provider = require_text(data, "account_type")
    text = data.get("message")
    return InboundMessage(
        account_id=require_text(data, "account_id"),
        provider=provider,
        provider_message_id=require_text(data, "message_id"),
        chat_id=require_text(data, "chat_id"),
        sender_id=sender_id,
        sender_phone=phone_of(provider, sender_id),
        sender_name=_optional_text(sender, "attendee_name"),
        text=text if isinstance(text, str) and text else None,
        timestamp=read_timestamp(data, "timestamp"),
    )


def _sent_by_the_account(data: Mapping[str, Any], sender_id: str) -> bool:
    """The provider also reports messages the account's owner sent from the app (another device)."""
    if data.get("is_sender") is True:
        return True
    info = data.get("account_info")
    return isinstance(info, dict) and info.get("user_id") == sender_id


def _object(value: object, key: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise MalformedCallback(f"The callback's {key!r} is not an object.")
    return value


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def _digest(value: str) -> bytes:
    return hashlib.sha256(value.encode("utf-8", errors="surrogatepass")).digest()
