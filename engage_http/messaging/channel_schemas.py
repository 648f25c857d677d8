"""Request and response bodies of the channel endpoints (SPEC 2 Channel, SPEC 3 and 4 Channels).

`last_synced_at` is rendered as text by `engage_core.messaging.channels.format_synced_at`: unlike every other
timestamp of the API it keeps a numeric UTC offset (`+00:00`, SPEC 1 item 5).
"""

from __future__ import annotations

from typing import Annotated, Literal

import attrs

from engage_core.messaging import channels as domain
from engage_core.messaging.channel_service import CODE_MAX, PASSWORD_MAX, USERNAME_MAX, CredentialsInput
from engage_http.constraints import Doc, Text
from engage_http.converter import structures_into

ChannelType = Literal["whatsapp", "telegram", "instagram", "linkedin"]
SyncStatus = Literal["OK", "CONNECTING", "SYNC_SUCCESS", "CREDENTIALS", "ERROR", "STOPPED", "CREATION_FAIL"]
AccountId = Annotated[
    str,
    Text(max_length=255, blank=False),
    Doc(description="The provider's id of the account (`account_id` of the connect answer).", example="sbx-1"),
]
Username = Annotated[
    str,
    Text(max_length=USERNAME_MAX, blank=False),
    Doc(description="The login: an Instagram handle, or the LinkedIn login e-mail.", example="acme.shop"),
]
Password = Annotated[str, Text(max_length=PASSWORD_MAX, min_length=1)]
Country = Annotated[
    str,
    Text(pattern="^[A-Za-z]{2}$", message="The {field} must be an ISO 3166-1 alpha-2 code."),
    Doc(description="ISO 3166-1 alpha-2 code of the country to connect from.", example="SA"),
]
Code = Annotated[str, Text(max_length=CODE_MAX, blank=False), Doc(example="123456")]


@attrs.frozen
class Channel:
    """A channel setting (SPEC 2). `account_id` (the provider's account id) and `error` (why the
    last attempt failed or the account went offline) are additions to the SPEC fields."""

    id: int
    type: ChannelType
    username: str | None = attrs.field(metadata={"description": "Phone number or account handle."})
    is_connected: bool
    sync_status: SyncStatus
    last_synced_at: str | None = attrs.field(
        metadata={"description": "ISO 8601 with microseconds and a numeric offset (`+00:00`)."}
    )
    account_id: str | None
    error: str | None

    # By hand: `account_id` is the core's `provider_account_id`; `last_synced_at` is text (`format_synced_at`).
    @classmethod
    def from_domain(cls, channel: domain.ChannelAccount) -> Channel:
        return cls(
            id=channel.id,
            type=channel.type,  # type: ignore[arg-type]
            username=channel.username,
            is_connected=channel.is_connected,
            sync_status=channel.sync_status,  # type: ignore[arg-type]
            last_synced_at=domain.format_synced_at(channel.last_synced_at),
            account_id=channel.provider_account_id,
            error=channel.error,
        )


@attrs.frozen
class ChannelStatus(Channel):
    """A channel setting as polling sees it. `completed` true: connected. `in_progress` true: a QR
    code or a 2FA checkpoint waits for the owner. Both false: not connected and not waiting (for a
    QR channel, the attempt failed: connect again for a new code)."""

    completed: bool = False
    in_progress: bool = False

    # By hand: a `Channel` (see there) with the polling fields beside it.
    @classmethod
    def of(cls, channel: domain.ChannelAccount) -> ChannelStatus:
        base = Channel.from_domain(channel)
        return cls(**attrs.asdict(base, recurse=False), completed=channel.completed, in_progress=channel.in_progress)


@attrs.frozen
class QrCode:
    """A pending QR connection: encode `qr_code` in a QR image and scan it with the app."""

    account_id: str
    qr_code: str = attrs.field(
        metadata={
            "description": "The text to encode: the multi-device pairing string (WhatsApp), or a `tg://login` "
            "link (Telegram). Not a URL to fetch."
        }
    )


@attrs.frozen
class TwoFactorRequired:
    """The network asks for a code: submit it to `.../2fa` with this `account_id`."""

    requires_2fa: Literal[True]
    account_id: str
    checkpoint_type: str = attrs.field(
        metadata={"description": "The provider's word: `2FA`, `OTP`, `IN_APP_VALIDATION`, `CAPTCHA`, ..."}
    )

    # By hand: `requires_2fa` is a constant, and `account_id` the core's `provider_account_id`.
    @classmethod
    def of(cls, channel: domain.ChannelAccount) -> TwoFactorRequired:
        assert channel.provider_account_id is not None and channel.checkpoint_type is not None
        return cls(requires_2fa=True, account_id=channel.provider_account_id, checkpoint_type=channel.checkpoint_type)


@attrs.frozen
class CodeResent:
    """The checkpoint whose code was sent again."""

    account_id: str


@structures_into(CredentialsInput)
@attrs.frozen
class CredentialsConnect:
    """An Instagram or LinkedIn login."""

    username: Username
    password: Password
    country: Country = domain.DEFAULT_COUNTRY


@attrs.frozen
class TwoFactorCode:
    """The code that answers the waiting checkpoint."""

    account_id: AccountId
    code: Code


@attrs.frozen
class TwoFactorResend:
    """Which checkpoint's code to send again."""

    account_id: AccountId


@attrs.frozen
class StatusQuery:
    """Query of `GET /channels/{whatsapp|telegram}/status`."""

    account_id: AccountId | None = attrs.field(
        default=None, metadata={"description": "The attempt to poll; omitted means the current one."}
    )
