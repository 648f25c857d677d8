"""The AI agent's booking and memory steps through a real `engage serve` (the sandbox WhatsApp, the
offline engine, the in-process worker): a customer asks to book, is offered free slots, picks one,
and the booking exists; what they said about themselves is kept in the contact's memories."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from test_e2e_auto_replies import Workspace, wait_for

pytestmark = pytest.mark.e2e

AGENT = {
    "booking_agent_instructions": "Offer the earliest times first.",
    "memory_agent_instructions": "Remember the customer's name and preferences.",
}


def test_a_customer_books_an_offered_slot_and_is_remembered(start_server: Callable[..., Any]) -> None:
    """Inbound booking request → slots offered through the sandbox → "1" → a booking of the contact
    at the first slot, confirmed to the customer; the customer's name is a memory of the contact."""
    space = Workspace(start_server())
    [agent] = space.call("GET", "/ai-agents")
    space.call("PUT", f"/ai-agents/{agent['id']}", AGENT)
    kind = space.call("POST", "/bookings/types", {"name": "Consultation", "duration_minutes": 30})

    first = space.customer_writes("My name is Sara. I would like to book an appointment.")
    contact = first["contact_id"]
    [offer] = wait_for(lambda: space.replies(contact), "the offered slots")
    assert offer["content"].startswith("Here are the next free times for Consultation (UTC):\n1. ")

    space.customer_writes("1")
    replies = wait_for(lambda: space.replies(contact)[1:], "the booking's confirmation")
    assert replies[0]["content"].startswith("You're booked: Consultation on ")

    [booking] = space.call("GET", f"/bookings?contact_id={contact}")
    assert (booking["booking_type_id"], booking["status"]) == (kind["id"], "confirmed")
    memories = space.call("GET", f"/contacts/{contact}/memories")
    assert [(m["fact"], m["source_message_id"]) for m in memories] == [("Name: Sara", first["id"])]
