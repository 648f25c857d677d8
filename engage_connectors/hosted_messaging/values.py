"""The provider's vocabulary as small immutable values: providers, account statuses, and what its
account, checkpoint and chat endpoints answer.

These are the provider's own words (`WHATSAPP`, `CREDENTIALS`, `2FA`); translating them into the
domain's channels and `sync_status` is the adapter's job, not this package's.
"""

from __future__ import annotations

import enum
from datetime import datetime

import attrs


class Provider(enum.StrEnum):
    """The messaging networks an account can belong to, spelled as the provider spells them."""

    WHATSAPP = "WHATSAPP"
    TELEGRAM = "TELEGRAM"
    INSTAGRAM = "INSTAGRAM"
    LINKEDIN = "LINKEDIN"

    @property
    def connects_by_qr(self) -> bool:
        """WhatsApp and Telegram link a device by scanning a code; the others log in with credentials."""
        return self in (Provider.WHATSAPP, Provider.TELEGRAM)


class AccountStatus(enum.StrEnum):
    """An account's state as the provider reports it, on the account itself or in a status callback.

    `OK`, `CONNECTING`, `CREDENTIALS`, `ERROR`, `STOPPED` and `PERMISSIONS` are states an account
    is in; `CREATION_SUCCESS`, `CREATION_FAIL`, `RECONNECTED`, `SYNC_SUCCESS` and `DELETED` are
    moments that only status callbacks announce.
    """

    OK = "OK"
    CONNECTING = "CONNECTING"
    CREDENTIALS = "CREDENTIALS"
    ERROR = "ERROR"
    STOPPED = "STOPPED"
    PERMISSIONS = "PERMISSIONS"
    CREATION_SUCCESS = "CREATION_SUCCESS"
    CREATION_FAIL = "CREATION_FAIL"
    RECONNECTED = "RECONNECTED"
    SYNC_SUCCESS = "SYNC_SUCCESS"
    DELETED = "DELETED"

    @property
    def is_connected(self) -> bool:
        """The account can send and receives new messages."""
        return self in _CONNECTED

    @property
    def needs_reconnect(self) -> bool:
        """The account's owner must log in again (or scan a new code) before it works again."""
        return self in (AccountStatus.CREDENTIALS, AccountStatus.PERMISSIONS)

    @property
    def description(self) -> str:
        """What the status means, in a sentence fit for a user or an event's `reason`."""
        return _DESCRIPTIONS[self]


_CONNECTED = frozenset(
    {AccountStatus.OK, AccountStatus.CREATION_SUCCESS, AccountStatus.RECONNECTED, AccountStatus.SYNC_SUCCESS}
)
_DESCRIPTIONS = {
    AccountStatus.OK: "The account is connected and synchronising.",
    AccountStatus.CONNECTING: "The account is connecting; this is temporary.",
    AccountStatus.CREDENTIALS: "The account's session ended or its password changed; it must be reconnected.",
    AccountStatus.ERROR: "Synchronisation stopped after an unexpected error.",
    AccountStatus.STOPPED: "Synchronisation is stopped.",
    AccountStatus.PERMISSIONS: "The account lacks a permission the provider needs; it must be reconnected.",
    AccountStatus.CREATION_SUCCESS: "The account was linked and its first synchronisation started.",
    AccountStatus.CREATION_FAIL: "Linking the account failed; start a new connection.",
    AccountStatus.RECONNECTED: "The account was reconnected.",
    AccountStatus.SYNC_SUCCESS: "The account's first synchronisation finished.",
    AccountStatus.DELETED: "The account was removed from the provider.",
}


@attrs.frozen
class QrChallenge:
    """A pending device link: show `qr_code` to the owner, who scans it with the app.

    For WhatsApp the code is the multi-device pairing string, for Telegram a `tg://login` link;
    either way it is the text to encode in a QR image, not an image or a URL to fetch."""

    account_id: str
    qr_code: str


@attrs.frozen
class Connected:
    """The login went through: the account exists and starts synchronising."""

    account_id: str


@attrs.frozen
class CheckpointRequired:
    """The network asks for one more proof before the login completes.

    `checkpoint_type` is the provider's word: `2FA`, `OTP` (a code), `IN_APP_VALIDATION` (approve
    in the app, then send any code or poll), `CAPTCHA`, `PHONE_REGISTER`, ... Kept as text: the
    provider adds types, and an unknown one must still reach the user."""

    account_id: str
    checkpoint_type: str


LoginResult = Connected | CheckpointRequired
ReconnectResult = Connected | CheckpointRequired | QrChallenge


@attrs.frozen
class ProviderAccount:
    """An account as `GET /accounts/{id}` describes it. `username` is the phone number for
    WhatsApp, the handle or e-mail elsewhere, when the provider knows it."""

    id: str
    provider: str
    name: str | None
    username: str | None
    status: AccountStatus


@attrs.frozen
class SentMessage:
    """A message the provider accepted: the chat it went to and the provider's message id (which
    receipts name). Some networks acknowledge a new chat without a message id."""

    chat_id: str
    message_id: str | None


@attrs.frozen
class ProviderMessage:
    """One message of a chat, as the provider lists it."""

    id: str
    chat_id: str
    sender_id: str
    text: str | None
    timestamp: datetime
    is_sender: bool
    seen: bool


@attrs.frozen
class MessagePage:
    """Messages of a chat, newest first, and the cursor of the next (older) page, if any."""

    items: tuple[ProviderMessage, ...]
    cursor: str | None


@attrs.frozen
class FileUpload:
    """A file sent with a message: its name, type and bytes (an image of at most the media library's
    50 MB; httpx streams it from memory)."""

    name: str
    mime_type: str
    content: bytes = attrs.field(repr=False)
