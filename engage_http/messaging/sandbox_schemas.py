"""Request bodies of the sandbox routes (`engage_http.messaging.sandbox_routes`)."""

from __future__ import annotations

from typing import Annotated, Literal

import attrs

from engage_core.messaging.sandbox_controls import REASON_MAX, SENDER_MAX, TEXT_MAX
from engage_http.constraints import Doc, Text

SandboxStatus = Literal[
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
]
Reason = Annotated[str, Text(max_length=REASON_MAX)]
Sender = Annotated[
    str,
    Text(max_length=SENDER_MAX, blank=False),
    Doc(description="A phone number (WhatsApp, Telegram) or a handle (Instagram, LinkedIn).", example="+14155550123"),
]


@attrs.frozen
class SandboxScan:
    """Who scans the code: the account's phone (WhatsApp) or handle (Telegram); a sandbox default if omitted."""

    username: Annotated[str, Text(max_length=SENDER_MAX)] | None = None


@attrs.frozen
class SandboxFail:
    """Why the phone refused the code."""

    error: Reason | None = None


@attrs.frozen
class SandboxStatusChange:
    """The provider's new status for the account (its own words), and why."""

    status: SandboxStatus
    reason: Reason | None = None


@attrs.frozen
class SandboxInbound:
    """A message a contact writes to the channel's account."""

    sender: Sender
    text: Annotated[str, Text(max_length=TEXT_MAX, blank=False)]
    sender_name: Annotated[str, Text(max_length=SENDER_MAX)] | None = None


@attrs.frozen
class SandboxReceipt:
    """What the network reports about an outbound message."""

    status: Literal["delivered", "read"]
