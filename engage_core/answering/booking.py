"""The booking step's port and rules: what an AI agent may do with the workspace's bookings (offer
free slots, book one), and how a customer's message asks for a booking or picks an offered slot.

`BookingDesk` is the port (implemented over the bookings area, `engage_core.agents.booking_desk`).
The rules here are plain and deterministic, in English and Arabic, so a booking is never made on a
model's guess:

- `wants_to_book`: the message holds a booking word ("book", "booking", "appointment", "reserve",
  "reservation", "schedule", "slot", "حجز", "احجز", "موعد");
- `chosen_slot`: the message picks one offered slot by its number ("2", "option 2", "#2", "٢"), its
  ordinal ("the second", "الثاني"), or its local time ("10:30", "2pm") when one offered slot starts then;
  anything else picks nothing (and a message picking two picks nothing either).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol
from zoneinfo import ZoneInfo

import attrs

OFFERED = 3
"""Slots offered at most: the first free one of each of the next days that have one."""
HORIZON_DAYS = 14
"""Days ahead, today included, searched for free slots."""


@attrs.frozen
class SlotOffer:
    """Free slots of a booking type, offered to a customer: their starts, in time order, and the
    workspace's timezone they are told in."""

    booking_type_id: int
    booking_type_name: str
    timezone: str
    starts: tuple[datetime, ...]


@attrs.frozen
class Booked:
    """A booking the agent made: its id, type and start."""

    booking_id: int
    booking_type_name: str
    timezone: str
    starts_at: datetime


class BookingDesk(Protocol):
    """The workspace's bookings, as an AI agent uses them."""

    def offer(self, account_id: int) -> SlotOffer | None:
        """Up to `OFFERED` free slots of the workspace's first active booking type in the next
        `HORIZON_DAYS` days (none may be free: `starts` empty); None when it has no active type."""

    def book(self, account_id: int, contact_id: int, booking_type_id: int, starts_at: datetime) -> Booked | None:
        """Book the slot for the contact (`booking.created`); the contact's live booking of that
        type at that start when it has one already (a retried job books once); None when the slot
        is no longer free or the type no longer active."""


_BOOK_WORDS = re.compile(
    r"\b(?:book|booking|appointment|appointments|reserve|reservation|schedule|slot|slots)\b|حجز|احجز|أحجز|موعد|مواعيد",
    re.IGNORECASE,
)
_ORDINALS = (
    ("first", "1st", "الأول", "الاول", "أول"),
    ("second", "2nd", "الثاني", "ثاني"),
    ("third", "3rd", "الثالث", "ثالث"),
)
_NUMBER = re.compile(r"(?<![\d:.])(\d)(?![\d:.]|\s*[ap]m\b)")
_TIME = re.compile(r"(?<!\d)(\d{1,2})(?:[:.](\d{2}))?\s*(am|pm)\b|(?<!\d)(\d{1,2})[:.](\d{2})(?!\d)")
_ARABIC_DIGITS = str.maketrans("٠١٢٣٤٥٦٧٨٩", "0123456789")


def wants_to_book(message: str) -> bool:
    """Whether the message asks for a booking (see the module notes)."""
    return _BOOK_WORDS.search(message) is not None


def chosen_slot(message: str, offer: SlotOffer) -> int | None:
    """The index of the offered slot the message picks, or None (see the module notes)."""
    text = message.translate(_ARABIC_DIGITS).casefold()
    count = len(offer.starts)
    picked: set[int] = set()
    picked.update(int(n) - 1 for n in _NUMBER.findall(text) if 1 <= int(n) <= count)
    for index, words in enumerate(_ORDINALS[:count]):
        if any(re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) for w in words):
            picked.add(index)
    zone = ZoneInfo(offer.timezone)
    for hour12, minute12, half, hour24, minute24 in _TIME.findall(text):
        if half:
            wanted = (int(hour12) % 12 + (12 if half == "pm" else 0), int(minute12 or 0))
        else:
            wanted = (int(hour24), int(minute24))
        picked.update(i for i, start in enumerate(offer.starts) if _hm(start, zone) == wanted)
    return picked.pop() if len(picked) == 1 else None


def _hm(moment: datetime, zone: ZoneInfo) -> tuple[int, int]:
    local = moment.astimezone(zone)
    return local.hour, local.minute


def local_time(moment: datetime, timezone: str) -> str:
    """`Mon 7 Dec, 10:30` in the workspace's timezone."""
    local = moment.astimezone(ZoneInfo(timezone))
    return f"{local:%a} {local.day} {local:%b}, {local:%H:%M}"


def offer_reply(offer: SlotOffer) -> str:
    """The message offering the slots, numbered."""
    lines = [f"{n}. {local_time(start, offer.timezone)}" for n, start in enumerate(offer.starts, 1)]
    return (
        f"Here are the next free times for {offer.booking_type_name} ({offer.timezone}):\n"
        + "\n".join(lines)
        + "\nReply with the number of the one you would like."
    )


def booked_reply(booked: Booked) -> str:
    """The message confirming a booking."""
    when = local_time(booked.starts_at, booked.timezone)
    return f"You're booked: {booked.booking_type_name} on {when} ({booked.timezone})."


NO_SLOT_REPLY = (
    "I'm sorry, there is no free time in the next two weeks. I'm passing your request to a member of our team, "
    "who will get back to you here."
)
TAKEN_PREFIX = "I'm sorry, that time was just taken."


def offer_document(offer: SlotOffer) -> dict[str, object]:
    """The offer as stored (a JSON object)."""
    return {
        "booking_type_id": offer.booking_type_id,
        "booking_type_name": offer.booking_type_name,
        "timezone": offer.timezone,
        "starts": [start.isoformat() for start in offer.starts],
    }


def offer_from_document(document: Mapping[str, Any]) -> SlotOffer:
    """An offer stored by `offer_document`, read back."""
    return SlotOffer(
        int(document["booking_type_id"]),
        str(document["booking_type_name"]),
        str(document["timezone"]),
        tuple(datetime.fromisoformat(str(v)) for v in document["starts"]),
    )
