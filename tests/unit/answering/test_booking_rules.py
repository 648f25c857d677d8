"""The booking step's rules: a booking request, and the offered slot a message picks (by number,
ordinal or time, in English and Arabic), or none."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engage_core.answering.booking import SlotOffer, chosen_slot, offer_document, offer_from_document, wants_to_book

OFFER = SlotOffer(
    4,
    "Consultation",
    "Asia/Riyadh",
    (
        datetime(2026, 1, 1, 7, 30, tzinfo=UTC),  # 10:30 in Riyadh
        datetime(2026, 1, 2, 6, 0, tzinfo=UTC),  # 09:00
        datetime(2026, 1, 3, 11, 0, tzinfo=UTC),  # 14:00
    ),
)


@pytest.mark.parametrize(
    "message", ["Can I book a table?", "I need an appointment", "Any free slots tomorrow?", "أريد حجز موعد"]
)
def test_a_booking_request_is_seen(message: str) -> None:
    """Booking words, in English and Arabic."""
    assert wants_to_book(message)


@pytest.mark.parametrize("message", ["When do you open?", "Thanks!", "My name is Sara"])
def test_other_messages_ask_no_booking(message: str) -> None:
    """No booking word, no booking request."""
    assert not wants_to_book(message)


@pytest.mark.parametrize(
    ("message", "index"),
    [
        ("2", 1),
        ("Option 3 please", 2),
        ("the first one", 0),
        ("10:30", 0),
        ("2pm works", 2),
        ("at 3 pm", None),
        ("2:00 pm works", 2),
        ("٢", 1),
        ("الثالث", 2),
    ],
)
def test_a_message_picks_an_offered_slot(message: str, index: int | None) -> None:
    """By number, ordinal or local time; a time no slot starts at picks none."""
    assert chosen_slot(message, OFFER) == index


@pytest.mark.parametrize("message", ["4", "1 or 2", "not now", "at 11:00"])
def test_a_message_picks_no_slot(message: str) -> None:
    """Out of range, two picks, or none at all: nothing is picked."""
    assert chosen_slot(message, OFFER) is None


def test_an_offer_survives_its_document() -> None:
    """Stored as JSON and read back equal."""
    assert offer_from_document(offer_document(OFFER)) == OFFER
