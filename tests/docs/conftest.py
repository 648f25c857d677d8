"""The servers the docs' examples run against: one `engage serve` shared by every page of docs/
(each page in a workspace of its own), and one on a fresh database as `make run` starts it, for the
README's tour, whose ids are those of a fresh clone."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from databases import PostgresDatabases, postgres_server_url
from engage_process import engage_command, free_port, stop, wait_until_ready
from runner import Served, Workspace

from engage_cli.main import cli

WEBHOOK_ALLOWED_HOSTS = "127.0.0.1"
"""As `make run` sets it: the README's tour subscribes a receiver on this machine."""


def _serve(directory: Path, *serve_args: str) -> tuple[Served, subprocess.Popen[bytes], Path]:
    database_url = f"sqlite:///{directory / 'engage.db'}"
    port = free_port()
    log = directory / "server.log"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")}
    environment["ENGAGE_WEBHOOK_ALLOWED_HOSTS"] = WEBHOOK_ALLOWED_HOSTS
    with log.open("wb") as out:
        process = subprocess.Popen(
            [
                *engage_command(),
                "--database-url",
                database_url,
                "serve",
                "--port",
                str(port),
                "--no-access-log",
                *serve_args,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=environment,
            start_new_session=True,
        )
    served = Served(f"http://127.0.0.1:{port}", database_url)
    wait_until_ready(process, served.base_url, log)
    return served, process, log


@pytest.fixture(scope="session")
def docs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One `engage serve` for every page of docs/."""
    served, process, _ = _serve(tmp_path_factory.mktemp("docs-server"))
    try:
        yield served
    finally:
        stop(process)


@pytest.fixture(scope="session")
def readme_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, str]]:
    """`engage serve --demo` on a new database, as `make run` starts it; and the key it printed."""
    served, process, log = _serve(tmp_path_factory.mktemp("readme-server"), "--demo")
    try:
        found = re.search(r"\beng_\w{40}\b", log.read_text())
        assert found, log.read_text()
        yield served, found[0]
    finally:
        stop(process)


@pytest.fixture
def make_workspace(docs_server: Served) -> Callable[[str], Workspace]:
    """A new workspace (and a partner) on the shared server, through the engage command."""

    def make(name: str) -> Workspace:
        def engage(*args: str) -> dict[str, object]:
            result = CliRunner().invoke(
                cli, ["--database-url", docs_server.database_url, *args], catch_exceptions=False
            )
            assert result.exit_code == 0, result.output
            created: dict[str, object] = json.loads(result.stdout)
            return created

        account = engage("accounts", "create", "--name", name, "--json")
        partner = engage(
            "partners",
            "create",
            "--company",
            f"{name} partner",
            "--email",
            f"{name.lower().replace('.', '-')}@partner.example",
            "--json",
        )
        return Workspace(str(account["api_key"]), int(str(account["account_id"])), str(partner["partner_key"]))

    return make


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[Callable[[], str] | None]:
    """A factory of new empty PostgreSQL databases, or None without ENGAGE_TEST_POSTGRES_URL."""
    server = postgres_server_url()
    if server is None:
        yield None
        return
    databases = PostgresDatabases(server)
    try:
        yield lambda: databases.create(migrated=False)
    finally:
        databases.close()
