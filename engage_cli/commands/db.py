"""`engage db ...`: schema migrations."""

from __future__ import annotations

import click

from engage_cli.context import CliState, pass_state


@click.group()
def db() -> None:
    """Manage the database schema."""


@db.command()
@pass_state
def upgrade(state: CliState) -> None:
    """Apply pending migrations and print the revisions applied."""
    applied = state.migrate()
    if not applied:
        click.echo("Database is up to date.")
        return
    for revision in applied:
        click.echo(f"Applied {revision}")
