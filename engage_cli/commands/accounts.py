"""`engage accounts ...`: create and administer workspaces and their API keys.

Every command applies pending migrations first, so it works on a fresh database.
"""

from __future__ import annotations

import json

import click

from engage_cli.context import CliState, pass_state
from engage_cli.errors import naming_missing
from engage_cli.output import ACCOUNT_KEY, account_document, account_table, describe_origins, echo_new_key
from engage_core.accounts.account_service import NewKey
from engage_core.accounts.model import Account

_JSON = click.option("--json", "as_json", is_flag=True, help='Print only {"account_id": ..., "api_key": "..."}.')


@click.group()
def accounts() -> None:
    """Create and administer accounts (workspaces) and their API keys."""


@accounts.command()
@click.option("--name", required=True, help="The account's display name.")
@_JSON
@pass_state
def create(state: CliState, name: str, as_json: bool) -> None:
    """Create an account and print its API key once."""
    issued = state.services().accounts.create(name)
    _echo_new_key(issued, as_json=as_json, headline=f"Created account {_label(issued.account)}.")


@accounts.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print the accounts as a JSON array.")
@pass_state
def list_accounts(state: CliState, as_json: bool) -> None:
    """List accounts: id, name, active, origins, key hint.

    The key itself is never stored, so it is never shown; only its first characters are.
    """
    found = state.services().accounts.list()
    if as_json:
        click.echo(json.dumps([account_document(account) for account in found]))
        return
    if not found:
        click.echo("No accounts yet. Create one with: engage accounts create --name NAME")
        return
    click.echo(account_table(found))


@accounts.command(name="rotate-key")
@click.argument("account_id", metavar="ID", type=int)
@_JSON
@pass_state
def rotate_key(state: CliState, account_id: int, as_json: bool) -> None:
    """Issue a new API key; the old key stops working immediately."""
    with naming_missing("Account", account_id):
        issued = state.services().accounts.rotate_key(account_id)
    headline = f"Rotated the key of account {_label(issued.account)}; the old key no longer works."
    _echo_new_key(issued, as_json=as_json, headline=headline)


@accounts.command()
@click.argument("account_id", metavar="ID", type=int)
@pass_state
def deactivate(state: CliState, account_id: int) -> None:
    """Block the account: its key then gets 403 on every request."""
    with naming_missing("Account", account_id):
        account = state.services().accounts.set_active(account_id, False)
    click.echo(f"Account {_label(account)} is now inactive.")


@accounts.command()
@click.argument("account_id", metavar="ID", type=int)
@pass_state
def activate(state: CliState, account_id: int) -> None:
    """Unblock the account."""
    with naming_missing("Account", account_id):
        account = state.services().accounts.set_active(account_id, True)
    click.echo(f"Account {_label(account)} is now active.")


@accounts.command(name="set-origins")
@click.argument("account_id", metavar="ID", type=int)
@click.argument("origins", metavar="[ORIGIN]...", nargs=-1)
@pass_state
def set_origins(state: CliState, account_id: int, origins: tuple[str, ...]) -> None:
    """Replace the allowed origins; `*` or none allows all.

    Each ORIGIN is like `https://app.example.com` (a path is ignored, a default port dropped).
    Requests naming an unlisted origin in `Origin` or `Referer` get 403.
    """
    with naming_missing("Account", account_id):
        account = state.services().accounts.set_origins(account_id, origins)
    allowed = describe_origins(account.allowed_origins)
    if allowed == "*":
        click.echo(f"Account {_label(account)} accepts requests from any origin.")
    else:
        click.echo(f"Account {_label(account)} accepts requests only from: {allowed}")


def _echo_new_key(issued: NewKey, *, as_json: bool, headline: str) -> None:
    """The key once; with `as_json`, stdout is exactly `{"account_id": ..., "api_key": "..."}`."""
    echo_new_key(ACCOUNT_KEY, issued.account.id, issued.api_key, as_json=as_json, headline=headline)


def _label(account: Account) -> str:
    return f"{account.id} ({account.name})"
