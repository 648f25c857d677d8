"""Channel accounts: one connected messaging account per workspace and channel type (SPEC 2, 3, 6).

A workspace keeps at most one channel setting per type (`whatsapp`, `telegram`, `instagram`,
`linkedin`). WhatsApp and Telegram link a device by scanning a QR code; Instagram and LinkedIn log
in with a username and password, possibly followed by one or more 2FA checkpoint rounds. The
gateway (`engage_core.messaging.ports.ChannelGateway`) talks to the network; this module holds the rules.

The connection lifecycle
------------------------

SPEC 2 lists the `sync_status` values and leaves their transitions open. A channel setting is in
one *phase*, and a phase fixes both `sync_status` and `is_connected`:

============  ===============  ============  ===========================================================
phase         sync_status      is_connected  meaning
============  ===============  ============  ===========================================================
absent        (no record)      false         nothing stored: never connected, or disconnected
pending       CONNECTING       false         a QR code is shown or a 2FA checkpoint waits for a code
failed        CREATION_FAIL    false         the attempt failed (QR expired or refused, login refused)
syncing       CONNECTING       true          logged in; the provider is still importing the history
synced        SYNC_SUCCESS     true          the provider finished importing the history
ok            OK               true          running
credentials   CREDENTIALS      false         the password changed or the session was revoked
error         ERROR            false         the provider lost the account for another reason
stopped       STOPPED          false         the provider stopped the account
============  ===============  ============  ===========================================================

Triggers, and where they come from:

- `start`: the owner asks to connect (a new QR code, or credentials that hit a checkpoint);
- `authenticate`: the login went through (QR scanned, credentials or 2FA code accepted);
- `healthy`: the provider reports `OK`, `CREATION_SUCCESS` or `RECONNECTED`;
- `synced`: the provider reports `SYNC_SUCCESS`;
- `fail`: the attempt failed (`CREATION_FAIL`, an expired QR, refused credentials);
- `lose_credentials`, `error`, `stop`: the provider reports `CREDENTIALS` (or `PERMISSIONS`),
  `ERROR`, `STOPPED`;
- `remove`: the owner disconnects, or the provider reports `DELETED`: the record is deleted.

The transition table (`TRANSITIONS`), every move there is; a trigger not listed for a phase is
refused (`next_phase` returns None):

==============  ==========================================================================
from            trigger -> to
==============  ==========================================================================
absent          start -> pending
pending         start -> pending (a fresh code), authenticate -> syncing, healthy -> ok,
                synced -> synced, fail | error | lose_credentials | stop -> failed,
                remove -> absent
failed          start -> pending, remove -> absent
syncing         healthy -> ok, synced -> synced, lose_credentials -> credentials,
                error -> error, stop -> stopped, remove -> absent
synced          healthy -> ok, synced -> synced, (the same three losses), remove -> absent
ok              healthy -> ok, synced -> synced, (the same three losses), remove -> absent
credentials     start -> pending, healthy -> ok, error -> error, stop -> stopped, remove -> absent
error           start -> pending, healthy -> ok, lose_credentials -> credentials,
                stop -> stopped, remove -> absent
stopped         start -> pending, healthy -> ok, lose_credentials -> credentials,
                error -> error, remove -> absent
==============  ==========================================================================

So: a connected account never restarts (connecting again while connected is a conflict: the owner
disconnects first); only a pending attempt can fail; a lost account can recover by itself
(`healthy`) or be connected again by its owner (`start`). A move to the phase the account is
already in changes nothing and emits nothing (repeated callbacks are harmless).

Events (SPEC 6), at most one per move:

- into a connected phase from a disconnected one: `channel.connected` with status
  `CREATION_SUCCESS` for the first connection of an attempt, `RECONNECTED` when a lost account
  came back by itself;
- from `syncing` or `ok` into `synced`: `channel.connected` with status `SYNC_SUCCESS`;
- out of a connected phase into a disconnected one, or removed while connected:
  `channel.disconnected` with the new status (`CREDENTIALS`, `ERROR`, `STOPPED`, `DELETED`) and a
  reason;
- from `pending` into `failed`: `channel.error` with status `CREATION_FAIL` and the error.

`last_synced_at` is the moment the account last entered a connected phase or was refreshed while
connected; on the wire it keeps its numeric UTC offset (`+00:00`, SPEC 1 item 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

import attrs

from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.errors import Conflict
from engage_core.kernel.events import DomainEvent

CHANNEL_TYPES: tuple[str, ...] = ("whatsapp", "telegram", "instagram", "linkedin")
QR_CHANNELS = frozenset({"whatsapp", "telegram"})
"""Channels that link a device by scanning a QR code."""
CREDENTIAL_CHANNELS = frozenset({"instagram", "linkedin"})
"""Channels that log in with a username and password (and maybe 2FA checkpoints)."""
CAMPAIGN_GUARDED = frozenset({"whatsapp"})
"""Channels whose disconnect a running or paused campaign blocks (SPEC 3 Campaign, SPEC 7)."""
SYNC_STATUSES: tuple[str, ...] = (
    "OK",
    "CONNECTING",
    "SYNC_SUCCESS",
    "CREDENTIALS",
    "ERROR",
    "STOPPED",
    "CREATION_FAIL",
)
DEFAULT_COUNTRY = "SA"

Phase = Literal["absent", "pending", "failed", "syncing", "synced", "ok", "credentials", "error", "stopped"]
Trigger = Literal["start", "authenticate", "healthy", "synced", "fail", "lose_credentials", "error", "stop", "remove"]

PHASES: Mapping[Phase, tuple[str, bool]] = {
    "pending": ("CONNECTING", False),
    "failed": ("CREATION_FAIL", False),
    "syncing": ("CONNECTING", True),
    "synced": ("SYNC_SUCCESS", True),
    "ok": ("OK", True),
    "credentials": ("CREDENTIALS", False),
    "error": ("ERROR", False),
    "stopped": ("STOPPED", False),
}
"""Each stored phase as (`sync_status`, `is_connected`). `absent` has no record."""
CONNECTED: frozenset[Phase] = frozenset(p for p, (_, connected) in PHASES.items() if connected)

_LOSSES: Mapping[Trigger, Phase] = {"lose_credentials": "credentials", "error": "error", "stop": "stopped"}

TRANSITIONS: Mapping[Phase, Mapping[Trigger, Phase]] = {
    "absent": {"start": "pending"},
    "pending": {
        "start": "pending",
        "authenticate": "syncing",
        "healthy": "ok",
        "synced": "synced",
        "fail": "failed",
        "error": "failed",
        "lose_credentials": "failed",
        "stop": "failed",
        "remove": "absent",
    },
    "failed": {"start": "pending", "remove": "absent"},
    "syncing": {"healthy": "ok", "synced": "synced", **_LOSSES, "remove": "absent"},
    "synced": {"healthy": "ok", "synced": "synced", **_LOSSES, "remove": "absent"},
    "ok": {"healthy": "ok", "synced": "synced", **_LOSSES, "remove": "absent"},
    "credentials": {"start": "pending", "healthy": "ok", "error": "error", "stop": "stopped", "remove": "absent"},
    "error": {"start": "pending", "healthy": "ok", "lose_credentials": "credentials", "stop": "stopped",
              "remove": "absent"},
    "stopped": {"start": "pending", "healthy": "ok", "lose_credentials": "credentials", "error": "error",
                "remove": "absent"},
}  # fmt: skip
"""Every move of the connection lifecycle (see the module docstring)."""

PROVIDER_TRIGGERS: Mapping[str, Trigger] = {
    "OK": "healthy",
    "CREATION_SUCCESS": "healthy",
    "RECONNECTED": "healthy",
    "SYNC_SUCCESS": "synced",
    "CREATION_FAIL": "fail",
    "CREDENTIALS": "lose_credentials",
    "PERMISSIONS": "lose_credentials",
    "ERROR": "error",
    "STOPPED": "stop",
    "DELETED": "remove",
}
"""A provider's account status (as polled or called back) as a trigger. `CONNECTING` (and any
status not listed) moves nothing: the account is still on its way."""

DISCONNECT_STATUSES: Mapping[Phase, str] = {"credentials": "CREDENTIALS", "error": "ERROR", "stopped": "STOPPED"}


def next_phase(phase: Phase, trigger: Trigger) -> Phase | None:
    """Where `trigger` takes an account in `phase`, or None when the move is not allowed."""
    return TRANSITIONS[phase].get(trigger)


def trigger_for(provider_status: str) -> Trigger | None:
    """The trigger a provider's account status amounts to, or None when it moves nothing."""
    return PROVIDER_TRIGGERS.get(provider_status.upper())


class ChannelMoveRefused(Exception):
    """`advance` was asked for a move the transition table does not have."""

    def __init__(self, phase: Phase, trigger: Trigger) -> None:
        super().__init__(f"A channel in phase {phase} cannot take {trigger}.")
        self.phase = phase
        self.trigger = trigger


@attrs.frozen
class ChannelAccount:
    """A workspace's channel setting. `provider_account_id` is the gateway's id of the account (the
    `account_id` string of SPEC 4); `checkpoint_type` is set while a 2FA round waits for a code;
    `error` says why the last attempt failed or why the account went offline; `connected_at` is when
    the current attempt first connected (None until then: it tells `CREATION_SUCCESS` from
    `RECONNECTED`)."""

    id: int
    type: str
    provider_account_id: str | None
    username: str | None
    sync_status: str
    is_connected: bool
    last_synced_at: datetime | None
    created_at: datetime
    updated_at: datetime
    checkpoint_type: str | None = None
    error: str | None = None
    connected_at: datetime | None = None

    @property
    def phase(self) -> Phase:
        for phase, state in PHASES.items():
            if state == (self.sync_status, self.is_connected):
                return phase
        raise ValueError(f"no phase has sync_status {self.sync_status} with is_connected {self.is_connected}")

    @property
    def in_progress(self) -> bool:
        """Polling's `in_progress`: a QR code or a checkpoint is waiting for the owner."""
        return self.phase == "pending"

    @property
    def completed(self) -> bool:
        """Polling's `completed`: the account is connected."""
        return self.is_connected

    def connected_payload(self, status: str, now: datetime) -> Mapping[str, Any]:
        """`channel.connected` data (SPEC 6)."""
        return {
            "channel": self.type,
            "channel_id": self.id,
            "username": self.username,
            "status": status,
            "connected_at": format_timestamp(now),
        }

    def disconnected_payload(self, status: str, reason: str | None, now: datetime) -> Mapping[str, Any]:
        """`channel.disconnected` data (SPEC 6)."""
        return {
            "channel": self.type,
            "channel_id": self.id,
            "username": self.username,
            "status": status,
            "reason": reason,
            "disconnected_at": format_timestamp(now),
        }

    def error_payload(self, error: str | None, now: datetime) -> Mapping[str, Any]:
        """`channel.error` data (SPEC 6)."""
        return {
            "channel": self.type,
            "channel_id": self.id,
            "status": "CREATION_FAIL",
            "error": error,
            "occurred_at": format_timestamp(now),
        }


@attrs.frozen
class ChannelDraft:
    """A new channel setting: stored in phase `pending` (`start` from `absent`). Without a
    `provider_account_id` when the provider refused the login before creating an account."""

    type: str
    provider_account_id: str | None
    username: str | None = None
    checkpoint_type: str | None = None


def channel_taken(channel: str) -> Conflict:
    """The 409 of a setting added for a type that has one: another request started a connection
    of the channel since this one looked."""
    return Conflict(f"A connection of the {channel} channel was started by another request meanwhile. Try again.")


def format_synced_at(moment: datetime | None) -> str | None:
    """`last_synced_at` on the wire: ISO 8601 with microseconds and a numeric offset (SPEC 1 item 5)."""
    return None if moment is None else moment.astimezone(UTC).isoformat(timespec="microseconds")


def advance(
    account: ChannelAccount, trigger: Trigger, now: datetime, *, detail: str | None = None
) -> tuple[ChannelAccount, list[DomainEvent]]:
    """Apply one move of the table to a stored account: the account as it is after, and its events.

    `detail` is the error (`fail`) or the reason (a loss). `remove` is `removal`'s business, not
    this function's. Raises ChannelMoveRefused for a move the table does not have."""
    before = account.phase
    after = next_phase(before, trigger)
    if after is None or after == "absent":
        raise ChannelMoveRefused(before, trigger)
    if after == before:
        return account, []
    sync_status, connected = PHASES[after]
    changed = attrs.evolve(account, sync_status=sync_status, is_connected=connected, updated_at=now)
    events: list[DomainEvent] = []
    if after == "pending":
        changed = attrs.evolve(changed, connected_at=None, error=None, last_synced_at=None)
    elif after in CONNECTED:
        changed = attrs.evolve(changed, last_synced_at=now, checkpoint_type=None, error=None)
        if before not in CONNECTED:
            status = "CREATION_SUCCESS" if account.connected_at is None else "RECONNECTED"
            changed = attrs.evolve(changed, connected_at=now)
            events.append(DomainEvent("channel.connected", changed.connected_payload(status, now), now))
        elif after == "synced":
            events.append(DomainEvent("channel.connected", changed.connected_payload("SYNC_SUCCESS", now), now))
    elif after == "failed":
        changed = attrs.evolve(changed, checkpoint_type=None, error=detail)
        events.append(DomainEvent("channel.error", changed.error_payload(detail, now), now))
    else:  # a loss: credentials, error, stopped
        changed = attrs.evolve(changed, error=detail)
        if before in CONNECTED:
            payload = changed.disconnected_payload(DISCONNECT_STATUSES[after], detail, now)
            events.append(DomainEvent("channel.disconnected", payload, now))
    return changed, events


def removal(account: ChannelAccount, now: datetime, reason: str) -> list[DomainEvent]:
    """The events of deleting a channel setting: `channel.disconnected` (`DELETED`) when it was
    connected, nothing otherwise (an attempt that never connected did not go offline)."""
    if not account.is_connected:
        return []
    return [DomainEvent("channel.disconnected", account.disconnected_payload("DELETED", reason, now), now)]


class NoActiveCampaigns:
    """The campaign guard until campaigns exist: no channel has a running or paused campaign."""

    def active_on(self, account_id: int, channel: str) -> bool:
        return False
