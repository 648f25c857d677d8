"""`engage partners ...`: create partners (resellers) and administer their keys and status.

A partner key is shown once, when issued (create, rotate-key); it is only accepted in the
`X-Partner-Key` header of the partner API (`/api/v1/partner/...`).
"""

from __future__ import annotations

import json

import click

from engage_cli.context import CliState, pass_state
from engage_cli.errors import naming_missing
from engage_cli.output import PARTNER_KEY, echo_new_key, table
from engage_core.partners.model import PARTNER_PLANS, Partner
from engage_core.partners.partner_service import NewPartnerKey

_JSON = click.option("--json", "as_json", is_flag=True, help='Print only {"partner_id": ..., "partner_key": "..."}.')
_COLUMNS = ("ID", "COMPANY", "EMAIL", "PLAN", "STATUS", "SEATS", "KEY")


@click.group()
def partners() -> None:
    """Create and administer partners (resellers of client workspaces) and their keys."""


@partners.command()
@click.option("--company", required=True, help="The partner's company name.")
@click.option("--email", required=True, help="The partner's contact e-mail address.")
@click.option("--plan", type=click.Choice(PARTNER_PLANS), default="agency", show_default=True, help="Partner plan.")
@click.option("--seats", type=int, default=None, help="Client seats (default: the partner plan's).")
@_JSON
@pass_state
def create(state: CliState, company: str, email: str, plan: str, seats: int | None, as_json: bool) -> None:
    """Create an active partner and print its partner key once."""
    issued = state.services().partners.create(company, email, plan, seats)
    _echo_new_key(issued, as_json=as_json, headline=f"Created partner {_label(issued.partner)}.")


@partners.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print the partners as a JSON array.")
@pass_state
def list_partners(state: CliState, as_json: bool) -> None:
    """List partners: id, company, e-mail, plan, status, client seats, key hint (never the key)."""
    found = state.services().partners.list()
    if as_json:
        click.echo(json.dumps([_document(partner) for partner in found]))
        return
    if not found:
        click.echo("No partners yet. Create one with: engage partners create --company NAME --email EMAIL")
        return
    rows = [(str(p.id), p.company_name, p.email, p.plan, p.status, str(p.client_seats_max), p.key_hint) for p in found]
    click.echo(table(_COLUMNS, rows))


@partners.command(name="rotate-key")
@click.argument("partner_id", metavar="ID", type=int)
@_JSON
@pass_state
def rotate_key(state: CliState, partner_id: int, as_json: bool) -> None:
    """Issue a new partner key; the old key and its login links and dashboard sessions stop working now."""
    with naming_missing("Partner", partner_id):
        issued = state.services().partners.rotate_key(partner_id)
    headline = f"Rotated the key of partner {_label(issued.partner)}; the old key no longer works."
    _echo_new_key(issued, as_json=as_json, headline=headline)


@partners.command()
@click.argument("partner_id", metavar="ID", type=int)
@pass_state
def suspend(state: CliState, partner_id: int) -> None:
    """Refuse the partner's key (403) until activated, and end its login links and sessions."""
    with naming_missing("Partner", partner_id):
        partner = state.services().partners.suspend(partner_id)
    click.echo(f"Partner {_label(partner)} is now suspended.")


@partners.command()
@click.argument("partner_id", metavar="ID", type=int)
@pass_state
def activate(state: CliState, partner_id: int) -> None:
    """Accept the partner's key again."""
    with naming_missing("Partner", partner_id):
        partner = state.services().partners.activate(partner_id)
    click.echo(f"Partner {_label(partner)} is now active.")


def _echo_new_key(issued: NewPartnerKey, *, as_json: bool, headline: str) -> None:
    """The key once; with `as_json`, stdout is exactly `{"partner_id": ..., "partner_key": "..."}`."""
    echo_new_key(PARTNER_KEY, issued.partner.id, issued.partner_key, as_json=as_json, headline=headline)


def _label(partner: Partner) -> str:
    return f"{partner.id} ({partner.company_name})"


def _document(partner: Partner) -> dict[str, object]:
    """A partner for `--json`: the table's fields (never the key, only its hint) and when it was made."""
    return {
        "id": partner.id,
        "company_name": partner.company_name,
        "slug": partner.slug,
        "email": partner.email,
        "plan": partner.plan,
        "status": partner.status,
        "client_seats_max": partner.client_seats_max,
        "partner_key_hint": partner.key_hint,
        "created_at": partner.created_at.isoformat(),
    }
