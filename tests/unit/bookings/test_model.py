"""Booking rules: the transition table, each move, rescheduling, filters and event payloads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import attrs
import pytest

from engage_core.bookings.model import (
    BOOKING_STATUSES,
    TERMINAL,
    TRANSITIONS,
    Booking,
    BookingFilter,
    booking_events,
    booking_title,
    cancel,
    check_move,
    complete,
    confirm,
    reschedule,
)
from engage_core.kernel.errors import ValidationFailed

from ..factories import START, contact_entity

BERLIN = ZoneInfo("Europe/Berlin")
LATER = START + timedelta(days=3)


def booking_entity(**overrides: Any) -> Booking:
    """A confirmed one-hour booking three days after START."""
    fields: dict[str, Any] = {
        "id": 7,
        "contact_id": 1,
        "booking_type_id": 2,
        "resource_id": 3,
        "title": "Consultation with Ada Lovelace",
        "starts_at": LATER,
        "ends_at": LATER + timedelta(hours=1),
        "status": "confirmed",
        "notes": None,
        "created_at": START,
        "updated_at": START,
    }
    fields.update(overrides)
    return Booking(**fields)


ALL_MOVES = [(a, b) for a in BOOKING_STATUSES for b in BOOKING_STATUSES if a != b]


def test_the_transition_table_is_the_documented_one() -> None:
    """pending -> confirmed|cancelled, confirmed -> completed|cancelled; the rest is terminal."""
    assert dict(TRANSITIONS) == {
        "pending": ("confirmed", "cancelled"),
        "confirmed": ("completed", "cancelled"),
        "completed": (),
        "cancelled": (),
    }
    assert frozenset({"completed", "cancelled"}) == TERMINAL


@pytest.mark.parametrize(("current", "to"), ALL_MOVES)
def test_only_table_moves_are_allowed(current: str, to: str) -> None:
    """check_move allows exactly the moves of the table."""
    if to in TRANSITIONS[current]:
        check_move(current, to)
    else:
        with pytest.raises(ValidationFailed):
            check_move(current, to)


def test_a_refused_move_names_both_states() -> None:
    """The 422 message says from where to where."""
    with pytest.raises(ValidationFailed) as caught:
        check_move("pending", "completed")
    assert "from pending to completed" in caught.value.message
    assert list(caught.value.errors) == ["status"]


def test_a_move_out_of_a_terminal_state_says_it_is_final() -> None:
    """Cancelled bookings are final."""
    with pytest.raises(ValidationFailed) as caught:
        check_move("cancelled", "confirmed")
    assert "cancelled is final" in caught.value.message


def test_confirm_moves_pending_to_confirmed() -> None:
    """Confirming stamps updated_at."""
    moved = confirm(booking_entity(status="pending"), LATER)
    assert (moved.status, moved.updated_at) == ("confirmed", LATER)


def test_cancel_records_when_and_why() -> None:
    """Cancelling sets cancelled_at and the trimmed reason."""
    moved = cancel(booking_entity(), START, "  Ill  ")
    assert (moved.status, moved.cancelled_at, moved.cancellation_reason) == ("cancelled", START, "Ill")


def test_complete_needs_the_booking_to_have_started() -> None:
    """Completing before starts_at is refused; at starts_at it works."""
    booking = booking_entity()
    with pytest.raises(ValidationFailed):
        complete(booking, booking.starts_at - timedelta(seconds=1))
    assert complete(booking, booking.starts_at).status == "completed"


def test_a_pending_booking_cannot_be_completed() -> None:
    """pending -> completed is not a move: confirm first."""
    with pytest.raises(ValidationFailed):
        complete(booking_entity(status="pending"), LATER + timedelta(hours=2))


def test_reschedule_keeps_the_length() -> None:
    """A 90-minute booking moved keeps 90 minutes."""
    booking = booking_entity(ends_at=LATER + timedelta(minutes=90))
    moved = reschedule(booking, LATER + timedelta(days=1), START)
    assert moved.ends_at - moved.starts_at == timedelta(minutes=90)


def test_reschedule_into_the_past_is_refused() -> None:
    """A new start before now is a 422 on starts_at."""
    with pytest.raises(ValidationFailed) as caught:
        reschedule(booking_entity(), START - timedelta(minutes=1), START)
    assert list(caught.value.errors) == ["starts_at"]


@pytest.mark.parametrize("status", ["cancelled", "completed"])
def test_only_live_bookings_can_be_rescheduled(status: str) -> None:
    """Cancelled and completed bookings keep their time."""
    with pytest.raises(ValidationFailed):
        reschedule(booking_entity(status=status), LATER + timedelta(days=1), START)


def test_the_title_names_type_and_customer() -> None:
    """`<type> with <contact>`."""
    assert booking_title("Haircut", "Ada") == "Haircut with Ada"


def test_the_filter_bounds_starts_at_inclusively() -> None:
    """from and to both include a booking starting exactly there."""
    booking = booking_entity()
    assert BookingFilter(starts_from=LATER, starts_to=LATER).matches(booking)
    assert not BookingFilter(starts_from=LATER + timedelta(seconds=1)).matches(booking)


def test_the_payload_renders_date_and_times_in_the_workspace_timezone() -> None:
    """A booking at 23:30 UTC on 31 March is 1 April 01:30-02:30 in Berlin (CEST)."""
    starts = datetime(2026, 3, 31, 23, 30, tzinfo=UTC)
    payload = booking_entity(starts_at=starts, ends_at=starts + timedelta(hours=1)).event_payload(BERLIN, None)
    assert (payload["booking_date"], payload["start_time"], payload["end_time"]) == ("2026-04-01", "01:30", "02:30")


def test_the_payload_carries_the_customer_and_resource() -> None:
    """customer_* come from the contact; booking_resource_id is the resource."""
    payload = booking_entity().event_payload(BERLIN, contact_entity())
    assert (payload["customer_name"], payload["customer_phone"], payload["booking_resource_id"]) == (
        "Ada Lovelace",
        "+966501234567",
        3,
    )


def test_a_new_booking_emits_created() -> None:
    """No `before`: one booking.created."""
    assert [e.name for e in booking_events(None, booking_entity(), START, BERLIN, None)] == ["booking.created"]


def test_cancelling_emits_updated_then_cancelled() -> None:
    """A status move to cancelled: booking.updated, then booking.cancelled with the short payload."""
    before = booking_entity()
    events = booking_events(before, cancel(before, START, None), START, BERLIN, None)
    assert [e.name for e in events] == ["booking.updated", "booking.cancelled"]
    assert "end_time" not in events[1].payload


def test_completing_emits_updated_then_completed() -> None:
    """A status move to completed: booking.updated, then booking.completed."""
    before = booking_entity()
    events = booking_events(before, complete(before, LATER), LATER, BERLIN, None)
    assert [e.name for e in events] == ["booking.updated", "booking.completed"]


def test_no_change_emits_nothing() -> None:
    """The same booking before and after: no event."""
    booking = booking_entity()
    assert booking_events(booking, attrs.evolve(booking), START, BERLIN, None) == []
