"""Request and response bodies of support tickets (SPEC 2, Support ticket; SPEC 3; SPEC 4, Support tickets)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.support import departments as department_domain
from engage_core.support import tickets as domain
from engage_core.support.ticket_service import PostedReply, TicketInput, TicketThread
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import Id

Priority = Literal["low", "medium", "high"]
TicketStatus = Literal["open", "answered", "closed"]
ReplyType = Literal["client", "admin"]

Subject = Annotated[str, Text(max_length=domain.SUBJECT_MAX, blank=False), Doc(example="Invoice shows the wrong VAT")]
Body = Annotated[str, Text(max_length=domain.BODY_MAX, blank=False)]
ReplyText = Annotated[str, Text(max_length=domain.REPLY_MAX, blank=False)]


@structures_into(TicketInput)
@attrs.frozen
class TicketCreate:
    """A new ticket. It opens `open` with the next reference of the workspace (`TKT-000001`, ...)."""

    subject: Subject
    body: Body = attrs.field(metadata={"description": "The opening message (not counted among `replies`)."})
    priority: Priority = "medium"
    department_id: Id | None = attrs.field(
        default=None,
        metadata={
            "description": "Left out: the workspace's first department (`General`, created when it has none). "
            "An id the workspace does not have is a 422."
        },
    )


@attrs.frozen
class TicketReplyCreate:
    """A reply of the workspace (`type` `client`)."""

    reply: ReplyText


@structures_into(domain.TicketFilter)
@attrs.frozen
class TicketFilters:
    """Query filters of `GET /tickets`."""

    status: TicketStatus | None = None
    priority: Priority | None = None


@renders(department_domain.Department)
@attrs.frozen
class Department:
    """A department tickets are filed under (SPEC 2)."""

    id: int
    title: str


@renders(domain.TicketReply)
@attrs.frozen
class TicketReply:
    """A reply on a ticket: `client` from the workspace, `admin` from the service operator."""

    id: int
    reply: str
    type: ReplyType
    created_at: datetime


@renders(domain.Ticket)
@attrs.frozen
class Ticket:
    """A support ticket (SPEC 2). `body`, `assignee_id` and `closed_at` are additions to the SPEC fields."""

    id: int
    ticket_id: str = attrs.field(metadata={"description": "The reference, unique in the workspace: `TKT-000123`."})
    subject: str
    body: str
    priority: Priority
    status: TicketStatus
    department: Department | None = attrs.field(metadata={"description": "Null once its department was deleted."})
    assignee_id: int | None = attrs.field(metadata={"description": "The team member following the ticket."})
    last_reply_at: datetime | None
    closed_at: datetime | None
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class TicketWithReplies(Ticket):
    """A ticket with its replies, oldest first."""

    replies: tuple[TicketReply, ...]

    @classmethod
    def from_thread(cls, thread: TicketThread) -> TicketWithReplies:
        # By hand: the wire lays the ticket's fields beside its replies, where the core nests the ticket
        # in its thread. The values stay the core's (`department`, `replies`): their classes render them.
        fields: dict[str, Any] = {name: getattr(thread.ticket, name) for name in attrs.fields_dict(Ticket)}
        fields["replies"] = tuple(thread.replies)
        return cls(**fields)


@renders(PostedReply)
@attrs.frozen
class PostedTicketReply:
    """The answer to `POST /tickets/{id}/reply`: the stored reply and the ticket's status after it."""

    reply: TicketReply
    ticket: Ticket


__all__ = [
    "Department",
    "PostedTicketReply",
    "Ticket",
    "TicketCreate",
    "TicketFilters",
    "TicketReply",
    "TicketReplyCreate",
    "TicketWithReplies",
]
