"""Support tickets (SPEC 3, 4): opening, listing, reading with replies, replying, closing, and the
workspace's departments.

The API speaks for the workspace: its replies are `client` replies (an answered ticket becomes
open again). The service operator answers from the CLI (`engage tickets reply --admin`), which
makes a ticket `answered`. A closed ticket takes no further replies (422 on `reply`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.kernel.pagination import Page
from engage_core.support import tickets as domain
from engage_core.support.departments import Department as DepartmentEntity
from engage_core.support.ticket_service import PostedReply, TicketInput
from engage_core.support.tickets import TICKETS
from engage_http.operations import Call, Operation, Shape, declare
from engage_http.support.schemas import (
    Department,
    PostedTicketReply,
    Ticket,
    TicketCreate,
    TicketFilters,
    TicketReplyCreate,
    TicketWithReplies,
)

TAG = "Support tickets"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (a department of the workspace, a reply to a closed ticket)."""


def index(call: Call[None, domain.TicketFilter]) -> Page[domain.Ticket]:
    assert call.page is not None
    return call.services.tickets.find(call.account_id, call.query, call.page)


def store(call: Call[TicketInput, None]) -> domain.Ticket:
    return call.services.tickets.create(call.account_id, call.body)


def show(call: Call[None, None]) -> TicketWithReplies:
    return TicketWithReplies.from_thread(call.services.tickets.get(call.account_id, call.path["id"]))


def reply(call: Call[TicketReplyCreate, None]) -> PostedReply:
    return call.services.tickets.reply(call.account_id, call.path["id"], call.body.reply)


def close(call: Call[None, None]) -> domain.Ticket:
    return call.services.tickets.close(call.account_id, call.path["id"])


def departments(call: Call[None, None]) -> Sequence[DepartmentEntity]:
    return call.services.departments.list(call.account_id)


OPERATIONS: tuple[Operation, ...] = declare(
    Operation(
        "GET",
        "/tickets",
        index,
        "List tickets",
        TAG,
        Ticket,
        Shape.PAGE,
        message="Tickets retrieved.",
        query=TicketFilters,
        page=TICKETS,
        description="Newest first, filtered by `status` and `priority`.",
    ),
    Operation(
        "GET",
        "/tickets/departments",
        departments,
        "List departments",
        TAG,
        Department,
        Shape.MANY,
        message="Departments retrieved.",
        description="Ascending id; the first is where a ticket without `department_id` is filed. A workspace "
        "without departments gets one titled `General` first. Departments are managed by the service "
        "operator (`engage departments ...`).",
    ),
    Operation(
        "POST",
        "/tickets",
        store,
        "Open a ticket",
        TAG,
        Ticket,
        status=201,
        message="Ticket created.",
        body=TicketCreate,
        errors=RULES,
        description="The ticket starts `open` with the workspace's next reference (`TKT-000001`, "
        "`TKT-000002`, ...); emits `ticket.created`.",
    ),
    Operation("GET", "/tickets/{id:id}", show, "Get a ticket with its replies", TAG, TicketWithReplies),
    Operation(
        "POST",
        "/tickets/{id:id}/reply",
        reply,
        "Reply to a ticket",
        TAG,
        PostedTicketReply,
        message="Reply added.",
        body=TicketReplyCreate,
        errors=RULES,
        description="A `client` reply of at most 10,000 characters. An answered ticket becomes open; an open "
        "one stays open. A closed ticket takes no replies: 422 on `reply`. Emits `ticket.replied`, and "
        "`ticket.updated` when the status moved.",
    ),
    Operation(
        "POST",
        "/tickets/{id:id}/close",
        close,
        "Close a ticket",
        TAG,
        Ticket,
        message="Ticket closed.",
        description="An open or answered ticket becomes closed (`ticket.closed`). Closing a closed ticket "
        "changes nothing and answers 200 with the ticket.",
    ),
    write_lane=True,
)
