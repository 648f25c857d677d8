"""`engage serve` up to the moment it hands over to uvicorn (`uvicorn.run` is replaced by a recorder).

The real server process is exercised by `tests/e2e/test_serve.py`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
import uvicorn
from click.testing import Result
from starlette.applications import Starlette

from engage_connectors.passwords import Argon2idHasher
from engage_core.accounts import keys as api_keys
from engage_core.services import Services
from engage_sql import Database

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


@pytest.fixture
def uvicorn_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each `uvicorn.run` call as `{"app": ..., "environ": {...}, **options}`; the environment is restored after."""
    for name in ("ENGAGE_DATABASE_URL", "ENGAGE_RUN_WORKER"):
        monkeypatch.setenv(name, "")  # remember the original value, so what `serve` sets is undone
        monkeypatch.delenv(name)
    calls: list[dict[str, Any]] = []

    def record(app: Any, **options: Any) -> None:
        calls.append({"app": app, "environ": dict(os.environ), **options})

    monkeypatch.setattr(uvicorn, "run", record)
    return calls


def test_serve_applies_pending_migrations_first(run_cli: RunCli, uvicorn_calls: list[dict[str, Any]]) -> None:
    """After serve has started, the schema is current."""
    run_cli("serve")
    assert run_cli("db", "upgrade").stdout == "Database is up to date.\n"


def test_serve_binds_loopback_port_8000_by_default(run_cli: RunCli, uvicorn_calls: list[dict[str, Any]]) -> None:
    """The defaults are 127.0.0.1:8000."""
    result = run_cli("serve")
    assert result.exit_code == 0, result.output
    assert (uvicorn_calls[0]["host"], uvicorn_calls[0]["port"]) == ("127.0.0.1", 8000)


def test_one_worker_serves_the_app_built_in_process(run_cli: RunCli, uvicorn_calls: list[dict[str, Any]]) -> None:
    """Without --workers, uvicorn gets the Starlette app object itself."""
    run_cli("serve", "--host", "127.0.0.2", "--port", "8123")
    call = uvicorn_calls[0]
    assert isinstance(call["app"], Starlette)
    assert (call["host"], call["port"]) == ("127.0.0.2", 8123)


def test_several_workers_load_the_app_factory(run_cli: RunCli, uvicorn_calls: list[dict[str, Any]]) -> None:
    """With --workers 2, each process imports engage_http.bootstrap:app_factory."""
    run_cli("serve", "--workers", "2")
    call = uvicorn_calls[0]
    assert (call["app"], call["factory"], call["workers"]) == ("engage_http.bootstrap:app_factory", True, 2)


def test_workers_get_the_database_url_from_the_environment(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], database_url: str
) -> None:
    """The URL given on the command line reaches the worker processes as ENGAGE_DATABASE_URL."""
    run_cli("serve", "--workers", "2")
    assert uvicorn_calls[0]["environ"]["ENGAGE_DATABASE_URL"] == database_url


def test_no_worker_records_the_choice_in_the_environment(run_cli: RunCli, uvicorn_calls: list[dict[str, Any]]) -> None:
    """--no-worker sets ENGAGE_RUN_WORKER=0 for the app."""
    run_cli("serve", "--no-worker")
    assert uvicorn_calls[0]["environ"]["ENGAGE_RUN_WORKER"] == "0"


def test_the_worker_is_left_on_by_default(run_cli: RunCli, uvicorn_calls: list[dict[str, Any]]) -> None:
    """Without --no-worker, ENGAGE_RUN_WORKER is not set by serve."""
    run_cli("serve")
    assert "ENGAGE_RUN_WORKER" not in uvicorn_calls[0]["environ"]


def test_requests_are_logged_unless_told_otherwise(run_cli: RunCli, uvicorn_calls: list[dict[str, Any]]) -> None:
    """uvicorn's access log is on by default; --no-access-log turns it off."""
    run_cli("serve")
    run_cli("serve", "--no-access-log")
    run_cli("serve", "--workers", "2", "--no-access-log")
    assert [call["access_log"] for call in uvicorn_calls] == [True, False, False]


def test_demo_on_a_new_database_prints_a_working_key(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], open_services: OpenServices
) -> None:
    """--demo creates an account when there is none and prints its key once."""
    result = run_cli("serve", "--demo")
    assert result.exit_code == 0, result.output
    keys = [word for word in result.stdout.split() if api_keys.is_well_formed(word.strip('"'))]
    assert keys
    assert open_services().accounts.authenticate(keys[0].strip('"')).name == "Demo"


def test_demo_prints_a_dashboard_password_that_signs_in(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], database_url: str
) -> None:
    """--demo adds an admin team member and prints its password once; it signs in to the Demo workspace."""
    result = run_cli("serve", "--demo")
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "/login as admin@demo.example" in line)
    password = lines[at + 2].strip()
    database = Database.connect(database_url)
    try:
        [opened] = Services.build(database.uow, hasher=Argon2idHasher()).team.sign_in("admin@demo.example", password)
    finally:
        database.dispose()
    assert (opened.workspace, opened.member.role) == ("Demo", "admin")


def test_demo_does_nothing_when_an_account_exists(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], create_account: NewAccount, open_services: OpenServices
) -> None:
    """An existing database keeps its accounts and no key is printed."""
    create_account("Acme")
    result = run_cli("serve", "--demo")
    assert "API key" not in result.stdout
    assert [a.name for a in open_services().accounts.list()] == ["Acme"]


def test_an_unknown_log_level_is_a_one_line_error(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], one_line_error: OneLineError
) -> None:
    """ENGAGE_LOG_LEVEL is checked before anything starts."""
    line = one_line_error(run_cli("serve", env={"ENGAGE_LOG_LEVEL": "loud"}))
    assert "ENGAGE_LOG_LEVEL" in line
    assert uvicorn_calls == []


def test_an_unknown_log_format_is_a_one_line_error(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], one_line_error: OneLineError
) -> None:
    """ENGAGE_LOG_FORMAT (text or json) is checked before anything starts."""
    line = one_line_error(run_cli("serve", env={"ENGAGE_LOG_FORMAT": "xml"}))
    assert "ENGAGE_LOG_FORMAT" in line
    assert uvicorn_calls == []


def test_a_malformed_setting_is_a_one_line_error(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], one_line_error: OneLineError
) -> None:
    """A numeric ENGAGE_* variable that is not a number stops serve with its name."""
    line = one_line_error(run_cli("serve", env={"ENGAGE_WORKER_CONCURRENCY": "many"}))
    assert "ENGAGE_WORKER_CONCURRENCY" in line


def test_the_public_address_is_where_the_server_listens(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ENGAGE_APP_URL, links and media URLs name the host and port served (loopback for a wildcard)."""
    monkeypatch.setenv("ENGAGE_APP_URL", "")
    monkeypatch.delenv("ENGAGE_APP_URL")
    run_cli("serve", "--host", "0.0.0.0", "--port", "8123", "--workers", "2")

    assert uvicorn_calls[0]["environ"]["ENGAGE_APP_URL"] == "http://127.0.0.1:8123"


def test_a_given_public_address_is_kept(
    run_cli: RunCli, uvicorn_calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENGAGE_APP_URL set (a proxy's address) wins over the address served."""
    monkeypatch.setenv("ENGAGE_APP_URL", "https://chat.shop.example")
    run_cli("serve", "--port", "8123", "--workers", "2")

    assert uvicorn_calls[0]["environ"]["ENGAGE_APP_URL"] == "https://chat.shop.example"
