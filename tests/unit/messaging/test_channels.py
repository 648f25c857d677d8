"""The connection lifecycle of a channel setting: the transition table, moves and their events."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, get_args

import pytest

from engage_core.messaging.channels import (
    CONNECTED,
    PHASES,
    TRANSITIONS,
    ChannelAccount,
    ChannelMoveRefused,
    Phase,
    Trigger,
    advance,
    format_synced_at,
    next_phase,
    removal,
    trigger_for,
)

from ..factories import START

LATER = START + timedelta(minutes=5)


def channel(phase: Phase = "pending", **overrides: Any) -> ChannelAccount:
    """A stored WhatsApp setting in `phase`."""
    sync_status, connected = PHASES[phase]
    fields: dict[str, Any] = {
        "id": 7,
        "type": "whatsapp",
        "provider_account_id": "acc-1",
        "username": "+966501234567",
        "sync_status": sync_status,
        "is_connected": connected,
        "last_synced_at": None,
        "created_at": START,
        "updated_at": START,
        "connected_at": START if connected else None,
    }
    fields.update(overrides)
    return ChannelAccount(**fields)


def test_every_phase_and_trigger_is_in_the_table() -> None:
    """The table has a row for every phase, and names only known triggers and phases."""
    assert set(TRANSITIONS) == set(get_args(Phase))
    for moves in TRANSITIONS.values():
        assert set(moves) <= set(get_args(Trigger))
        assert set(moves.values()) <= set(get_args(Phase))


def test_a_connected_phase_never_restarts() -> None:
    """Connecting again while connected is not a move: the owner must disconnect first."""
    assert all(next_phase(phase, "start") is None for phase in CONNECTED)


def test_only_a_pending_attempt_can_fail() -> None:
    """`failed` is reached from `pending` only."""
    sources = {phase for phase, moves in TRANSITIONS.items() if "failed" in moves.values()}
    assert sources == {"pending"}


def test_every_stored_phase_can_be_removed() -> None:
    """Disconnecting works from every phase."""
    assert all(TRANSITIONS[phase]["remove"] == "absent" for phase in PHASES)


def test_each_stored_phase_has_a_distinct_state() -> None:
    """No two phases share (sync_status, is_connected), so a record's phase is unambiguous."""
    assert len(set(PHASES.values())) == len(PHASES)


@pytest.mark.parametrize(
    ("status", "trigger"),
    [("OK", "healthy"), ("RECONNECTED", "healthy"), ("SYNC_SUCCESS", "synced"), ("PERMISSIONS", "lose_credentials"),
     ("deleted", "remove"), ("CONNECTING", None), ("SOMETHING_NEW", None)],
)  # fmt: skip
def test_provider_statuses_map_to_triggers(status: str, trigger: Trigger | None) -> None:
    """A provider's status is read case-insensitively; CONNECTING and unknown ones move nothing."""
    assert trigger_for(status) == trigger


def test_scanning_connects_with_creation_success() -> None:
    """pending -> ok emits channel.connected CREATION_SUCCESS with the SPEC 6 fields."""
    after, events = advance(channel("pending"), "healthy", LATER)
    assert (after.sync_status, after.is_connected, after.last_synced_at) == ("OK", True, LATER)
    assert [e.name for e in events] == ["channel.connected"]
    assert events[0].payload == {
        "channel": "whatsapp",
        "channel_id": 7,
        "username": "+966501234567",
        "status": "CREATION_SUCCESS",
        "connected_at": "2026-01-01T12:05:00.000000Z",
    }


def test_authenticating_connects_while_syncing() -> None:
    """pending -> syncing: connected, sync_status CONNECTING (SPEC 3's Instagram example)."""
    after, _ = advance(channel("pending", checkpoint_type="2FA"), "authenticate", LATER)
    assert (after.sync_status, after.is_connected, after.checkpoint_type) == ("CONNECTING", True, None)


def test_a_lost_account_that_recovers_reports_reconnected() -> None:
    """credentials -> ok emits channel.connected RECONNECTED."""
    lost = channel("credentials", connected_at=START)
    _, events = advance(lost, "healthy", LATER)
    assert events[0].payload["status"] == "RECONNECTED"


def test_finishing_the_sync_reports_sync_success() -> None:
    """syncing -> synced emits channel.connected SYNC_SUCCESS."""
    _, events = advance(channel("syncing"), "synced", LATER)
    assert [(e.name, e.payload["status"]) for e in events] == [("channel.connected", "SYNC_SUCCESS")]


def test_a_healthy_report_after_the_sync_is_silent() -> None:
    """synced -> ok is a connected-to-connected move: no event."""
    after, events = advance(channel("synced"), "healthy", LATER)
    assert (after.sync_status, events) == ("OK", [])


def test_losing_credentials_disconnects_with_the_reason() -> None:
    """ok -> credentials emits channel.disconnected CREDENTIALS with the reason."""
    after, events = advance(channel("ok"), "lose_credentials", LATER, detail="Password changed")
    assert (after.sync_status, after.is_connected, after.error) == ("CREDENTIALS", False, "Password changed")
    assert events[0].name == "channel.disconnected"
    assert (events[0].payload["status"], events[0].payload["reason"]) == ("CREDENTIALS", "Password changed")
    assert events[0].payload["disconnected_at"] == "2026-01-01T12:05:00.000000Z"


def test_moving_between_losses_is_silent() -> None:
    """error -> stopped does not go offline again: no event."""
    after, events = advance(channel("error"), "stop", LATER)
    assert (after.sync_status, events) == ("STOPPED", [])


def test_a_failed_attempt_reports_channel_error() -> None:
    """pending -> failed emits channel.error CREATION_FAIL with the error."""
    after, events = advance(channel("pending"), "fail", LATER, detail="The QR code expired.")
    assert after.sync_status == "CREATION_FAIL"
    assert events[0].payload == {
        "channel": "whatsapp",
        "channel_id": 7,
        "status": "CREATION_FAIL",
        "error": "The QR code expired.",
        "occurred_at": "2026-01-01T12:05:00.000000Z",
    }


def test_a_repeated_report_changes_nothing() -> None:
    """ok -> ok returns the same account and no event."""
    account = channel("ok")
    assert advance(account, "healthy", LATER) == (account, [])


def test_restarting_forgets_the_previous_connection() -> None:
    """start from a lost phase clears connected_at, so the next connection is a new creation."""
    after, events = advance(channel("stopped", connected_at=START, error="Stopped"), "start", LATER)
    assert (after.phase, after.connected_at, after.error, events) == ("pending", None, None, [])


def test_a_move_outside_the_table_is_refused() -> None:
    """advance raises ChannelMoveRefused for a move the table does not have."""
    with pytest.raises(ChannelMoveRefused):
        advance(channel("ok"), "start", LATER)


def test_removing_a_connected_channel_reports_deleted() -> None:
    """removal of a connected setting emits channel.disconnected DELETED."""
    events = removal(channel("ok"), LATER, "Disconnected by the workspace.")
    assert [(e.name, e.payload["status"]) for e in events] == [("channel.disconnected", "DELETED")]


def test_removing_an_attempt_that_never_connected_is_silent() -> None:
    """A pending or failed setting did not go offline: no event."""
    assert removal(channel("pending"), LATER, "Disconnected by the workspace.") == []


def test_polling_flags_follow_the_phase() -> None:
    """pending: in_progress; connected: completed; failed: neither (SPEC 3, Telegram)."""
    flags = {p: (channel(p).completed, channel(p).in_progress) for p in ("pending", "ok", "failed")}
    assert flags == {"pending": (False, True), "ok": (True, False), "failed": (False, False)}


def test_last_synced_at_keeps_a_numeric_offset() -> None:
    """last_synced_at on the wire ends in +00:00, not Z (SPEC 1 item 5)."""
    assert format_synced_at(START) == "2026-01-01T12:00:00.000000+00:00"
    assert format_synced_at(None) is None
