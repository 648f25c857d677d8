"""The `engage` root command: help, version, and no database work before a command needs it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
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


@pytest.mark.parametrize("module", ["engage", "engage_cli"])
def test_python_m_runs_the_command(module: str) -> None:
    """`python -m engage` (and `python -m engage_cli`) is the `engage` command."""
    result = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, check=False)

    assert (result.returncode, result.stdout.startswith("engage, version ")) == (0, True), result.stderr


def test_settings_are_checked_before_any_migration(run_cli: RunCli, database_url: str) -> None:
    """`serve` with a mail server but no sender refuses to start, and migrates nothing first."""
    result = run_cli("serve", env={"ENGAGE_SMTP_HOST": "mail.example.com"})

    assert result.exit_code == 1
    assert "ENGAGE_SMTP_FROM" in result.stderr
    path = Path(database_url.removeprefix("sqlite:///"))
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone() == (0,)


def test_an_unknown_command_is_a_usage_error(run_cli: RunCli) -> None:
    """Typos exit with status 2 and no traceback."""
    result = run_cli("acounts")
    assert result.exit_code == 2
    assert "Traceback" not in result.output
