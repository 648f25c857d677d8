"""`engage db ...`: schema migrations and backups."""

from __future__ import annotations

from pathlib import Path

import click

from engage_cli.context import CliState, pass_state


@click.group()
def db() -> None:
    """Manage the database: its schema and its backups."""


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


@db.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace PATH (and its key file) when they exist.")
@pass_state
def backup(state: CliState, path: Path, force: bool) -> None:
    """Copy the SQLite database to PATH while engage runs, with the key that decrypts its secrets.

    Without ENGAGE_SECRET_KEY, webhook secrets are encrypted with the development key file beside the
    database; it is copied to PATH.secret-key, since a copy without it can deliver no webhook. With
    ENGAGE_SECRET_KEY, the key is not in the backup: keep it, a restore needs it. PostgreSQL: pg_dump.
    """
    from engage_http.secret_key import KEY_FILE_SUFFIX, copy_development_key
    from engage_sql.backup import BackupUnsupported, backup_sqlite

    if not force and (path.exists() or path.with_name(path.name + KEY_FILE_SUFFIX).exists()):
        raise click.ClickException(f"{path} already exists; pass --force to replace it.")
    database = state.database()
    try:
        backup_sqlite(database, path)
    except BackupUnsupported as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Backed up the database to {path} ({path.stat().st_size} bytes).")
    if state.settings().secret_key:
        click.echo("Secrets are encrypted with ENGAGE_SECRET_KEY, which is not in the backup: a restore needs it.")
        return
    key_copy = copy_development_key(database, path)
    if key_copy is not None:
        click.echo(f"Copied the development key to {key_copy}: restore it beside the database as its .secret-key.")
