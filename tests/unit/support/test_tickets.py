"""The pure ticket rules: the transition table, references, replies, closing and changes (SPEC 3, 6)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from engage_core.kernel.errors import ValidationFailed
from engage_core.support.departments import Department
from engage_core.support.tickets import (
    ADMIN_REPLY,
    CLIENT_REPLY,
    CLOSE,
    TICKET_STATUSES,
    TRANSITIONS,
    TRIGGERS,
    Ticket,
    TicketFilter,
    TicketReply,
    changed,
    close,
    next_status,
    reference,
    replied,
)

from ..factories import START

LATER = START + timedelta(hours=1)


def ticket_entity(**overrides: Any) -> Ticket:
    """A Ticket value; defaults describe an open medium ticket in department 7."""
    fields: dict[str, Any] = {
        "id": 1,
        "ticket_id": "TKT-000001",
        "subject": "Login fails",
        "body": "Since this morning.",
        "priority": "medium",
        "status": "open",
        "department": Department(7, "General", START, START),
        "assignee_id": None,
        "last_reply_at": None,
        "closed_at": None,
        "created_at": START,
        "updated_at": START,
    }
    fields.update(overrides)
    return Ticket(**fields)


def reply_entity(type: str = "client", **overrides: Any) -> TicketReply:
    fields: dict[str, Any] = {"id": 50, "reply": "Any news?", "type": type, "author_id": None, "created_at": LATER}
    fields.update(overrides)
    return TicketReply(**fields)


# -- the table -------------------------------------------------------------------------------------


def test_the_table_covers_every_state() -> None:
    """Every status of SPEC 2 has a row, and nothing else does."""
    assert set(TRANSITIONS) == set(TICKET_STATUSES)


def test_closed_is_the_only_final_state() -> None:
    """Only closed has no outgoing move."""
    assert [status for status, moves in TRANSITIONS.items() if not moves] == ["closed"]


@pytest.mark.parametrize(
    ("status", "trigger", "to"),
    [
        ("open", CLIENT_REPLY, "open"),
        ("open", ADMIN_REPLY, "answered"),
        ("answered", CLIENT_REPLY, "open"),
        ("answered", ADMIN_REPLY, "answered"),
        ("open", CLOSE, "closed"),
        ("answered", CLOSE, "closed"),
    ],
)
def test_each_allowed_move_leads_where_the_table_says(status: str, trigger: str, to: str) -> None:
    """SPEC 3: a client reply reopens, an operator reply answers, close closes."""
    assert next_status(status, trigger) == to


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_a_closed_ticket_refuses_every_trigger(trigger: str) -> None:
    """SPEC 3: closed tickets receive no further replies and have no outgoing move."""
    with pytest.raises(ValidationFailed):
        next_status("closed", trigger)


def test_a_reply_to_a_closed_ticket_says_why() -> None:
    """The 422 names the reply field and says the ticket is closed."""
    with pytest.raises(ValidationFailed) as caught:
        next_status("closed", CLIENT_REPLY)
    assert "closed" in caught.value.errors["reply"][0]


# -- references ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("number", "text"), [(1, "TKT-000001"), (123, "TKT-000123"), (1_234_567, "TKT-1234567")])
def test_references_are_padded_ticket_numbers(number: int, text: str) -> None:
    """The reference is TKT- and the number, at least six digits."""
    assert reference(number) == text


def test_ticket_numbers_start_at_one() -> None:
    """Zero is not a ticket number."""
    with pytest.raises(ValueError, match="start at 1"):
        reference(0)


# -- replies ---------------------------------------------------------------------------------------


def test_an_operator_reply_answers_the_ticket() -> None:
    """An admin reply moves open to answered and records when."""
    ticket, _ = replied(ticket_entity(), reply_entity("admin"))
    assert (ticket.status, ticket.last_reply_at, ticket.updated_at) == ("answered", LATER, LATER)


def test_a_status_moving_reply_emits_replied_then_updated() -> None:
    """ticket.replied, then ticket.updated for the move."""
    _, events = replied(ticket_entity(status="answered"), reply_entity("client"))
    assert [e.name for e in events] == ["ticket.replied", "ticket.updated"]


def test_a_reply_that_keeps_the_status_emits_only_replied() -> None:
    """A client reply on an open ticket moves nothing."""
    _, events = replied(ticket_entity(), reply_entity("client"))
    assert [e.name for e in events] == ["ticket.replied"]


def test_the_replied_payload_names_the_ticket_and_the_author() -> None:
    """ticket.replied carries the reference, subject, reply id, text, type and user."""
    _, events = replied(ticket_entity(), reply_entity("client", author_id=9))
    assert events[0].payload == {
        "ticket_id": "TKT-000001",
        "ticket_subject": "Login fails",
        "reply_id": 50,
        "reply": "Any news?",
        "type": "client",
        "user_id": 9,
        "created_at": "2026-01-01T13:00:00.000000Z",
    }


def test_replied_refuses_a_closed_ticket() -> None:
    """The rule itself refuses, whatever the caller checked before."""
    with pytest.raises(ValidationFailed):
        replied(ticket_entity(status="closed"), reply_entity("admin"))


# -- closing and changes ---------------------------------------------------------------------------


def test_closing_records_when_and_emits_closed_alone() -> None:
    """ticket.closed, never ticket.updated, for a close."""
    ticket, events = close(ticket_entity(status="answered"), LATER)
    assert (ticket.status, ticket.closed_at, [e.name for e in events]) == ("closed", LATER, ["ticket.closed"])


def test_closing_a_closed_ticket_changes_nothing() -> None:
    """A repeated close is no move: same ticket, no event."""
    already = ticket_entity(status="closed", closed_at=START)
    assert close(already, LATER) == (already, [])


def test_the_ticket_payload_has_the_department_id() -> None:
    """The event payload flattens the department to its id."""
    assert ticket_entity().event_payload()["department_id"] == 7


def test_a_change_emits_updated() -> None:
    """A new priority is ticket.updated with the new value."""
    ticket, events = changed(ticket_entity(), LATER, priority="high")
    assert (ticket.updated_at, events[0].name, events[0].payload["priority"]) == (LATER, "ticket.updated", "high")


def test_a_change_to_the_same_values_emits_nothing() -> None:
    """Setting what is already there is no change."""
    original = ticket_entity(priority="low")
    assert changed(original, LATER, priority="low") == (original, [])


@pytest.mark.parametrize(
    ("filters", "kept"),
    [
        (TicketFilter(), True),
        (TicketFilter(status="open"), True),
        (TicketFilter(status="closed"), False),
        (TicketFilter(priority="medium"), True),
        (TicketFilter(status="open", priority="high"), False),
    ],
)
def test_the_filter_keeps_matching_tickets(filters: TicketFilter, kept: bool) -> None:
    """Status and priority both must match when given."""
    assert filters.matches(ticket_entity()) is kept
