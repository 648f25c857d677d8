"""`engage tickets ...` on a temporary SQLite database: listing, reading and the operator's replies."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput
from engage_core.support.tickets import Ticket

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


@pytest.fixture
def open_ticket(open_services: OpenServices, account_id: int) -> Callable[..., Ticket]:
    """`open_ticket(subject=..., body=..., priority=...)`: a ticket opened as the API would."""

    def make(subject: str = "Invoice is wrong", body: str = "The VAT is off.", **fields: Any) -> Ticket:
        return open_services().tickets.create(account_id, TicketInput(subject, body, **fields))

    return make


def thread(open_services: OpenServices, account_id: int, ticket: Ticket) -> Any:
    return open_services().tickets.get(account_id, ticket.id)


# -- reply -------------------------------------------------------------------------------------------


def test_reply_by_reference_stores_an_admin_reply_and_answers_the_ticket(
    run_cli: RunCli, open_services: OpenServices, account_id: int, open_ticket: Callable[..., Ticket]
) -> None:
    """`tickets reply ACCOUNT TKT-000001 --admin -m TEXT` stores an `admin` reply; the ticket is answered."""
    ticket = open_ticket()

    result = run_cli("tickets", "reply", str(account_id), "TKT-000001", "--admin", "--message", "Fixed now.")

    assert result.exit_code == 0, result.output
    assert result.stdout == "Replied to TKT-000001 (reply 1); the ticket is now answered.\n"
    stored = thread(open_services, account_id, ticket)
    assert (stored.ticket.status, [(r.reply, r.type) for r in stored.replies]) == (
        "answered",
        [("Fixed now.", "admin")],
    )


@pytest.mark.parametrize("reference", ["tkt-000002", "2"])
def test_reply_accepts_the_reference_in_any_case_or_the_numeric_id(
    run_cli: RunCli, open_services: OpenServices, account_id: int, open_ticket: Callable[..., Ticket], reference: str
) -> None:
    """The ticket may be named by its reference (prefix in any case) or by its numeric id."""
    open_ticket(subject="First")
    second = open_ticket(subject="Second")

    result = run_cli("tickets", "reply", str(account_id), reference, "--admin", "-m", "On it.")

    assert result.exit_code == 0, result.output
    assert [r.reply for r in thread(open_services, account_id, second).replies] == ["On it."]


def test_reply_json_prints_the_reply_and_the_ticket(
    run_cli: RunCli, account_id: int, open_ticket: Callable[..., Ticket]
) -> None:
    """`--json` prints `{"reply": {...}, "ticket": {...}}` in the API's fields."""
    open_ticket()

    result = run_cli("tickets", "reply", str(account_id), "TKT-000001", "--admin", "-m", "Done.", "--json")

    body = json.loads(result.stdout)
    assert (body["reply"]["type"], body["reply"]["reply"], body["ticket"]["status"]) == ("admin", "Done.", "answered")


def test_reply_needs_no_admin_flag(
    run_cli: RunCli, open_services: OpenServices, account_id: int, open_ticket: Callable[..., Ticket]
) -> None:
    """Without `--admin` the reply is the operator's all the same: stored as `admin`, the ticket answered."""
    ticket = open_ticket()

    result = run_cli("tickets", "reply", str(account_id), "TKT-000001", "-m", "Hello")

    assert result.exit_code == 0, result.output
    stored = thread(open_services, account_id, ticket)
    assert (stored.ticket.status, [r.type for r in stored.replies]) == ("answered", ["admin"])


def test_a_reply_to_a_closed_ticket_is_one_line(
    run_cli: RunCli,
    open_services: OpenServices,
    account_id: int,
    open_ticket: Callable[..., Ticket],
    one_line_error: OneLineError,
) -> None:
    """Replying to a closed ticket fails with one line saying it is closed."""
    ticket = open_ticket()
    open_services().tickets.close(account_id, ticket.id)

    result = run_cli("tickets", "reply", str(account_id), "TKT-000001", "--admin", "-m", "Late.")

    assert "closed" in one_line_error(result)


def test_a_reply_over_10000_characters_is_one_line(
    run_cli: RunCli, account_id: int, open_ticket: Callable[..., Ticket], one_line_error: OneLineError
) -> None:
    """A reply longer than 10,000 characters is refused on one line naming `reply`."""
    open_ticket()

    result = run_cli("tickets", "reply", str(account_id), "TKT-000001", "--admin", "-m", "x" * 10_001)

    assert one_line_error(result).startswith("Error: reply: ")


@pytest.mark.parametrize(("account", "reference", "message"), [
    ("1", "TKT-000009", "Error: Ticket not found."),
    ("1", "99", "Error: Ticket not found."),
    ("7", "TKT-000001", "Error: Account 7 not found."),
])  # fmt: skip
def test_unknown_tickets_and_accounts_are_one_line(
    run_cli: RunCli,
    account_id: int,
    open_ticket: Callable[..., Ticket],
    one_line_error: OneLineError,
    account: str,
    reference: str,
    message: str,
) -> None:
    """An unknown reference, id or account fails with one line naming what is missing."""
    open_ticket()

    result = run_cli("tickets", "reply", account, reference, "--admin", "-m", "Hi")

    assert one_line_error(result) == message


def test_another_accounts_ticket_is_not_found(
    run_cli: RunCli, create_account: NewAccount, open_ticket: Callable[..., Ticket], one_line_error: OneLineError
) -> None:
    """A ticket of account 1 named under account 2 is not found, by id or by reference."""
    ticket = open_ticket()
    other = str(create_account("Other")["account_id"])

    by_id = run_cli("tickets", "reply", other, str(ticket.id), "--admin", "-m", "Hi")
    by_reference = run_cli("tickets", "reply", other, "TKT-000001", "--admin", "-m", "Hi")

    assert (one_line_error(by_id), one_line_error(by_reference)) == ("Error: Ticket not found.",) * 2


# -- list and show -----------------------------------------------------------------------------------


def test_list_prints_a_table_newest_first(run_cli: RunCli, account_id: int, open_ticket: Callable[..., Ticket]) -> None:
    """`tickets list` prints a header and one row per ticket, newest first, with its reference and status."""
    open_ticket(subject="Older")
    open_ticket(subject="Newer", priority="high")

    result = run_cli("tickets", "list", str(account_id))

    assert result.exit_code == 0, result.output
    header, *rows = result.stdout.splitlines()
    assert header.split() == ["ID", "REFERENCE", "STATUS", "PRIORITY", "DEPARTMENT", "LAST", "REPLY", "SUBJECT"]
    assert [row.split()[1:4] + row.split()[-1:] for row in rows] == [
        ["TKT-000002", "open", "high", "Newer"],
        ["TKT-000001", "open", "medium", "Older"],
    ]
    assert result.stderr == "Page 1 of 1 (2 tickets).\n"


def test_list_filters_by_status(
    run_cli: RunCli, open_services: OpenServices, account_id: int, open_ticket: Callable[..., Ticket]
) -> None:
    """`--status closed` lists only closed tickets."""
    open_ticket(subject="Still open")
    closed = open_ticket(subject="Done")
    open_services().tickets.close(account_id, closed.id)

    result = run_cli("tickets", "list", str(account_id), "--status", "closed", "--json")

    assert [t["subject"] for t in json.loads(result.stdout)] == ["Done"]


def test_list_json_prints_the_apis_fields(run_cli: RunCli, account_id: int, open_ticket: Callable[..., Ticket]) -> None:
    """`--json` prints an array of tickets with the fields of `GET /tickets`."""
    open_ticket()

    [ticket] = json.loads(run_cli("tickets", "list", str(account_id), "--json").stdout)

    assert (ticket["ticket_id"], ticket["department"]["title"], ticket["status"]) == ("TKT-000001", "General", "open")


def test_list_pages(run_cli: RunCli, account_id: int, open_ticket: Callable[..., Ticket]) -> None:
    """`--page` and `--per-page` select a page of the newest-first list."""
    for subject in ("One", "Two", "Three"):
        open_ticket(subject=subject)

    result = run_cli("tickets", "list", str(account_id), "--page", "2", "--per-page", "2", "--json")

    assert [t["subject"] for t in json.loads(result.stdout)] == ["One"]


def test_list_of_a_workspace_without_tickets_says_so(run_cli: RunCli, account_id: int) -> None:
    """No tickets: one line saying so."""
    assert run_cli("tickets", "list", str(account_id)).stdout == "No tickets.\n"


def test_an_unknown_status_is_a_usage_error(run_cli: RunCli, account_id: int) -> None:
    """`--status` takes open, answered or closed only."""
    assert run_cli("tickets", "list", str(account_id), "--status", "resolved").exit_code == 2


def test_show_prints_the_opening_message_and_the_replies(
    run_cli: RunCli, open_services: OpenServices, account_id: int, open_ticket: Callable[..., Ticket]
) -> None:
    """`tickets show` prints the reference, status, the opening message and each reply with its author."""
    ticket = open_ticket(body="The VAT is off.")
    open_services().tickets.reply(account_id, ticket.id, "Which invoice?", type="admin")
    open_services().tickets.reply(account_id, ticket.id, "Number 42.")

    result = run_cli("tickets", "show", str(account_id), "TKT-000001")

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "TKT-000001 (id 1): Invoice is wrong"
    assert lines[1] == "Status: open  Priority: medium  Department: General"
    assert [lines[4], lines[7], lines[10]] == ["The VAT is off.", "Which invoice?", "Number 42."]
    assert (lines[6].startswith("--- operator, "), lines[9].startswith("--- workspace, ")) == (True, True)
