"""Support tickets: the state machine, replies, references and event payloads (SPEC 2, 3, 4, 6).

A support ticket is a workspace asking the service operator for help. The workspace (through the
API) writes `client` replies; the operator (through the CLI, `engage tickets reply --admin`) writes
`admin` replies.

States and moves, the only ones there are (`TRANSITIONS`)::

    open      --client reply-->  open
    open      --admin reply--->  answered
    answered  --client reply-->  open        (SPEC 3)
    answered  --admin reply--->  answered
    open, answered --close---->  closed      (SPEC 3; `ticket.closed`)
    closed: no outgoing move; a reply of either side is refused (SPEC 3: "not accepted")

SPEC 3 leaves "open to answered" unshown; an operator's answer is what makes a ticket answered.
A reply to a closed ticket is a ValidationFailed (422) on `reply` saying that the ticket is closed.
Closing a closed ticket is not a move: it changes nothing and emits nothing, like setting an order
to the status it has (so a retried `POST /tickets/{id}/close` is harmless).

The opening message is the ticket's `body`, not a reply: `replies` are what follows it, and
`last_reply_at` is null until the first one.

References (`ticket_id`): `TKT-` and the workspace's ticket number, at least six digits
(`TKT-000123`; `TKT-1234567` past a million). Numbers count 1, 2, 3, ... per workspace and are
never shared: `TicketRepository.next_number` hands them out atomically, and a unique index on
`(account_id, ticket_id)` backs it in SQL. A sequence rather than a random code: references sort
in the order tickets were opened, are short to read out on the phone, and never need a retry.

Events (payloads: `Ticket.event_payload()`, SPEC 6's fields plus `body`, `assignee_id`,
`last_reply_at` and `closed_at`; `TicketReply.event_payload(ticket)`):

- opening a ticket: `ticket.created`;
- a reply: `ticket.replied`, then `ticket.updated` when the reply moved the status;
- a change of priority, department or assignee (`change`): `ticket.updated`;
- unassigning a deleted team member's tickets: `ticket.updated` for each;
- closing: `ticket.closed` alone (SPEC 6: `ticket.updated` is "not a close or resolve").

In `ticket.replied`, `ticket_id` is the reference, as in the other ticket events, so one key
correlates them all; `type` is the API's `client` or `admin` (SPEC 6 notes its example `staff`);
`user_id` is the team member who wrote the reply, null for the API key and for the operator.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import attrs

from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageLimits
from engage_core.support.departments import Department

TICKET_STATUSES: tuple[str, ...] = ("open", "answered", "closed")
PRIORITIES: tuple[str, ...] = ("low", "medium", "high")
DEFAULT_PRIORITY = "medium"
REPLY_TYPES: tuple[str, ...] = ("client", "admin")

CLIENT_REPLY = "client_reply"
ADMIN_REPLY = "admin_reply"
CLOSE = "close"
TRIGGERS: tuple[str, ...] = (CLIENT_REPLY, ADMIN_REPLY, CLOSE)
REPLY_TRIGGER: Mapping[str, str] = {"client": CLIENT_REPLY, "admin": ADMIN_REPLY}
"""The trigger a reply of each `type` pulls."""

TRANSITIONS: Mapping[str, Mapping[str, str]] = {
    "open": {CLIENT_REPLY: "open", ADMIN_REPLY: "answered", CLOSE: "closed"},
    "answered": {CLIENT_REPLY: "open", ADMIN_REPLY: "answered", CLOSE: "closed"},
    "closed": {},
}
"""SPEC 3, Support ticket: for every state, the state each trigger leads to. A trigger missing
from a state's row is refused there."""

SUBJECT_MAX = 255
BODY_MAX = 10_000
REPLY_MAX = 10_000
"""SPEC 8: a ticket reply is at most 10,000 characters (counted after trimming)."""
REFERENCE_PREFIX = "TKT-"

TICKETS = PageLimits(default=25)
"""`GET /tickets`: default 25, maximum 100 (SPEC 8)."""


@attrs.frozen
class Ticket:
    id: int
    ticket_id: str
    """The human-readable reference (`reference(number)`), unique per workspace."""
    subject: str
    body: str
    priority: str
    status: str
    department: Department | None
    """None when the ticket's department was deleted."""
    assignee_id: int | None
    """The team member following the ticket, if any."""
    last_reply_at: datetime | None
    closed_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @property
    def department_id(self) -> int | None:
        return None if self.department is None else self.department.id

    def event_payload(self) -> Mapping[str, Any]:
        """`ticket.created`, `ticket.updated` and `ticket.closed` data (SPEC 6)."""
        return {
            "id": self.id,
            "ticket_id": self.ticket_id,
            "subject": self.subject,
            "body": self.body,
            "status": self.status,
            "priority": self.priority,
            "department_id": self.department_id,
            "assignee_id": self.assignee_id,
            "last_reply_at": format_optional(self.last_reply_at),
            "closed_at": format_optional(self.closed_at),
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }


@attrs.frozen
class TicketDraft:
    """A validated new ticket with its reference, before it has an id."""

    ticket_id: str
    subject: str
    body: str
    priority: str
    department_id: int | None
    status: str = "open"
    assignee_id: int | None = None


@attrs.frozen
class TicketReply:
    id: int
    reply: str
    type: str
    """`client` (the workspace) or `admin` (the service operator)."""
    author_id: int | None
    """The team member who wrote it; None for the API key and for the operator."""
    created_at: datetime

    def event_payload(self, ticket: Ticket) -> Mapping[str, Any]:
        """`ticket.replied` data (SPEC 6)."""
        return {
            "ticket_id": ticket.ticket_id,
            "ticket_subject": ticket.subject,
            "reply_id": self.id,
            "reply": self.reply,
            "type": self.type,
            "user_id": self.author_id,
            "created_at": format_timestamp(self.created_at),
        }


@attrs.frozen
class ReplyDraft:
    reply: str
    type: str
    author_id: int | None = None


@attrs.frozen
class TicketFilter:
    """Filters of `GET /tickets`."""

    status: str | None = None
    priority: str | None = None

    def matches(self, ticket: Ticket) -> bool:
        """The reference semantics of the filter (the in-memory store uses it)."""
        return (self.status is None or ticket.status == self.status) and (
            self.priority is None or ticket.priority == self.priority
        )


def reference(number: int) -> str:
    """The `ticket_id` of the workspace's `number`-th ticket: `reference(123) == "TKT-000123"`."""
    if number < 1:
        raise ValueError(f"ticket numbers start at 1, not {number}")
    return f"{REFERENCE_PREFIX}{number:06d}"


# -- the state machine -----------------------------------------------------------------------------


def next_status(status: str, trigger: str) -> str:
    """The state `trigger` leads to from `status`; ValidationFailed when SPEC 3 refuses it."""
    to = TRANSITIONS[status].get(trigger)
    if to is not None:
        return to
    if trigger == CLOSE:
        raise ValidationFailed.on("status", f"A {status} ticket cannot be closed.")
    if status == "closed":
        raise ValidationFailed.on(
            "reply", "This ticket is closed and receives no further replies; open a new ticket instead."
        )
    raise ValidationFailed.on("reply", f"A {status} ticket does not accept this reply.")


def replied(ticket: Ticket, reply: TicketReply) -> tuple[Ticket, list[DomainEvent]]:
    """The ticket after `reply` was added (status per `TRANSITIONS`, `last_reply_at` the reply's
    time), and the events: `ticket.replied`, then `ticket.updated` when the status moved."""
    to = next_status(ticket.status, REPLY_TRIGGER[reply.type])
    now = reply.created_at
    changed = attrs.evolve(ticket, status=to, last_reply_at=now, updated_at=now)
    events = [DomainEvent("ticket.replied", reply.event_payload(changed), now)]
    if to != ticket.status:
        events.append(DomainEvent("ticket.updated", changed.event_payload(), now))
    return changed, events


def close(ticket: Ticket, now: datetime) -> tuple[Ticket, list[DomainEvent]]:
    """`POST /tickets/{id}/close`: an open or answered ticket becomes closed (`ticket.closed`). A
    closed ticket stays as it is, with no event."""
    if ticket.status == "closed":
        return ticket, []
    closed = attrs.evolve(ticket, status=next_status(ticket.status, CLOSE), closed_at=now, updated_at=now)
    return closed, [DomainEvent("ticket.closed", closed.event_payload(), now)]


def changed(ticket: Ticket, now: datetime, **fields: Any) -> tuple[Ticket, list[DomainEvent]]:
    """The ticket with `fields` (priority, department, assignee_id) set, and `ticket.updated` when
    anything changed; no event (and the ticket as it was) otherwise."""
    updated = attrs.evolve(ticket, **fields)
    if updated == ticket:
        return ticket, []
    updated = attrs.evolve(updated, updated_at=now)
    return updated, [DomainEvent("ticket.updated", updated.event_payload(), now)]
