"""Every failure is one `Error: ...` line and a non-zero exit, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from engage_cli.errors import message_for, redact

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]

UNREACHABLE_POSTGRES = "postgresql://engage:s3cret@127.0.0.1:1/engage"
"""Nothing listens on port 1: the connection is refused at once."""


def test_an_unreachable_database_is_a_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """A refused connection names the database without a traceback."""
    line = one_line_error(run_cli("accounts", "list", database=UNREACHABLE_POSTGRES))
    assert "127.0.0.1:1" in line


def test_the_password_of_the_database_url_is_never_printed(run_cli: RunCli) -> None:
    """Error messages show the URL with its password masked."""
    result = run_cli("db", "upgrade", database=UNREACHABLE_POSTGRES)
    assert "s3cret" not in result.output


def test_a_sqlite_file_that_cannot_be_opened_is_a_one_line_error(
    run_cli: RunCli, one_line_error: OneLineError, tmp_path: Path
) -> None:
    """A database path below a regular file cannot be created."""
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    one_line_error(run_cli("db", "upgrade", database=f"sqlite:///{blocker / 'engage.db'}"))


@pytest.mark.parametrize("url", ["not a url", "nosuchdb://host/db"])
def test_a_malformed_database_url_is_a_one_line_error(run_cli: RunCli, one_line_error: OneLineError, url: str) -> None:
    """A URL that cannot be parsed, or names an unknown engine, is reported on one line."""
    one_line_error(run_cli("accounts", "list", database=url))


def test_the_console_script_prints_no_traceback() -> None:
    """Run as a real process, a database error is one line on stderr and exit status 1."""
    completed = subprocess.run(
        [sys.executable, "-m", "engage_cli", "--database-url", UNREACHABLE_POSTGRES, "accounts", "list"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 1
    assert completed.stderr.count("\n") == 1
    assert completed.stderr.startswith("Error: ")


def test_an_unexpected_error_is_described_on_one_line() -> None:
    """Errors nobody anticipated still give one line, with a hint for the traceback."""
    message = message_for(RuntimeError("first line\nsecond line"))
    assert "\n" not in message
    assert "RuntimeError" in message
    assert "ENGAGE_LOG_LEVEL=debug" in message


def test_redact_masks_only_the_password() -> None:
    """User, host and database stay readable."""
    assert redact("postgresql://user:pw@db:5432/engage") == "postgresql://user:***@db:5432/engage"
