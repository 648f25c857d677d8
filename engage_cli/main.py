"""The `engage` command: global options, and the command groups wired together.

engage [--database-url URL] serve [--host H] [--port P] [--workers N] [--no-worker] [--no-access-log] [--demo]
engage [--database-url URL] worker [--concurrency N]
engage [--database-url URL] db upgrade
engage [--database-url URL] accounts create --name NAME [--json]
engage [--database-url URL] accounts list
engage [--database-url URL] accounts rotate-key ID [--json]
engage [--database-url URL] accounts deactivate ID | activate ID
engage [--database-url URL] accounts set-origins ID [ORIGIN]...
engage [--database-url URL] partners create --company NAME --email EMAIL [--plan agency|enterprise] [--seats N] [--json]
engage [--database-url URL] partners list | rotate-key ID [--json] | suspend ID | activate ID
engage [--database-url URL] plans list [--json]
engage [--database-url URL] plans set PLAN [--name NAME] [--limit NAME=VALUE]... [--feature NAME=on|off]... [--json]
engage [--database-url URL] orders import ACCOUNT_ID FILE
engage [--database-url URL] tickets list ACCOUNT_ID [--status S] [--priority P] [--page N] [--per-page N] [--json]
engage [--database-url URL] tickets show ACCOUNT_ID TICKET [--json]
engage [--database-url URL] tickets reply ACCOUNT_ID TICKET --admin --message TEXT [--json]
engage [--database-url URL] departments list ACCOUNT_ID [--json]
engage [--database-url URL] departments create ACCOUNT_ID --title TITLE [--json]
engage [--database-url URL] departments rename ACCOUNT_ID DEPARTMENT_ID --title TITLE [--json]
engage [--database-url URL] departments delete ACCOUNT_ID DEPARTMENT_ID
engage [--database-url URL] bookings types list|create|update|deactivate ACCOUNT_ID ... [--json]
engage [--database-url URL] bookings resources list|create|update|deactivate ACCOUNT_ID ... [--json]
engage [--database-url URL] bookings hours show|set|clear ACCOUNT_ID [--resource ID] [--file F] [--timezone TZ]
engage [--database-url URL] bookings complete ACCOUNT_ID BOOKING_ID [--json]
engage [--database-url URL] agents list|show|create|update|delete|set-default|assign ACCOUNT_ID ... [--json]
engage [--database-url URL] kb list ACCOUNT_ID [--type T] [--status S] [--page N] [--per-page N] [--json]
engage [--database-url URL] kb search ACCOUNT_ID QUERY [--type T] [--limit N] [--json]
engage [--database-url URL] conversations list ACCOUNT_ID [--handled-by STATE] [--channel C] [--page N] [--json]
engage [--database-url URL] conversations take-over ACCOUNT_ID CONTACT_ID [--team-member ID] [--json]
engage [--database-url URL] conversations release ACCOUNT_ID CONTACT_ID [--json]
engage [--database-url URL] media list ACCOUNT_ID [--type T] [--search S] [--page N] [--per-page N] [--json]
engage [--database-url URL] media upload ACCOUNT_ID FILE [--name NAME] [--json]
engage [--database-url URL] media show ACCOUNT_ID MEDIA_ID [--json]
engage [--database-url URL] media rename ACCOUNT_ID MEDIA_ID --name NAME [--json]
engage [--database-url URL] media delete ACCOUNT_ID MEDIA_ID
engage [--database-url URL] voice voices [--json]
engage [--database-url URL] voice show ACCOUNT_ID [--json]
engage [--database-url URL] voice set ACCOUNT_ID [--voice NAME] [--language L] [--dialect D] [--enabled|--disabled]
engage [--database-url URL] voice speak ACCOUNT_ID TEXT [--json]
engage [--database-url URL] voice delete-clone ACCOUNT_ID
engage [--database-url URL] web-chat widget|rotate-key|origins|sessions ACCOUNT_ID ... [--json]
engage sandbox [--url URL] --api-key KEY scan|fail|set-status|inject-message|inject-receipt ...
"""

from __future__ import annotations

import click

from engage_cli.commands.accounts import accounts
from engage_cli.commands.agents import agents
from engage_cli.commands.bookings import bookings
from engage_cli.commands.campaigns import campaigns
from engage_cli.commands.commerce import orders
from engage_cli.commands.conversations import conversations
from engage_cli.commands.db import db
from engage_cli.commands.knowledge import kb
from engage_cli.commands.linkedin import linkedin
from engage_cli.commands.media import media
from engage_cli.commands.messaging import sandbox
from engage_cli.commands.partners import partners
from engage_cli.commands.plans import plans
from engage_cli.commands.serve import serve
from engage_cli.commands.support import departments, tickets
from engage_cli.commands.voice import voice
from engage_cli.commands.web_chat import web_chat
from engage_cli.commands.worker import worker
from engage_cli.context import CliState
from engage_cli.errors import EngageGroup
from engage_core import DISTRIBUTION_NAME
from engage_core.settings import DEFAULT_DATABASE_URL


@click.group(cls=EngageGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--database-url",
    envvar="ENGAGE_DATABASE_URL",
    default=DEFAULT_DATABASE_URL,
    show_default=True,
    show_envvar=True,
    metavar="URL",
    help="sqlite:///path/to/engage.db or postgresql://user:password@host:5432/dbname.",
)
@click.version_option(package_name=DISTRIBUTION_NAME, prog_name="engage")
@click.pass_context
def cli(ctx: click.Context, database_url: str) -> None:
    """engage: customer engagement as a library and a service."""
    state = CliState(database_url)
    ctx.obj = state
    ctx.call_on_close(state.close)


cli.add_command(serve)
cli.add_command(worker)
cli.add_command(db)
cli.add_command(accounts)
cli.add_command(orders)
cli.add_command(sandbox)
cli.add_command(tickets)
cli.add_command(departments)
cli.add_command(bookings)
cli.add_command(agents)
cli.add_command(partners)
cli.add_command(plans)
cli.add_command(kb)
cli.add_command(conversations)
cli.add_command(campaigns)
cli.add_command(linkedin)
cli.add_command(media)
cli.add_command(voice)
cli.add_command(web_chat)


def main() -> None:
    """Console script entry point (`engage`)."""
    cli(prog_name="engage")
