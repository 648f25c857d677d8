"""The state one CLI invocation shares: the database URL, and the database opened on first use.

Nothing touches the database until a command asks for it, so `engage --help` and usage errors
never connect, and a bad URL is reported by the command that needed it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs
import click

from engage_cli.errors import redact
from engage_core.services import Services
from engage_core.settings import Settings

if TYPE_CHECKING:
    from engage_sql import Database


class CliState:
    """Held on the root click context (`ctx.obj`) and closed when the command ends."""

    def __init__(self, database_url: str) -> None:
        self.database_url = database_url
        self._database: Database | None = None
        self._migrated = False

    def settings(self) -> Settings:
        """`ENGAGE_*` settings from the environment, with the CLI's database URL on top."""
        try:
            settings = Settings.from_env()
        except ValueError as exc:  # a malformed ENGAGE_* number
            raise click.ClickException(f"Invalid configuration: {exc}") from exc
        return attrs.evolve(settings, database_url=self.database_url)

    def database(self) -> Database:
        if self._database is None:
            from engage_sql import Database  # imported on first use: `engage --help` stays fast

            try:
                guard = self.settings().database_read_only_guard
                self._database = Database.connect(self.database_url, read_only_guard=guard)
            except ValueError as exc:  # the adapter's word for a URL it does not support
                raise click.ClickException(f"Invalid database URL {redact(self.database_url)}: {exc}") from exc
        return self._database

    def migrate(self) -> list[str]:
        """Apply pending migrations; the revisions applied, oldest first (empty when up to date)."""
        applied = list(self.database().upgrade())
        self._migrated = True
        return applied

    def services(self) -> Services:
        """The use cases over this database, its schema brought up to date first."""
        if not self._migrated:
            self.migrate()
        from engage_http.bootstrap import build_services  # the one composition root, shared with serve

        return build_services(self.settings(), self.database())

    def close(self) -> None:
        if self._database is not None:
            database, self._database = self._database, None
            database.dispose()


pass_state = click.make_pass_decorator(CliState)
"""Decorator handing a command the `CliState` of the current invocation."""
