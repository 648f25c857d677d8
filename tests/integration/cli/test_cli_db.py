"""`engage db upgrade` and the global `--database-url` option."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from engage_cli.main import cli

RunCli = Callable[..., Result]


def test_upgrade_on_a_fresh_database_prints_the_revisions_applied(run_cli: RunCli) -> None:
    """Each applied revision is printed on its own line."""
    result = run_cli("db", "upgrade")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines
    assert all(line.startswith("Applied ") for line in lines)


def test_upgrade_twice_says_the_database_is_up_to_date(run_cli: RunCli) -> None:
    """A second upgrade has nothing to apply."""
    run_cli("db", "upgrade")
    result = run_cli("db", "upgrade")
    assert result.exit_code == 0, result.output
    assert result.stdout == "Database is up to date.\n"


def test_accounts_commands_migrate_a_fresh_database_first(run_cli: RunCli) -> None:
    """After `accounts list` on a new database, there is nothing left to migrate."""
    run_cli("accounts", "list")
    assert run_cli("db", "upgrade").stdout == "Database is up to date.\n"


def test_database_url_is_read_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`ENGAGE_DATABASE_URL` stands in for `--database-url`."""
    monkeypatch.delenv("ENGAGE_DATABASE_URL", raising=False)
    path = tmp_path / "from-env.db"
    result = CliRunner().invoke(cli, ["db", "upgrade"], env={"ENGAGE_DATABASE_URL": f"sqlite:///{path}"})
    assert result.exit_code == 0, result.output
    assert path.exists()


def test_the_option_overrides_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--database-url` wins over `ENGAGE_DATABASE_URL`."""
    monkeypatch.delenv("ENGAGE_DATABASE_URL", raising=False)
    env_path, option_path = tmp_path / "env.db", tmp_path / "option.db"
    CliRunner().invoke(
        cli,
        ["--database-url", f"sqlite:///{option_path}", "db", "upgrade"],
        env={"ENGAGE_DATABASE_URL": f"sqlite:///{env_path}"},
    )
    assert option_path.exists()
    assert not env_path.exists()


def test_the_default_database_is_engage_db_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With nothing set, the embedded SQLite file `./engage.db` is used."""
    monkeypatch.delenv("ENGAGE_DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "engage.db").exists()


def test_upgrade_then_accounts_work_on_every_backend(make_database_url: Callable[..., str], run_cli: RunCli) -> None:
    """On SQLite and PostgreSQL alike, a fresh database is migrated and takes an account."""
    url = make_database_url(migrated=False)
    assert run_cli("db", "upgrade", database=url).exit_code == 0
    result = run_cli("accounts", "create", "--name", "Acme", "--json", database=url)
    assert result.exit_code == 0, result.output
