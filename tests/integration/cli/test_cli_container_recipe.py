"""The container recipe (Dockerfile, compose.yaml) agrees with the code: its commands are commands
the CLI takes, its variables are settings engage reads, its health check is a route. Nothing is
built or pulled: the files are read."""

from __future__ import annotations

import inspect
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from starlette.routing import Route

import engage_core.settings
from engage_cli.main import cli
from engage_core.services import Services
from engage_core.testing import InMemoryUnitOfWorkFactory
from engage_http import create_app

ROOT = Path(__file__).resolve().parents[3]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
SETTINGS = set(re.findall(r"ENGAGE_[A-Z_]+[A-Z]", inspect.getsource(engage_core.settings)))


def instructions(name: str) -> list[str]:
    """The arguments of every `name` instruction of the Dockerfile (continuation lines joined)."""
    joined = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    return [line.split(None, 1)[1] for line in joined.splitlines() if line.startswith(name + " ")]


def final_stage() -> str:
    return DOCKERFILE.rsplit("\nFROM ", 1)[1]


def engage_commands() -> Iterator[tuple[str, list[str]]]:
    """Every `engage ...` command of the recipe, by where it is."""
    yield "Dockerfile CMD", json.loads(instructions("CMD")[-1])
    for name, service in COMPOSE["services"].items():
        command = service.get("command")
        if command and command[0] == "engage":
            yield f"compose {name}", command


def engage_variables() -> Iterator[str]:
    """Every ENGAGE_* variable the recipe sets."""
    for env in instructions("ENV"):
        yield from re.findall(r"(ENGAGE_[A-Z_]+)=", env)
    yield from COMPOSE["x-engage"]["environment"]


@pytest.mark.parametrize(("where", "command"), list(engage_commands()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_is_one_the_cli_takes(where: str, command: list[str]) -> None:
    """Each `engage` command parses: its command path and options exist (`--help` after them parses
    them all without running anything)."""
    result = CliRunner().invoke(cli, [*command[1:], "--help"])

    assert result.exit_code == 0, f"{where}: {result.output}"


def test_every_variable_is_a_setting() -> None:
    """The recipe sets only ENGAGE_* variables that engage reads."""
    assert sorted(set(engage_variables()) - SETTINGS) == []


def test_the_image_runs_as_a_user_from_a_second_stage() -> None:
    """The image is multi-stage and its final stage drops root before it runs anything of engage."""
    assert len(instructions("FROM")) >= 2
    users = re.findall(r"^USER (\S+)", final_stage(), re.M)
    assert users and users[-1] not in ("root", "0")


def test_the_image_copies_every_package_the_distribution_ships() -> None:
    """Each import package of pyproject.toml is copied into the build stage."""
    listing = subprocess.run(["git", "ls-files", "*/__init__.py"], cwd=ROOT, capture_output=True, text=True, check=True)
    packages = {path.split("/")[0] for path in listing.stdout.split() if path.startswith("engage")}
    copied = {source.split()[0] for source in instructions("COPY") if not source.startswith("--from")}

    assert packages <= copied


def test_the_health_check_asks_a_route_of_the_app() -> None:
    """The HEALTHCHECK's URL path is served by the app, without a key."""
    (check,) = instructions("HEALTHCHECK")
    path = re.search(r"http://127\.0\.0\.1:8000(/[a-z]+)", check)
    assert path is not None
    app = create_app(Services.build(InMemoryUnitOfWorkFactory()))

    assert path.group(1) in {route.path for route in app.routes if isinstance(route, Route)}


def test_migrations_run_once_before_the_api_and_the_worker() -> None:
    """A one-off `migrate` service runs `engage db upgrade`; the API and the worker wait for it to succeed."""
    services = COMPOSE["services"]

    assert services["migrate"]["command"] == ["engage", "db", "upgrade"]
    for name in ("api", "worker"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"


def test_the_api_leaves_deliveries_to_the_worker() -> None:
    """The API processes run no delivery worker; the worker service does the deliveries."""
    services = COMPOSE["services"]

    assert "--no-worker" in services["api"]["command"]
    assert services["worker"]["command"][:2] == ["engage", "worker"]
