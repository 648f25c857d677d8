"""`engage tickets ...` and `engage departments ...`: the service operator's side of support.

Workspaces open tickets and write `client` replies through the API; the operator reads them here
and answers with `admin` replies (`engage tickets reply ... --admin`), which make a ticket
`answered`. A ticket is named by its reference (`TKT-000123`, the prefix in any case) or by its
numeric id.

Departments: workspaces only read them (`GET /tickets/departments`); the service operator manages them here.
A workspace without departments gets one titled `General` the first time they are listed or a
ticket needs one. Titles are unique per workspace, regardless of case.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.support.departments import Department
from engage_core.support.ticket_service import TicketThread
from engage_core.support.tickets import PRIORITIES, TICKET_STATUSES, TICKETS, Ticket, TicketFilter
from engage_http.converter import converter, unstructure_hook
from engage_http.support.schemas import PostedTicketReply, TicketWithReplies
from engage_http.support.schemas import Ticket as TicketBody

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's fields) instead of text.")
_COLUMNS = ("ID", "REFERENCE", "STATUS", "PRIORITY", "DEPARTMENT", "LAST REPLY", "SUBJECT")


@click.group()
def tickets() -> None:
    """Read and answer the support tickets of a workspace."""


@tickets.command(name="list")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.option("--status", type=click.Choice(TICKET_STATUSES), help="Only tickets in this status.")
@click.option("--priority", type=click.Choice(PRIORITIES), help="Only tickets of this priority.")
@click.option("--page", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--per-page",
    type=click.IntRange(min=1, max=TICKETS.maximum),
    default=TICKETS.default,
    show_default=True,
)
@_JSON
@pass_state
def list_tickets(
    state: CliState, account_id: int, status: str | None, priority: str | None, page: int, per_page: int, as_json: bool
) -> None:
    """List a workspace's tickets, newest first."""
    services = state.services()
    require_account(services, account_id)
    found = services.tickets.find(
        account_id, TicketFilter(status=status, priority=priority), PageRequest(page, per_page)
    )
    if as_json:
        render = unstructure_hook(TicketBody)
        click.echo(json.dumps([render(t) for t in found.items]))
        return
    if not found.items:
        click.echo("No tickets." if found.total == 0 else f"No tickets on page {page} ({found.total} in all).")
        return
    click.echo(ticket_table(found.items))
    noun = "ticket" if found.total == 1 else "tickets"
    click.echo(f"Page {page} of {found.last_page} ({found.total} {noun}).", err=True)


@tickets.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("reference", metavar="TICKET")
@_JSON
@pass_state
def show(state: CliState, account_id: int, reference: str, as_json: bool) -> None:
    """Show a ticket (by reference or id) with its opening message and every reply."""
    services = state.services()
    require_account(services, account_id)
    thread = services.tickets.get(account_id, _ticket_id(services, account_id, reference))
    if as_json:
        click.echo(json.dumps(converter.unstructure(TicketWithReplies.from_thread(thread))))
        return
    click.echo(describe_thread(thread))


@tickets.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("reference", metavar="TICKET")
# Replies from the CLI are always the operator's; `--admin`, once required to say so, is still accepted.
@click.option("--admin", is_flag=True, hidden=True)
@click.option("--message", "-m", required=True, help="The reply, at most 10,000 characters.")
@_JSON
@pass_state
def reply(state: CliState, account_id: int, reference: str, admin: bool, message: str, as_json: bool) -> None:
    """Answer a ticket (by reference or id) as the service operator; it becomes `answered`.

    A closed ticket takes no replies. (Clients reply through the API.)
    """
    services = state.services()
    require_account(services, account_id)
    posted = services.tickets.reply(account_id, _ticket_id(services, account_id, reference), message, type="admin")
    if as_json:
        click.echo(json.dumps(unstructure_hook(PostedTicketReply)(posted)))
        return
    click.echo(
        f"Replied to {posted.ticket.ticket_id} (reply {posted.reply.id}); the ticket is now {posted.ticket.status}."
    )


def _ticket_id(services: Services, account_id: int, reference: str) -> int:
    """The numeric id of the ticket named by `reference`: digits are an id, anything else a reference."""
    if reference.strip().isdigit():
        return int(reference)
    return services.tickets.by_reference(account_id, reference).id


def ticket_table(found: Sequence[Ticket]) -> str:
    """A plain aligned table of tickets."""
    rows = [_COLUMNS] + [
        (
            str(t.id),
            t.ticket_id,
            t.status,
            t.priority,
            "-" if t.department is None else t.department.title,
            "-" if t.last_reply_at is None else t.last_reply_at.strftime("%Y-%m-%d %H:%M"),
            t.subject,
        )
        for t in found
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_COLUMNS))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def describe_thread(thread: TicketThread) -> str:
    """The ticket's header, its opening message, then each reply with who wrote it and when."""
    ticket = thread.ticket
    department = "none" if ticket.department is None else ticket.department.title
    lines = [
        f"{ticket.ticket_id} (id {ticket.id}): {ticket.subject}",
        f"Status: {ticket.status}  Priority: {ticket.priority}  Department: {department}",
        f"Opened {ticket.created_at:%Y-%m-%d %H:%M} UTC",
        "",
        ticket.body,
    ]
    for item in thread.replies:
        author = "operator" if item.type == "admin" else "workspace"
        lines += ["", f"--- {author}, {item.created_at:%Y-%m-%d %H:%M} UTC (reply {item.id})", item.reply]
    return "\n".join(lines)


_DEPARTMENT_JSON = click.option(
    "--json", "as_json", is_flag=True, help='Print JSON ({"id": ..., "title": ...}) instead of text.'
)


@click.group()
def departments() -> None:
    """Manage the support ticket departments of a workspace."""


@departments.command(name="list")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@_DEPARTMENT_JSON
@pass_state
def list_departments(state: CliState, account_id: int, as_json: bool) -> None:
    """List departments, oldest first: the first is where tickets without one are filed."""
    services = state.services()
    require_account(services, account_id)
    found = services.departments.list(account_id)
    if as_json:
        click.echo(json.dumps([_json(d) for d in found]))
        return
    click.echo(department_table(found))


@departments.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.option("--title", required=True, help="Unique in the workspace, regardless of case; at most 255 characters.")
@_DEPARTMENT_JSON
@pass_state
def create(state: CliState, account_id: int, title: str, as_json: bool) -> None:
    """Add a department."""
    services = state.services()
    require_account(services, account_id)
    department = services.departments.create(account_id, title)
    if as_json:
        click.echo(json.dumps(_json(department)))
        return
    click.echo(f"Created department {_label(department)}.")


@departments.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("department_id", metavar="DEPARTMENT_ID", type=int)
@click.option("--title", required=True, help="The new title.")
@_DEPARTMENT_JSON
@pass_state
def rename(state: CliState, account_id: int, department_id: int, title: str, as_json: bool) -> None:
    """Rename a department; its tickets show the new title."""
    services = state.services()
    require_account(services, account_id)
    department = services.departments.rename(account_id, department_id, title)
    if as_json:
        click.echo(json.dumps(_json(department)))
        return
    click.echo(f"Renamed department {_label(department)}.")


@departments.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("department_id", metavar="DEPARTMENT_ID", type=int)
@pass_state
def delete(state: CliState, account_id: int, department_id: int) -> None:
    """Delete a department; its tickets stay, with no department."""
    services = state.services()
    require_account(services, account_id)
    services.departments.delete(account_id, department_id)
    click.echo(f"Deleted department {department_id}; its tickets have no department now.")


def department_table(found: Sequence[Department]) -> str:
    width = max([len("ID"), *(len(str(d.id)) for d in found)])
    return "\n".join(
        f"{ident.ljust(width)}  {title}" for ident, title in [("ID", "TITLE")] + [(str(d.id), d.title) for d in found]
    )


def _json(department: Department) -> dict[str, object]:
    return {"id": department.id, "title": department.title}


def _label(department: Department) -> str:
    return f"{department.id} ({department.title})"
