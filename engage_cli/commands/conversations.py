"""`engage conversations ...`: a workspace's conversations and who answers them, the AI or a human.

`engage conversations list ACCOUNT_ID --handled-by pending` lists the conversations the AI handed over
and that wait for a human; `take-over` makes a human answer one (the AI stays silent), optionally as
a team member; `release` gives it back to the AI. Both change nothing when repeated, as
`POST /api/v1/conversations/{contact_id}/take-over` and `.../release` do.
"""

from __future__ import annotations

import json

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.channels import CHANNEL_TYPES
from engage_core.messaging.conversations import CONVERSATIONS, ConversationFilter
from engage_core.messaging.handling import HANDLED_BY, ConversationHandling
from engage_http.converter import unstructure_hook
from engage_http.messaging.schemas import ConversationHandling as HandlingBody
from engage_http.messaging.schemas import ConversationSummary

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's fields) instead of text.")
_ACCOUNT = click.argument("account_id", metavar="ACCOUNT_ID", type=int)
_CONTACT = click.argument("contact_id", metavar="CONTACT_ID", type=click.IntRange(min=1))


@click.group()
def conversations() -> None:
    """List a workspace's conversations and hand them between the AI and the people."""


@conversations.command(name="list")
@_ACCOUNT
@click.option("--handled-by", type=click.Choice(HANDLED_BY), help="Only conversations this one answers.")
@click.option("--channel", type=click.Choice(CHANNEL_TYPES), help="Only messages of this channel count.")
@click.option("--page", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--per-page",
    type=click.IntRange(min=1, max=CONVERSATIONS.maximum),
    default=CONVERSATIONS.default,
    show_default=True,
)
@_JSON
@pass_state
def list_conversations(
    state: CliState,
    account_id: int,
    handled_by: str | None,
    channel: str | None,
    page: int,
    per_page: int,
    as_json: bool,
) -> None:
    """List a workspace's conversations, newest message first, with who answers each."""
    services = state.services()
    require_account(services, account_id)
    filters = ConversationFilter(channel=channel, handled_by=handled_by)
    found = services.messages.conversations(account_id, filters, PageRequest(page, per_page))
    if as_json:
        render = unstructure_hook(ConversationSummary)
        click.echo(json.dumps([render(c) for c in found.items]))
        return
    if not found.items:
        click.echo(
            "No conversations." if found.total == 0 else f"No conversations on page {page} ({found.total} in all)."
        )
        return
    for c in found.items:
        click.echo(f"{c.contact_id}\t{c.handled_by}\t{c.channel}\t{c.unread_count}\t{c.contact_name}\t{c.last_message}")
    noun = "conversation" if found.total == 1 else "conversations"
    click.echo(f"Page {page} of {found.last_page} ({found.total} {noun}).", err=True)


@conversations.command(name="take-over")
@_ACCOUNT
@_CONTACT
@click.option(
    "--team-member", "team_member_id", type=click.IntRange(min=1), help="The team member who answers from now on."
)
@_JSON
@pass_state
def take_over(state: CliState, account_id: int, contact_id: int, team_member_id: int | None, as_json: bool) -> None:
    """A human answers the contact's conversation from now on; the AI stays silent until it is released."""
    services = state.services()
    require_account(services, account_id)
    show(services.conversation_handling.take_over(account_id, contact_id, team_member_id), as_json)


@conversations.command()
@_ACCOUNT
@_CONTACT
@_JSON
@pass_state
def release(state: CliState, account_id: int, contact_id: int, as_json: bool) -> None:
    """Give the contact's conversation back to the AI, which answers again from the next message on."""
    services = state.services()
    require_account(services, account_id)
    show(services.conversation_handling.release(account_id, contact_id), as_json)


def show(handling: ConversationHandling, as_json: bool) -> None:
    """One line saying who answers the conversation (`--json`: the API's fields)."""
    if as_json:
        click.echo(json.dumps(unstructure_hook(HandlingBody)(handling)))
        return
    who = {"ai": "the AI answers", "pending": "waiting for a human", "human": "a human answers"}[handling.handled_by]
    assignee = "" if handling.assignee_id is None else f" (team member {handling.assignee_id})"
    reason = "" if handling.reason is None else f"; handed over: {handling.reason}"
    click.echo(f"Conversation of contact {handling.contact_id}: {who}{assignee}{reason}.")
