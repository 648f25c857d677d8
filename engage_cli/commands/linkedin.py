"""`engage linkedin ...`: a workspace's LinkedIn sourcing from the command line (`docs/linkedin.md`)."""

from __future__ import annotations

import json

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_http.converter import converter
from engage_http.linkedin.schemas import LinkedInOverview


@click.group()
def linkedin() -> None:
    """LinkedIn sourcing: the overview of a workspace's LinkedIn account and campaigns."""


@linkedin.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's fields) instead of text.")
@pass_state
def overview(state: CliState, account_id: int, as_json: bool) -> None:
    """The connection, the LinkedIn inbox, the active campaigns, the InMail balance and the week's invitations."""
    services = state.services()
    require_account(services, account_id)
    found = LinkedInOverview.from_domain(services.linkedin.overview(account_id))
    if as_json:
        click.echo(json.dumps(converter.unstructure(found)))
        return
    connection = found.connection
    quota = found.invitations
    cap = "no weekly cap" if quota.weekly_cap is None else f"{quota.used} of {quota.weekly_cap} this week"
    lines = [
        f"Connection: {'connected' if connection.connected else 'not connected'}"
        + (f" ({connection.username})" if connection.username else ""),
        f"Inbox: {found.inbox.conversations} conversations, {found.inbox.unread_messages} unread messages",
        f"InMail balance: {'unknown' if found.inmail_balance is None else found.inmail_balance}"
        + (" (Recruiter contract)" if found.recruiter_contract else ""),
        f"Invitations: {cap}" + (" - over 80 % of the weekly cap used" if quota.warning else ""),
        f"Active campaigns: {len(found.active_campaigns)}",
    ]
    lines += [
        f"  {c.id}  {c.status:<9} {c.success_count}/{c.total_contacts} sent  {c.name}" for c in found.active_campaigns
    ]
    click.echo("\n".join(lines))
