"""`engage web-chat ...`: a workspace's web chat widget (its public key and settings) and sessions.

    engage web-chat widget ACCOUNT_ID [--json]
    engage web-chat rotate-key ACCOUNT_ID [--json]
    engage web-chat origins ACCOUNT_ID ORIGIN... [--json]
    engage web-chat sessions ACCOUNT_ID [--status S] [--handled-by H] [--search TEXT] [--json]

`widget` shows the public widget key (made on first use) and the snippet to paste into a page;
`rotate-key` replaces the key at once (the old one stops working: revocation); `origins` sets the pages
allowed to use the widget. `--json` prints what the API's `data` would hold.
"""

from __future__ import annotations

import json

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.webchat.sessions import HANDLERS, STATUSES, SessionFilter
from engage_core.webchat.widgets import Widget, WidgetPatch
from engage_http.converter import unstructure_hook
from engage_http.webchat.schemas import WebChatSession, WebChatWidget

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's `data`) instead of text.")
_ACCOUNT = click.argument("account_id", metavar="ACCOUNT_ID", type=int)


@click.group(name="web-chat")
def web_chat() -> None:
    """The web chat widget of a workspace (its public key, allowed origins) and its sessions."""


def _services(state: CliState, account_id: int) -> Services:
    services = state.services()
    require_account(services, account_id)
    return services


def _show(widget: Widget, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(unstructure_hook(WebChatWidget)(widget)))
        return
    origins = ", ".join(widget.allowed_origins) or "none (set them with: engage web-chat origins ...)"
    click.echo(f"Widget key: {widget.widget_key}")
    click.echo(f"Allowed origins: {origins}")
    click.echo(f"Colour {widget.color}, language {widget.language}, greeting: {widget.greeting}")
    click.echo("Embed it with:")
    click.echo(f'  <script src="https://YOUR-ENGAGE-HOST/widget.js" data-key="{widget.widget_key}" async></script>')


@web_chat.command()
@_ACCOUNT
@_JSON
@pass_state
def widget(state: CliState, account_id: int, as_json: bool) -> None:
    """Show the widget's public key and settings."""
    _show(_services(state, account_id).web_chat.widget(account_id), as_json)


@web_chat.command(name="rotate-key")
@_ACCOUNT
@_JSON
@pass_state
def rotate_key(state: CliState, account_id: int, as_json: bool) -> None:
    """Replace the widget key; the old one stops working at once."""
    _show(_services(state, account_id).web_chat.rotate_key(account_id), as_json)


@web_chat.command()
@_ACCOUNT
@click.argument("origins", nargs=-1, metavar="ORIGIN...")
@_JSON
@pass_state
def origins(state: CliState, account_id: int, origins: tuple[str, ...], as_json: bool) -> None:
    """Set the origins (https://shop.example) whose pages may use the widget; none removes them all."""
    services = _services(state, account_id)
    _show(services.web_chat.update_widget(account_id, WidgetPatch(allowed_origins=list(origins))), as_json)


@web_chat.command()
@_ACCOUNT
@click.option("--status", type=click.Choice(STATUSES), default=None)
@click.option("--handled-by", type=click.Choice(HANDLERS), default=None)
@click.option("--search", default=None, help="Part of the visitor's name, e-mail or phone.")
@_JSON
@pass_state
def sessions(
    state: CliState, account_id: int, status: str | None, handled_by: str | None, search: str | None, as_json: bool
) -> None:
    """List sessions, most recently active first (the first 100)."""
    found = _services(state, account_id).web_chat.find(
        account_id, SessionFilter(status, handled_by, search), PageRequest(1, 100)
    )
    if as_json:
        render = unstructure_hook(WebChatSession)
        click.echo(json.dumps([render(s) for s in found.items]))
        return
    if not found.items:
        click.echo("No web chat sessions.")
        return
    for s in found.items:
        visitor = s.visitor_name or s.visitor_email or s.visitor_phone or "anonymous"
        click.echo(f"{s.session_id}  {s.status:6}  {s.handled_by:7}  {s.last_activity_at:%Y-%m-%d %H:%M}  {visitor}")
