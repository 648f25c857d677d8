"""Request and response bodies of support tickets (SPEC 2, Support ticket; SPEC 3; SPEC 4, Support tickets)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import attrs

from engage_core.support import departments as department_domain
from engage_core.support import tickets as domain
from engage_core.support.ticket_service import PostedReply, TicketInput, TicketThread
from engage_http.constraints import Doc, Text
from engage_http.fields import Id

Priority = Literal["low", "medium", "high"]
TicketStatus = Literal["open", "answered", "closed"]
ReplyType = Literal["client", "admin"]

Subject = Annotated[str, Text(max_length=domain.SUBJECT_MAX, blank=False), Doc(example="Invoice shows the wrong VAT")]
Body = Annotated[str, Text(max_length=domain.BODY_MAX, blank=False)]
ReplyText = Annotated[str, Text(max_length=domain.REPLY_MAX, blank=False)]


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

    def to_input(self) -> TicketInput:
        return TicketInput(
            subject=self.subject, body=self.body, priority=self.priority, department_id=self.department_id
        )


@attrs.frozen
class TicketReplyCreate:
    """A reply of the workspace (`type` `client`)."""

    reply: ReplyText


@attrs.frozen
class TicketFilters:
    """Query filters of `GET /tickets`."""

    status: TicketStatus | None = None
    priority: Priority | None = None

    def to_filter(self) -> domain.TicketFilter:
        return domain.TicketFilter(status=self.status, priority=self.priority)


@attrs.frozen
class Department:
    """A department tickets are filed under (SPEC 2)."""

    id: int
    title: str

    @classmethod
    def from_domain(cls, department: department_domain.Department) -> Department:
        return cls(id=department.id, title=department.title)


@attrs.frozen
class TicketReply:
    """A reply on a ticket: `client` from the workspace, `admin` from the service operator."""

    id: int
    reply: str
    type: ReplyType
    created_at: datetime

    @classmethod
    def from_domain(cls, reply: domain.TicketReply) -> TicketReply:
        return cls(id=reply.id, reply=reply.reply, type=reply.type, created_at=reply.created_at)  # type: ignore[arg-type]


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

    @classmethod
    def from_domain(cls, ticket: domain.Ticket) -> Ticket:
        return cls(
            id=ticket.id,
            ticket_id=ticket.ticket_id,
            subject=ticket.subject,
            body=ticket.body,
            priority=ticket.priority,  # type: ignore[arg-type]
            status=ticket.status,  # type: ignore[arg-type]
            department=None if ticket.department is None else Department.from_domain(ticket.department),
            assignee_id=ticket.assignee_id,
            last_reply_at=ticket.last_reply_at,
            closed_at=ticket.closed_at,
            created_at=ticket.created_at,
            updated_at=ticket.updated_at,
        )


@attrs.frozen
class TicketWithReplies(Ticket):
    """A ticket with its replies, oldest first."""

    replies: tuple[TicketReply, ...]

    @classmethod
    def from_thread(cls, thread: TicketThread) -> TicketWithReplies:
        base = Ticket.from_domain(thread.ticket)
        replies = tuple(TicketReply.from_domain(reply) for reply in thread.replies)
        return cls(**attrs.asdict(base, recurse=False), replies=replies)


@attrs.frozen
class PostedTicketReply:
    """The answer to `POST /tickets/{id}/reply`: the stored reply and the ticket's status after it."""

    reply: TicketReply
    ticket: Ticket

    @classmethod
    def from_posted(cls, posted: PostedReply) -> PostedTicketReply:
        return cls(reply=TicketReply.from_domain(posted.reply), ticket=Ticket.from_domain(posted.ticket))


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
