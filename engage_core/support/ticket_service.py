"""Support tickets: open, list, read with replies, reply (either side), close, and change priority,
department or assignee. The rules are in `engage_core.support.tickets`; this module runs them inside units
of work, so every change and its events commit together."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, one_of, required_text
from engage_core.support.departments import DEFAULT_TITLE, Department
from engage_core.support.tickets import (
    BODY_MAX,
    DEFAULT_PRIORITY,
    PRIORITIES,
    REPLY_MAX,
    REPLY_TRIGGER,
    REPLY_TYPES,
    SUBJECT_MAX,
    TICKET_STATUSES,
    ReplyDraft,
    Ticket,
    TicketDraft,
    TicketFilter,
    TicketReply,
    changed,
    close,
    next_status,
    reference,
    replied,
)
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork


@attrs.frozen
class TicketInput:
    """Fields of `POST /tickets`. No `priority` is `medium`; no `department_id` files the ticket
    under the workspace's first department (created as "General" if it has none)."""

    subject: str
    body: str
    priority: str | None = None
    department_id: int | None = None


@attrs.frozen
class TicketPatch:
    """A change of the fields beside the status: any subset; `UNSET` leaves a field alone, None
    clears the department or the assignee. Not an endpoint of SPEC 4: the operator CLI and later
    the dashboard use it."""

    priority: str | Unset = UNSET
    department_id: int | Unset | None = UNSET
    assignee_id: int | Unset | None = UNSET


@attrs.frozen
class TicketThread:
    """`GET /tickets/{id}`: the ticket and its replies, oldest first."""

    ticket: Ticket
    replies: Sequence[TicketReply]


@attrs.frozen
class PostedReply:
    """`POST /tickets/{id}/reply`: the stored reply and the ticket after it."""

    ticket: Ticket
    reply: TicketReply


class TicketService:
    """Support tickets: opening, replies from either side, closing, and changes of priority, department
    and assignee, each with its events (`ticket.created`, `ticket.replied`, `ticket.updated`).

    Methods that name a ticket raise :class:`.NotFound` when it is not in the account; invalid input,
    or a department or team member that does not exist, raises :class:`.ValidationFailed` naming the
    field, and nothing is written."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock) -> None:
        self._uow = uow
        self._clock = clock

    # -- reading ------------------------------------------------------------------------------

    def find(self, account_id: int, filters: TicketFilter, page: PageRequest) -> Page[Ticket]:
        """`GET /tickets`, newest first, filtered by status and priority."""
        errors = ErrorCollector()
        if filters.status is not None:
            errors.run(lambda: one_of("status", filters.status or "", TICKET_STATUSES))
        if filters.priority is not None:
            errors.run(lambda: one_of("priority", filters.priority or "", PRIORITIES))
        errors.raise_if_any()
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.tickets.find(filters, page)

    def get(self, account_id: int, ticket_id: int) -> TicketThread:
        """The ticket `ticket_id` with its replies, oldest first.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            ticket = _ticket(uow, ticket_id)
            return TicketThread(ticket, uow.tickets.replies(ticket_id))

    def by_reference(self, account_id: int, reference: str) -> Ticket:
        """The ticket whose reference is `reference` (`TKT-000123`; the prefix in any case, spaces
        around it ignored), for the operator, who reads references rather than ids."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            ticket = uow.tickets.by_reference(reference.strip().upper())
        if ticket is None:
            raise NotFound("Ticket")
        return ticket

    # -- changing -----------------------------------------------------------------------------

    def create(self, account_id: int, data: TicketInput) -> Ticket:
        """Open a ticket (`open`, the next reference of the workspace); emits `ticket.created`."""
        errors = ErrorCollector()
        subject = errors.run(lambda: required_text("subject", data.subject, max_length=SUBJECT_MAX))
        body = errors.run(lambda: required_text("body", data.body, max_length=BODY_MAX))
        priority = errors.run(lambda: one_of("priority", data.priority or DEFAULT_PRIORITY, PRIORITIES))
        errors.raise_if_any()
        assert subject is not None and body is not None and priority is not None
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            if data.department_id is None:
                department = uow.departments.ensure_default(DEFAULT_TITLE, now)
            else:
                department = _department_field(uow, data.department_id)
            draft = TicketDraft(reference(uow.tickets.next_number()), subject, body, priority, department.id)
            ticket = uow.tickets.add(draft, now)
            uow.emit(DomainEvent("ticket.created", ticket.event_payload(), now))
            uow.commit()
        return ticket

    def reply(
        self, account_id: int, ticket_id: int, text: str, *, type: str = "client", author_id: int | None = None
    ) -> PostedReply:
        """Add a reply: `client` from the workspace (an answered ticket becomes open), `admin` from
        the service operator (the ticket becomes answered). `author_id` names the team member who
        wrote a client reply. A closed ticket refuses replies (422 on `reply`). Emits
        `ticket.replied`, and `ticket.updated` when the status moved."""
        errors = ErrorCollector()
        cleaned = errors.run(lambda: required_text("reply", text, max_length=REPLY_MAX))
        errors.run(lambda: one_of("type", type, REPLY_TYPES))
        if author_id is not None and type == "admin":
            errors.errors["author_id"] = ["Replies of the service operator have no team member author."]
        errors.raise_if_any()
        assert cleaned is not None
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            ticket = _ticket(uow, ticket_id)
            next_status(ticket.status, REPLY_TRIGGER[type])  # a closed ticket refuses before anything is written
            if author_id is not None and uow.team.get(author_id) is None:
                raise ValidationFailed.on("author_id", "The selected team member does not exist.")
            reply = uow.tickets.add_reply(ticket_id, ReplyDraft(cleaned, type, author_id), now)
            ticket, events = replied(ticket, reply)
            _save(uow, ticket, events)
            uow.commit()
        return PostedReply(ticket, reply)

    def close(self, account_id: int, ticket_id: int) -> Ticket:
        """`POST /tickets/{id}/close`; closing a closed ticket changes nothing."""
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            ticket, events = close(_ticket(uow, ticket_id), now)
            if events:
                _save(uow, ticket, events)
                uow.commit()
        return ticket

    def update(self, account_id: int, ticket_id: int, patch: TicketPatch) -> Ticket:
        """Change priority, department or assignee (an active team member); emits
        `ticket.updated` when something changed."""
        if patch.priority is not UNSET:
            one_of("priority", patch.priority, PRIORITIES)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _ticket(uow, ticket_id)
            fields: dict[str, object] = {}
            if patch.priority is not UNSET:
                fields["priority"] = patch.priority
            if patch.department_id is not UNSET:
                department_id = patch.department_id
                fields["department"] = None if department_id is None else _department_field(uow, department_id)
            if patch.assignee_id is not UNSET:
                assignee_id = patch.assignee_id
                fields["assignee_id"] = None if assignee_id is None else _assignee(uow, assignee_id)
            ticket, events = changed(current, now, **fields)
            if events:
                _save(uow, ticket, events)
                uow.commit()
        return ticket


def unassign_member(uow: WorkspaceUnitOfWork, member_id: int, now: datetime) -> None:
    """Unassign every ticket of a team member about to be deleted, each with `ticket.updated`."""
    for ticket in uow.tickets.unassign_member(member_id, now):
        uow.emit(DomainEvent("ticket.updated", ticket.event_payload(), now))


def _save(uow: WorkspaceUnitOfWork, ticket: Ticket, events: Sequence[DomainEvent]) -> None:
    uow.tickets.update(ticket)
    for event in events:
        uow.emit(event)


def _ticket(uow: WorkspaceUnitOfWork, ticket_id: int) -> Ticket:
    ticket = uow.tickets.get(ticket_id)
    if ticket is None:
        raise NotFound("Ticket")
    return ticket


def _department_field(uow: WorkspaceUnitOfWork, department_id: int) -> Department:
    """The department named by a request field: an unknown one is a 422 on `department_id`."""
    department = uow.departments.get(department_id)
    if department is None:
        raise ValidationFailed.on("department_id", "The selected department does not exist.")
    return department


def _assignee(uow: WorkspaceUnitOfWork, member_id: int) -> int:
    member = uow.team.get(member_id)
    if member is None:
        raise ValidationFailed.on("assignee_id", "The selected team member does not exist.")
    if not member.is_active:
        raise ValidationFailed.on("assignee_id", "An inactive team member cannot be assigned tickets.")
    return member.id
