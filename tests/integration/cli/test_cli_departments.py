"""`engage departments ...` on a temporary SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from click.testing import Result

from engage_core.services import Services
from engage_core.support.ticket_service import TicketInput

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


def titles(open_services: OpenServices, account_id: int) -> list[str]:
    return [d.title for d in open_services().departments.list(account_id)]


def test_list_seeds_general_in_a_new_workspace(run_cli: RunCli, account_id: int) -> None:
    """A workspace without departments lists `General`, created on first use."""
    result = run_cli("departments", "list", str(account_id))

    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["ID  TITLE", "1   General"]


def test_list_json_prints_ids_and_titles(run_cli: RunCli, account_id: int) -> None:
    """`--json` prints an array of `{"id", "title"}`, oldest first."""
    run_cli("departments", "create", str(account_id), "--title", "Sales")
    run_cli("departments", "create", str(account_id), "--title", "Billing")

    result = run_cli("departments", "list", str(account_id), "--json")

    assert json.loads(result.stdout) == [{"id": 1, "title": "Sales"}, {"id": 2, "title": "Billing"}]


def test_create_adds_a_department(run_cli: RunCli, open_services: OpenServices, account_id: int) -> None:
    """`departments create ACCOUNT --title T` adds it and names it."""
    result = run_cli("departments", "create", str(account_id), "--title", " Billing ")

    assert (result.exit_code, result.stdout) == (0, "Created department 1 (Billing).\n")
    assert titles(open_services, account_id) == ["Billing"]


def test_create_json_prints_the_department(run_cli: RunCli, account_id: int) -> None:
    """`--json` prints the new department's id and title."""
    result = run_cli("departments", "create", str(account_id), "--title", "Billing", "--json")

    assert json.loads(result.stdout) == {"id": 1, "title": "Billing"}


def test_a_taken_title_is_one_line(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """A title the workspace has, in any case, is refused on one line naming `title`."""
    run_cli("departments", "create", str(account_id), "--title", "Billing")

    result = run_cli("departments", "create", str(account_id), "--title", "BILLING")

    assert one_line_error(result) == "Error: title: A department with this title already exists."


def test_a_blank_title_is_one_line(run_cli: RunCli, account_id: int, one_line_error: OneLineError) -> None:
    """A blank title is refused on one line."""
    assert one_line_error(run_cli("departments", "create", str(account_id), "--title", "  ")).startswith(
        "Error: title: "
    )


def test_rename_changes_the_title_on_tickets_too(run_cli: RunCli, open_services: OpenServices, account_id: int) -> None:
    """`departments rename ACCOUNT ID --title T` renames it; its tickets show the new title."""
    services = open_services()
    sales = services.departments.create(account_id, "Sales")
    ticket = services.tickets.create(account_id, TicketInput("Quote", "x", department_id=sales.id))

    result = run_cli("departments", "rename", str(account_id), str(sales.id), "--title", "Revenue")

    assert (result.exit_code, result.stdout) == (0, f"Renamed department {sales.id} (Revenue).\n")
    department = open_services().tickets.get(account_id, ticket.id).ticket.department
    assert department is not None and department.title == "Revenue"


def test_delete_keeps_the_tickets_without_a_department(
    run_cli: RunCli, open_services: OpenServices, account_id: int
) -> None:
    """`departments delete ACCOUNT ID` removes it; its tickets stay with no department."""
    services = open_services()
    sales = services.departments.create(account_id, "Sales")
    ticket = services.tickets.create(account_id, TicketInput("Quote", "x", department_id=sales.id))

    result = run_cli("departments", "delete", str(account_id), str(sales.id))

    assert result.exit_code == 0, result.output
    assert open_services().tickets.get(account_id, ticket.id).ticket.department is None


@pytest.mark.parametrize("command", [("rename", "--title", "X"), ("delete",)])
def test_an_unknown_department_is_one_line(
    run_cli: RunCli, account_id: int, one_line_error: OneLineError, command: tuple[str, ...]
) -> None:
    """Renaming or deleting a department the workspace does not have fails with one line."""
    result = run_cli("departments", command[0], str(account_id), "99", *command[1:])

    assert one_line_error(result) == "Error: Department not found."


def test_another_accounts_department_is_not_found(
    run_cli: RunCli, create_account: NewAccount, account_id: int, one_line_error: OneLineError
) -> None:
    """Account 2 cannot delete account 1's department."""
    run_cli("departments", "create", str(account_id), "--title", "Sales")
    other = str(create_account("Other")["account_id"])

    assert one_line_error(run_cli("departments", "delete", other, "1")) == "Error: Department not found."


def test_an_unknown_account_is_one_line(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """Listing the departments of an account that does not exist fails with one line, creating nothing."""
    assert one_line_error(run_cli("departments", "list", "7")) == "Error: Account 7 not found."
