"""The `engage` root command: help, version, and no database work before a command needs it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import Result

RunCli = Callable[..., Result]


def test_help_lists_the_command_groups(run_cli: RunCli) -> None:
    """`engage --help` shows serve, db and accounts."""
    result = run_cli("--help")
    assert result.exit_code == 0
    commands = result.stdout.split("Commands:")[1].split()
    assert {"serve", "db", "accounts"} <= set(commands)


def test_help_never_opens_the_database(run_cli: RunCli, database_url: str) -> None:
    """Asking for help creates no database file."""
    run_cli("accounts", "create", "--help")
    assert not Path(database_url.removeprefix("sqlite:///")).exists()


def test_version_prints_the_installed_version(run_cli: RunCli) -> None:
    """`engage --version` names the program and its version."""
    result = run_cli("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith("engage, version ")


def test_an_unknown_command_is_a_usage_error(run_cli: RunCli) -> None:
    """Typos exit with status 2 and no traceback."""
    result = run_cli("acounts")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
