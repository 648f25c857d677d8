"""Factories for the CLI tests: a temporary SQLite database, a runner bound to it, and helpers
that create an account or open the services over the same database."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from click.testing import CliRunner, Result

from engage_cli.main import cli
from engage_core.services import Services

RunCli = Callable[..., Result]


@pytest.fixture
def database_url(tmp_path: Any) -> str:
    return f"sqlite:///{tmp_path / 'engage.db'}"


@pytest.fixture
def run_cli(database_url: str, monkeypatch: pytest.MonkeyPatch) -> RunCli:
    """`run_cli("accounts", "list")` runs `engage --database-url <temp db> accounts list`."""
    monkeypatch.delenv("ENGAGE_DATABASE_URL", raising=False)
    monkeypatch.delenv("ENGAGE_LOG_LEVEL", raising=False)
    runner = CliRunner()

    def run(*args: str, database: str | None = None, env: dict[str, str] | None = None) -> Result:
        return runner.invoke(cli, ["--database-url", database or database_url, *args], env=env)

    return run


@pytest.fixture
def create_account(run_cli: RunCli) -> Callable[..., dict[str, Any]]:
    """Create an account through the CLI; returns `{"account_id": ..., "api_key": ...}`."""

    def create(name: str = "Acme") -> dict[str, Any]:
        result = run_cli("accounts", "create", "--name", name, "--json")
        assert result.exit_code == 0, result.output
        created: dict[str, Any] = json.loads(result.stdout)
        return created

    return create


@pytest.fixture
def open_services(database_url: str) -> Iterator[Callable[[], Services]]:
    """Open the services over the test database, as the HTTP app would; closed after the test."""
    from engage_sql import Database

    opened: list[Database] = []

    def open_() -> Services:
        database = Database.connect(database_url)
        opened.append(database)
        return Services.build(database.uow)

    yield open_
    for database in opened:
        database.dispose()


@pytest.fixture
def one_line_error() -> Callable[[Result], str]:
    """Check that a command failed with status 1 and one `Error: ...` line, no traceback; return the line."""

    def check(result: Result) -> str:
        assert result.exit_code == 1, result.output
        assert isinstance(result.exception, SystemExit), repr(result.exception)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("Error: ")
        assert "Traceback" not in result.output
        return lines[0]

    return check
