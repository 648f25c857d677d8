"""Sandbox controls: the network's side of the sandbox gateway, over HTTP (`docs/channels.md`).

These routes exist only in an app built with the sandbox (`create_app(..., sandbox=...)`, which the
composition root does when `ENGAGE_CHANNELS_GATEWAY` is `sandbox`); otherwise they answer 404 like
any unknown path and are absent from the OpenAPI document. They take the workspace's API key and
act on the workspace's own channels and messages only (`engage_core.messaging.sandbox_controls`). `engage
sandbox ...` calls them on a running server, because the sandbox keeps its accounts in the memory of
the server process.
"""

from __future__ import annotations

from engage_core.messaging import messages as domain
from engage_core.messaging.channels import ChannelAccount
from engage_core.messaging.sandbox_controls import SandboxControls
from engage_http.messaging.channel_schemas import ChannelStatus
from engage_http.messaging.sandbox_schemas import (
    SandboxFail,
    SandboxInbound,
    SandboxReceipt,
    SandboxScan,
    SandboxStatusChange,
)
from engage_http.messaging.schemas import Message
from engage_http.operations import Call, Operation

TAG = "Sandbox"
CHANNEL_PATH = "/sandbox/channels/{channel:channel}"


def _state(channel: ChannelAccount | None) -> ChannelStatus | None:
    return None if channel is None else ChannelStatus.of(channel)


def operations(controls: SandboxControls) -> tuple[Operation, ...]:
    """The sandbox routes, acting through `controls`."""

    def scan(call: Call[SandboxScan, None]) -> ChannelStatus | None:
        return _state(controls.scan(call.account_id, str(call.path["channel"]), call.body.username))

    def fail(call: Call[SandboxFail, None]) -> ChannelStatus | None:
        return _state(controls.fail(call.account_id, str(call.path["channel"]), call.body.error))

    def set_status(call: Call[SandboxStatusChange, None]) -> ChannelStatus | None:
        changed = controls.set_status(call.account_id, str(call.path["channel"]), call.body.status, call.body.reason)
        return _state(changed)

    def inject_message(call: Call[SandboxInbound, None]) -> domain.Message:
        body = call.body
        return controls.inject_message(
            call.account_id, str(call.path["channel"]), body.sender, body.text, body.sender_name
        )

    def inject_receipt(call: Call[SandboxReceipt, None]) -> domain.Message:
        return controls.inject_receipt(call.account_id, call.path["message_id"], call.body.status)

    state = ChannelStatus | None
    return (
        Operation(
            "POST",
            f"{CHANNEL_PATH}/scan",
            scan,
            "Scan the waiting QR code (sandbox)",
            TAG,
            state,
            message="QR code scanned.",
            body=SandboxScan,
            body_optional=True,
            errors=frozenset({409}),
            description="The phone links the account of the channel's waiting QR code: the channel connects "
            "(`channel.connected`). 409 when no code waits (never shown, already scanned, expired).",
        ),
        Operation(
            "POST",
            f"{CHANNEL_PATH}/fail",
            fail,
            "Refuse the waiting QR code (sandbox)",
            TAG,
            state,
            message="QR code refused.",
            body=SandboxFail,
            body_optional=True,
            errors=frozenset({409}),
            description="The attempt fails (`CREATION_FAIL`, `channel.error`); polling then answers `completed` "
            "and `in_progress` false. 409 when no code waits.",
        ),
        Operation(
            "POST",
            f"{CHANNEL_PATH}/status",
            set_status,
            "Change the account's provider status (sandbox)",
            TAG,
            state,
            message="Status changed.",
            body=SandboxStatusChange,
            errors=frozenset({409}),
            description="The provider reports a new status, as its status callback would (`CREDENTIALS`, "
            "`ERROR`, `STOPPED`, `OK`, `SYNC_SUCCESS`, `DELETED`, ...). `data` is the channel afterwards, null when "
            "`DELETED` removed it.",
        ),
        Operation(
            "POST",
            f"{CHANNEL_PATH}/messages",
            inject_message,
            "Receive a message from a contact (sandbox)",
            TAG,
            Message,
            status=201,
            message="Message received.",
            body=SandboxInbound,
            errors=frozenset({409, 422}),
            description="A contact writes to the channel's account: the message is stored (its contact created "
            "when new, matched by phone or handle) and `message.received` is emitted. Sent twice, stored once.",
        ),
        Operation(
            "POST",
            "/sandbox/messages/{message_id:id}/receipts",
            inject_receipt,
            "Report a sent message delivered or read (sandbox)",
            TAG,
            Message,
            message="Receipt applied.",
            body=SandboxReceipt,
            errors=frozenset({409}),
            description="Receipts only move a message forward (`sent` -> `delivered` -> `read`). 409 for a "
            "message the network never accepted.",
        ),
    )
