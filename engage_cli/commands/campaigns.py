"""`engage campaigns ...`: a workspace's outreach campaigns from the command line.

The same use cases as the API (`docs/campaigns.md`): create a draft, start, pause, resume, cancel
and delete it, and see each recipient's delivery status. The messages are sent by the worker
(`engage serve`'s, or `engage worker` with the hosted gateway), never by the command.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.campaigns.model import (
    CAMPAIGN_CHANNELS,
    CAMPAIGN_STATUSES,
    CAMPAIGNS,
    DEFAULT_SEND_RATE,
    REASONS,
    RECIPIENT_STATUSES,
    RECIPIENTS,
    SEND_RATE_MAX,
    SEND_RATE_MIN,
    Campaign,
    CampaignFilter,
    RecipientFilter,
)
from engage_core.campaigns.service import CampaignInput
from engage_core.kernel.pagination import PageRequest
from engage_http.campaigns.schemas import Campaign as CampaignBody
from engage_http.campaigns.schemas import CampaignContact
from engage_http.converter import converter, unstructure_hook

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's fields) instead of text.")
_ACCOUNT = click.argument("account_id", metavar="ACCOUNT_ID", type=int)
_CAMPAIGN = click.argument("campaign_id", metavar="CAMPAIGN_ID", type=int)


@click.group()
def campaigns() -> None:
    """Create, start, pause, resume, cancel and follow a workspace's campaigns."""


@campaigns.command(name="list")
@_ACCOUNT
@click.option("--status", type=click.Choice(CAMPAIGN_STATUSES), help="Only campaigns in this status.")
@click.option("--channel", type=click.Choice(CAMPAIGN_CHANNELS), help="Only campaigns on this channel.")
@click.option("--page", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--per-page", type=click.IntRange(1, CAMPAIGNS.maximum), default=CAMPAIGNS.default, show_default=True)
@_JSON
@pass_state
def list_campaigns(
    state: CliState, account_id: int, status: str | None, channel: str | None, page: int, per_page: int, as_json: bool
) -> None:
    """List a workspace's campaigns, newest first."""
    services = state.services()
    require_account(services, account_id)
    found = services.campaigns.list(account_id, CampaignFilter(status, channel), PageRequest(page, per_page))
    if as_json:
        click.echo(json.dumps([converter.unstructure(CampaignBody.from_domain(c)) for c in found.items]))
        return
    if not found.items:
        click.echo("No campaigns.")
        return
    click.echo(campaign_table(found.items))


@campaigns.command()
@_ACCOUNT
@click.option("--name", required=True)
@click.option("--channel", type=click.Choice(CAMPAIGN_CHANNELS), required=True)
@click.option("--message", required=True, help="The text; placeholders such as {{first_name|there}}.")
@click.option("--contact", "contact_ids", type=int, multiple=True, help="A contact id (repeatable).")
@click.option("--list", "list_ids", type=int, multiple=True, help="A contact list id (repeatable).")
@click.option("--segment", "segment_ids", type=int, multiple=True, help="A segment id (repeatable).")
@click.option("--starts-at", help="ISO 8601; without an offset in the workspace's timezone.")
@click.option(
    "--rate",
    type=click.IntRange(SEND_RATE_MIN, SEND_RATE_MAX),
    default=DEFAULT_SEND_RATE,
    show_default=True,
    help="Messages per minute.",
)
@_JSON
@pass_state
def create(
    state: CliState,
    account_id: int,
    name: str,
    channel: str,
    message: str,
    contact_ids: Sequence[int],
    list_ids: Sequence[int],
    segment_ids: Sequence[int],
    starts_at: str | None,
    rate: int,
    as_json: bool,
) -> None:
    """Create a draft campaign."""
    services = state.services()
    require_account(services, account_id)
    data = CampaignInput(
        name, channel, message, tuple(contact_ids), tuple(list_ids), tuple(segment_ids), starts_at, rate
    )
    _show(services.campaigns.create(account_id, data), as_json)


@campaigns.command()
@_ACCOUNT
@_CAMPAIGN
@_JSON
@pass_state
def show(state: CliState, account_id: int, campaign_id: int, as_json: bool) -> None:
    """Show a campaign with its counters."""
    services = state.services()
    require_account(services, account_id)
    _show(services.campaigns.get(account_id, campaign_id), as_json)


def _move(operation: str, summary: str) -> click.Command:
    @_ACCOUNT
    @_CAMPAIGN
    @_JSON
    @pass_state
    def command(state: CliState, account_id: int, campaign_id: int, as_json: bool) -> None:
        services = state.services()
        require_account(services, account_id)
        _show(getattr(services.campaigns, operation)(account_id, campaign_id), as_json)

    command.__doc__ = summary
    return campaigns.command(name=operation)(command)


_move("start", "Start a draft: its recipients are resolved now and the worker sends.")
_move("pause", "Pause a running campaign after the message in flight.")
_move("resume", "Resume a paused campaign from its first pending recipient.")
_move("cancel", "Cancel a scheduled, running or paused campaign; its pending recipients are skipped.")


@campaigns.command()
@_ACCOUNT
@_CAMPAIGN
@pass_state
def delete(state: CliState, account_id: int, campaign_id: int) -> None:
    """Delete a draft or cancelled campaign."""
    services = state.services()
    require_account(services, account_id)
    services.campaigns.delete(account_id, campaign_id)
    click.echo(f"Campaign {campaign_id} deleted.")


@campaigns.command(name="contacts")
@_ACCOUNT
@_CAMPAIGN
@click.option("--status", type=click.Choice(RECIPIENT_STATUSES), help="Only recipients in this status.")
@click.option("--reason", type=click.Choice(REASONS), help="Only recipients skipped or failed for this reason.")
@click.option("--page", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--per-page", type=click.IntRange(1, RECIPIENTS.maximum), default=RECIPIENTS.default, show_default=True)
@_JSON
@pass_state
def contacts(
    state: CliState,
    account_id: int,
    campaign_id: int,
    status: str | None,
    reason: str | None,
    page: int,
    per_page: int,
    as_json: bool,
) -> None:
    """List a campaign's recipients and their delivery status, in the order they are sent to."""
    services = state.services()
    require_account(services, account_id)
    found = services.campaigns.recipients(
        account_id, campaign_id, RecipientFilter(status, reason), PageRequest(page, per_page)
    )
    if as_json:
        render = unstructure_hook(CampaignContact)
        click.echo(json.dumps([render(r) for r in found.items]))
        return
    if not found.items:
        click.echo("No recipients.")
        return
    for r in found.items:
        why = f" ({r.reason})" if r.reason else ""
        click.echo(f"{r.contact_id:>8}  {r.status:<9}  {r.name or '(deleted)'}{why}")
    click.echo(f"Page {page} of {found.last_page} ({found.total} recipients).", err=True)


def _show(campaign: Campaign, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(converter.unstructure(CampaignBody.from_domain(campaign))))
        return
    n = campaign.counters
    click.echo(f"Campaign {campaign.id}: {campaign.name} ({campaign.channel}, {campaign.status})")
    click.echo(
        f"  {n.total} recipients: {n.pending} pending, {n.sent} sent, {n.delivered} delivered, {n.read} read, "
        f"{n.failed} failed, {n.skipped} skipped"
    )
    if campaign.error:
        click.echo(f"  Error: {campaign.error}")


def campaign_table(found: Sequence[Campaign]) -> str:
    """One line per campaign: id, status, channel, counters and name."""
    lines = [f"{'ID':>6}  {'STATUS':<10}  {'CHANNEL':<9}  {'SENT/TOTAL':>11}  NAME"]
    for c in found:
        lines.append(f"{c.id:>6}  {c.status:<10}  {c.channel:<9}  {c.counters.sent:>5}/{c.counters.total:<5}  {c.name}")
    return "\n".join(lines)
