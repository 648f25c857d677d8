"""`engage db ...`: schema migrations and backups."""

from __future__ import annotations

import os
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
    from engage_http.bootstrap import KEY_FILE_SUFFIX
    from engage_sql.backup import BackupUnsupported, backup_sqlite

    key_copy = path.with_name(path.name + KEY_FILE_SUFFIX)
    if not force and (path.exists() or key_copy.exists()):
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
    key_file = Path(str(database.engine.url.database) + KEY_FILE_SUFFIX)
    if key_file.exists():
        _copy_private(key_file, key_copy)
        click.echo(f"Copied the development key to {key_copy}: restore it beside the database as its .secret-key.")


def _copy_private(source: Path, target: Path) -> None:
    """Copy a key file to `target`, readable by its owner only, replacing it atomically."""
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(source.read_bytes())
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, target)
