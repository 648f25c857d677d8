"""The booking step of automatic replies: an AI agent offers free slots and books the one the
customer picks, by the rules of `engage_core.answering.booking`.

It runs only for an agent with `booking_agent_instructions` in a workspace whose plan has the
`booking` feature (opt-in), before the answer engine; when it makes a move, that move is the reply
and the engine is not asked:

- the conversation's pending offer (the slots offered in the AI's latest reply, since its context
  started) and a message picking one of them (`chosen_slot`): the slot is booked for the contact and
  confirmed; when it was taken meanwhile, the next free slots are offered instead;
- a message asking for a booking (`wants_to_book`): the next free slots of the workspace's first
  active booking type are offered, numbered (none in the next 14 days: a hand-over); a workspace
  without an active booking type leaves the message to the engine;
- anything else: no move, the engine answers (with the booking instructions in its prompt).

The offer is stored with the reply that makes it (`AiReply.offer`): the conversation's state is its
latest reply, so a message that picks nothing lets the offer lapse, and a resolve resets it.
"""

from __future__ import annotations

import attrs

from engage_core.answering.booking import (
    NO_SLOT_REPLY,
    TAKEN_PREFIX,
    BookingDesk,
    SlotOffer,
    booked_reply,
    chosen_slot,
    offer_reply,
    wants_to_book,
)
from engage_core.answering.turns import Action

BOOKING_FEATURE = "booking"
"""The plan feature without which the agent neither offers slots nor books."""


@attrs.frozen
class BookingMove:
    """What the booking step answers: the reply, the turn's action, and the slots offered or the
    booking made."""

    reply: str
    action: Action = "continue"
    offer: SlotOffer | None = None
    booking_id: int | None = None


def booking_instructions(instructions: str) -> str:
    """The prompt's part about bookings, for the turns the step leaves to the engine."""
    return (
        f"{instructions.strip()}\n\nBookings: when the customer wants to book, free times are offered to them "
        "separately; do not promise or invent times yourself."
    )


def booking_move(
    desk: BookingDesk, account_id: int, contact_id: int, message: str, pending: SlotOffer | None
) -> BookingMove | None:
    """The step's move for the customer's `message`, or None to leave it to the engine (see the
    module notes)."""
    if pending is not None and pending.starts:
        index = chosen_slot(message, pending)
        if index is not None:
            booked = desk.book(account_id, contact_id, pending.booking_type_id, pending.starts[index])
            if booked is not None:
                return BookingMove(booked_reply(booked), booking_id=booked.booking_id)
            fresh = desk.offer(account_id)
            if fresh is None or not fresh.starts:
                return BookingMove(NO_SLOT_REPLY, "handoff")
            return BookingMove(f"{TAKEN_PREFIX} {offer_reply(fresh)}", offer=fresh)
    if not wants_to_book(message):
        return None
    offer = desk.offer(account_id)
    if offer is None:
        return None
    if not offer.starts:
        return BookingMove(NO_SLOT_REPLY, "handoff")
    return BookingMove(offer_reply(offer), offer=offer)
