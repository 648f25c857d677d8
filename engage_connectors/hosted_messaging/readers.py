"""Reading the provider's JSON answers into values, strictly: a missing or mistyped field is a
`ProviderProtocolError` naming it, never a KeyError deep inside a caller."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from engage_connectors.hosted_messaging.errors import ProviderProtocolError
from engage_connectors.hosted_messaging.values import (
    AccountStatus,
    CheckpointRequired,
    Connected,
    LoginResult,
    MessagePage,
    ProviderAccount,
    ProviderMessage,
    QrChallenge,
    ReconnectResult,
    SentMessage,
)

QR_CHECKPOINT = "QRCODE"


def read_qr_challenge(answer: Mapping[str, Any]) -> QrChallenge:
    result = read_reconnect(answer)
    if not isinstance(result, QrChallenge):
        raise ProviderProtocolError("The messaging provider did not answer the QR connection with a QR code.")
    return result


def read_login(answer: Mapping[str, Any]) -> LoginResult:
    result = read_reconnect(answer)
    if isinstance(result, QrChallenge):
        raise ProviderProtocolError("The messaging provider answered a credential login with a QR code.")
    return result


def read_reconnect(answer: Mapping[str, Any]) -> ReconnectResult:
    """`AccountCreated`/`AccountReconnected` → Connected; `Checkpoint` → a QR code or a checkpoint."""
    kind = require_text(answer, "object")
    account_id = require_text(answer, "account_id")
    if kind in ("AccountCreated", "AccountReconnected"):
        return Connected(account_id)
    if kind != "Checkpoint":
        raise ProviderProtocolError(f"The messaging provider answered an unexpected {kind!r} to a login.")
    checkpoint = _object(answer, "checkpoint")
    checkpoint_type = require_text(checkpoint, "type")
    if checkpoint_type == QR_CHECKPOINT:
        return QrChallenge(account_id, require_text(checkpoint, "qrcode"))
    return CheckpointRequired(account_id, checkpoint_type)


def read_account(answer: Mapping[str, Any]) -> ProviderAccount:
    """The account's status is its messaging source's: the first source not `OK` wins, so one
    failing part is never hidden by a healthy one."""
    sources = answer.get("sources")
    if not isinstance(sources, list) or not sources:
        raise ProviderProtocolError("The messaging provider's account has no sources.")
    statuses = [_status(require_text(_as_object(source, "sources[]"), "status")) for source in sources]
    status = next((s for s in statuses if s is not AccountStatus.OK), AccountStatus.OK)
    params = answer.get("connection_params")
    im = params.get("im") if isinstance(params, dict) else None
    username = None
    if isinstance(im, dict):
        username = _optional_text(im, "phone_number") or _optional_text(im, "username")
    return ProviderAccount(
        id=require_text(answer, "id"),
        provider=require_text(answer, "type"),
        name=_optional_text(answer, "name"),
        username=username,
        status=status,
    )


def read_sent_message(answer: Mapping[str, Any], *, chat_id: str | None) -> SentMessage:
    """`ChatStarted` (chat_id, message_id) for a new chat, `MessageSent` (message_id) in a chat."""
    message_id = _optional_text(answer, "message_id")
    if chat_id is None:
        return SentMessage(require_text(answer, "chat_id"), message_id)
    return SentMessage(chat_id, message_id)


def read_message_page(answer: Mapping[str, Any]) -> MessagePage:
    items = answer.get("items")
    if not isinstance(items, list):
        raise ProviderProtocolError("The messaging provider's message list has no items.")
    return MessagePage(tuple(_message(_as_object(item, "items[]")) for item in items), _optional_text(answer, "cursor"))


def _message(item: Mapping[str, Any]) -> ProviderMessage:
    return ProviderMessage(
        id=require_text(item, "id"),
        chat_id=require_text(item, "chat_id"),
        sender_id=require_text(item, "sender_id"),
        text=_optional_text(item, "text"),
        timestamp=read_timestamp(item, "timestamp"),
        is_sender=bool(item.get("is_sender")),
        seen=bool(item.get("seen")),
    )


def read_timestamp(data: Mapping[str, Any], key: str) -> datetime:
    """An ISO 8601 timestamp, made timezone-aware (UTC when the provider gives no offset)."""
    text = require_text(data, key)
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ProviderProtocolError(f"The messaging provider's {key!r} is not an ISO 8601 timestamp.") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def require_text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise ProviderProtocolError(f"The messaging provider sent no {key!r}.")
    return value


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def _object(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    return _as_object(data.get(key), key)


def _as_object(value: object, key: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ProviderProtocolError(f"The messaging provider's {key!r} is not an object.")
    return value


def _status(text: str) -> AccountStatus:
    try:
        return AccountStatus(text)
    except ValueError:
        raise ProviderProtocolError(f"The messaging provider reported an unknown account status {text!r}.") from None
