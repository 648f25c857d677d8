"""`engage departments ...`: the departments a workspace files its support tickets under.

Workspaces only read them (`GET /tickets/departments`); the service operator manages them here.
A workspace without departments gets one titled `General` the first time they are listed or a
ticket needs one. Titles are unique per workspace, regardless of case.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from engage_cli.commands.workspaces import require_account
from engage_cli.context import CliState, pass_state
from engage_core.support.departments import Department

_JSON = click.option("--json", "as_json", is_flag=True, help='Print JSON ({"id": ..., "title": ...}) instead of text.')


@click.group()
def departments() -> None:
    """Manage the support ticket departments of a workspace."""


@departments.command(name="list")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@_JSON
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
@_JSON
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
@_JSON
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
