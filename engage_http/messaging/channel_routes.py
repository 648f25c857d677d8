"""Channels (SPEC 3 and 4 Channels): connect WhatsApp and Telegram by QR code, Instagram and
LinkedIn with credentials and 2FA rounds; poll, refresh, disconnect.

The paths are spelled out per channel (`/channels/whatsapp/connect`, ...), as SPEC 4 lists them,
because the two flows take different bodies and answer different shapes. LinkedIn answers 403 with
code `linkedin_upgrade_required` without the `linkedin_access` feature (the service checks it).
A provider that cannot be reached answers 503: nothing was changed, the request may be retried.
"""

from __future__ import annotations

from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.channels import CAMPAIGN_GUARDED, CHANNEL_TYPES, QR_CHANNELS, ChannelAccount
from engage_http.messaging.channel_schemas import (
    Channel,
    ChannelStatus,
    CodeResent,
    CredentialsConnect,
    QrCode,
    StatusQuery,
    TwoFactorCode,
    TwoFactorRequired,
    TwoFactorResend,
)
from engage_http.operations import Call, Handler, Operation, Reply, Shape

TAG = "Channels"
TITLES = {"whatsapp": "WhatsApp", "telegram": "Telegram", "instagram": "Instagram", "linkedin": "LinkedIn"}
QR_TEXT = {"whatsapp": "a multi-device pairing string", "telegram": "a `tg://login` link"}
LINKEDIN_NOTE = " Needs the `linkedin_access` feature (else 403, code `linkedin_upgrade_required`)."


def _named(name: str, handler: Handler) -> Handler:
    """`handler` under a name of its own: the name makes the operation id unique per channel."""
    handler.__name__ = handler.__qualname__ = name
    return handler


def _qr_connect(channel: str) -> Handler:
    def handle(call: Call[None, None]) -> Reply:
        connection = call.services.channels.connect_qr(call.account_id, channel, plan=call.plan)
        assert connection.channel.provider_account_id is not None
        qr = QrCode(account_id=connection.channel.provider_account_id, qr_code=connection.qr_code)
        return Reply(qr, f"Scan the QR code with {TITLES[channel]} to connect the account.")

    return _named(f"{channel}_connect", handle)


def _credentials_connect(channel: str) -> Handler:
    def handle(call: Call[CredentialsInput, None]) -> Reply:
        outcome = call.services.channels.connect_credentials(call.account_id, channel, call.body, plan=call.plan)
        return _login_reply(channel, outcome.channel, outcome.requires_2fa)

    return _named(f"{channel}_connect", handle)


def _submit_code(channel: str) -> Handler:
    def handle(call: Call[TwoFactorCode, None]) -> Reply:
        outcome = call.services.channels.submit_code(
            call.account_id, channel, call.body.account_id, call.body.code, plan=call.plan
        )
        return _login_reply(channel, outcome.channel, outcome.requires_2fa)

    return _named(f"{channel}_submit_code", handle)


def _login_reply(channel: str, account: ChannelAccount, requires_2fa: bool) -> Reply:
    if requires_2fa:
        return Reply(TwoFactorRequired.of(account), "Enter the code to finish connecting the account.")
    return Reply(Channel.from_domain(account), f"{TITLES[channel]} connected.")


def _resend_code(channel: str) -> Handler:
    def handle(call: Call[TwoFactorResend, None]) -> CodeResent:
        call.services.channels.resend_code(call.account_id, channel, call.body.account_id, plan=call.plan)
        return CodeResent(account_id=call.body.account_id)

    return _named(f"{channel}_resend_code", handle)


def _status(channel: str) -> Handler:
    def handle(call: Call[None, StatusQuery | None]) -> ChannelStatus:
        provider_account_id = None if call.query is None else call.query.account_id
        return ChannelStatus.of(
            call.services.channels.status(call.account_id, channel, provider_account_id, plan=call.plan)
        )

    return _named(f"{channel}_status", handle)


def _refresh(channel: str) -> Handler:
    def handle(call: Call[None, None]) -> Channel:
        return Channel.from_domain(call.services.channels.refresh(call.account_id, channel, plan=call.plan))

    return _named(f"{channel}_refresh", handle)


def _disconnect(channel: str) -> Handler:
    def handle(call: Call[None, None]) -> None:
        call.services.channels.disconnect(call.account_id, channel, plan=call.plan)

    return _named(f"{channel}_disconnect", handle)


def _operations(channel: str) -> tuple[Operation, ...]:
    title = TITLES[channel]
    base = f"/channels/{channel}"
    note = LINKEDIN_NOTE if channel == "linkedin" else ""
    found = frozenset({404, 503})
    operations: list[Operation] = []
    if channel in QR_CHANNELS:
        operations.append(
            Operation(
                "POST",
                f"{base}/connect",
                _qr_connect(channel),
                f"Start connecting {title} by QR code",
                TAG,
                QrCode,
                message="Scan the QR code to connect the account.",
                errors=frozenset({409, 503}),
                description=f"A new attempt: `qr_code` is {QR_TEXT[channel]} to show as a QR image. Poll "
                f"`GET {base}/status` every 2-3 seconds until `completed`. 409 while the channel is connected.",
            )
        )
    else:
        operations += [
            Operation(
                "POST",
                f"{base}/connect",
                _credentials_connect(channel),
                f"Connect {title} with a username and password",
                TAG,
                Channel | TwoFactorRequired,
                message=f"{title} connected.",
                body=CredentialsConnect,
                errors=frozenset({409, 422, 503}),
                description="The channel object when the login went through, or `requires_2fa` true with the "
                f"`account_id` and `checkpoint_type` to answer with `POST {base}/2fa`. Credentials the network "
                "refuses are a 422 on `password` (and a failed attempt, `channel.error`). 409 while connected." + note,
            ),
            Operation(
                "POST",
                f"{base}/2fa",
                _submit_code(channel),
                f"Answer a {title} 2FA checkpoint",
                TAG,
                Channel | TwoFactorRequired,
                message=f"{title} connected.",
                body=TwoFactorCode,
                errors=frozenset({404, 409, 422, 503}),
                description="The channel object, or another `requires_2fa` round. A wrong code is a 422 on `code` "
                "and the checkpoint keeps waiting; 409 when no checkpoint waits." + note,
            ),
            Operation(
                "POST",
                f"{base}/2fa/resend",
                _resend_code(channel),
                f"Send a {title} 2FA code again",
                TAG,
                CodeResent,
                message="The code was sent again.",
                body=TwoFactorResend,
                errors=frozenset({404, 409, 503}),
                description="409 when no checkpoint waits." + note,
            ),
        ]
    is_qr = channel in QR_CHANNELS
    operations += [
        Operation(
            "GET",
            f"{base}/status",
            _status(channel),
            f"Poll the {title} channel",
            TAG,
            ChannelStatus,
            query=StatusQuery if is_qr else None,
            errors=found,
            description=(
                "While a QR code waits, asks the provider; otherwise answers from the local records. "
                "`completed` false and `in_progress` false: the attempt failed, connect again."
                if is_qr
                else "From the local records."
            )
            + note,
        ),
        Operation(
            "POST",
            f"{base}/refresh",
            _refresh(channel),
            f"Resynchronise the {title} channel",
            TAG,
            Channel,
            message="Channel refreshed.",
            errors=found,
            description="Applies the status the provider reports and stamps `last_synced_at` while connected." + note,
        ),
        Operation(
            "POST",
            f"{base}/disconnect",
            _disconnect(channel),
            f"Disconnect the {title} channel",
            TAG,
            shape=Shape.NOTHING,
            status=204,
            errors=found | ({422} if channel in CAMPAIGN_GUARDED else set()),
            description="Deletes the account at the provider, then the local channel settings."
            + (" 422 while a campaign is running or paused on the channel." if channel in CAMPAIGN_GUARDED else "")
            + note,
        ),
    ]
    return tuple(operations)


OPERATIONS: tuple[Operation, ...] = tuple(op for channel in CHANNEL_TYPES for op in _operations(channel))
