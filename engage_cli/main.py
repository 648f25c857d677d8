"""The `engage` command: global options, and the command groups wired together.

engage [--database-url URL] serve [--host H] [--port P] [--workers N] [--no-worker] [--no-access-log] [--demo]
engage [--database-url URL] worker [--concurrency N]
engage [--database-url URL] db upgrade
engage [--database-url URL] accounts create --name NAME [--json]
engage [--database-url URL] accounts list
engage [--database-url URL] accounts rotate-key ID [--json]
engage [--database-url URL] accounts deactivate ID | activate ID
engage [--database-url URL] accounts set-origins ID [ORIGIN]...
"""

from __future__ import annotations

import click

from engage_cli.commands.accounts import accounts
from engage_cli.commands.db import db
from engage_cli.commands.serve import serve
from engage_cli.commands.worker import worker
from engage_cli.context import CliState
from engage_cli.errors import EngageGroup
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
@click.version_option(package_name="engage", prog_name="engage")
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


def main() -> None:
    """Console script entry point (`engage`)."""
    cli(prog_name="engage")
