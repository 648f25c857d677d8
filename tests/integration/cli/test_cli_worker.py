"""`engage worker` up to the moment it starts delivering: options, configuration and its errors.

The real worker process (delivering, stopping on signals, logging) is exercised by
`tests/e2e/test_worker.py`; surviving SIGKILL by `tests/e2e/test_delivery_crash.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]


def test_help_describes_the_concurrency_option(run_cli: RunCli) -> None:
    """`engage worker --help` documents --concurrency and its default."""
    result = run_cli("worker", "--help")
    assert result.exit_code == 0
    assert "--concurrency N" in result.stdout
    assert "ENGAGE_WORKER_CONCURRENCY" in result.stdout


def test_the_root_help_lists_the_worker(run_cli: RunCli) -> None:
    """`engage --help` names the worker command."""
    commands = run_cli("--help").stdout.split("Commands:")[1].split()
    assert "worker" in commands


@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_a_bad_concurrency_is_a_usage_error(run_cli: RunCli, database_url: str, value: str) -> None:
    """--concurrency takes a positive integer; anything else exits 2 before the database is opened."""
    result = run_cli("worker", "--concurrency", value)
    assert result.exit_code == 2
    assert "--concurrency" in result.stderr
    assert not Path(database_url.removeprefix("sqlite:///")).exists()


def test_a_lease_not_longer_than_the_timeout_is_refused(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """ENGAGE_WEBHOOK_LEASE must exceed ENGAGE_WEBHOOK_TIMEOUT, or two workers could send one attempt at once."""
    line = one_line_error(run_cli("worker", env={"ENGAGE_WEBHOOK_TIMEOUT": "30", "ENGAGE_WEBHOOK_LEASE": "30"}))
    assert "ENGAGE_WEBHOOK_LEASE (30 s) must be greater than ENGAGE_WEBHOOK_TIMEOUT (30 s)" in line


def test_a_malformed_concurrency_variable_is_a_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """ENGAGE_WORKER_CONCURRENCY=abc is named in the error."""
    line = one_line_error(run_cli("worker", env={"ENGAGE_WORKER_CONCURRENCY": "abc"}))
    assert "ENGAGE_WORKER_CONCURRENCY" in line


def test_an_unknown_log_level_is_a_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """ENGAGE_LOG_LEVEL must be one of the known levels."""
    line = one_line_error(run_cli("worker", env={"ENGAGE_LOG_LEVEL": "loud"}))
    assert "ENGAGE_LOG_LEVEL" in line


def test_an_unknown_log_format_is_a_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """ENGAGE_LOG_FORMAT must be text or json."""
    line = one_line_error(run_cli("worker", env={"ENGAGE_LOG_FORMAT": "xml"}))
    assert "ENGAGE_LOG_FORMAT" in line


def test_postgresql_without_a_secret_key_is_refused_before_connecting(
    run_cli: RunCli, one_line_error: OneLineError
) -> None:
    """On PostgreSQL ENGAGE_SECRET_KEY is required; the error comes before any connection attempt."""
    result = run_cli("worker", database="postgresql://engage@127.0.0.1:1/engage", env={"ENGAGE_SECRET_KEY": ""})
    assert "ENGAGE_SECRET_KEY must be set" in one_line_error(result)


def test_a_short_secret_key_is_a_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """ENGAGE_SECRET_KEY shorter than 16 characters is named as invalid configuration."""
    line = one_line_error(run_cli("worker", env={"ENGAGE_SECRET_KEY": "short"}))
    assert line.startswith("Error: Invalid configuration: ENGAGE_SECRET_KEY must be at least 16 characters")


def test_a_database_in_a_missing_directory_is_a_one_line_error(run_cli: RunCli, tmp_path: Path) -> None:
    """Without ENGAGE_SECRET_KEY, a SQLite path whose directory is missing ends with one error line
    (after the warning that the development key is used)."""
    result = run_cli("worker", database=f"sqlite:///{tmp_path / 'missing' / 'engage.db'}")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stderr.splitlines()[-1].startswith("Error: Cannot create the development key file")
