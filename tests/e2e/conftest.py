"""Factories for end-to-end tests: real `engage` processes on loopback, always stopped afterwards."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import httpx
import pytest

READY_TIMEOUT = 60.0
"""Seconds a server gets to answer its first request (it migrates a fresh database first)."""

STOP_TIMEOUT = 10.0


def engage_command() -> list[str]:
    """The installed `engage` console script beside this Python, else `python -m engage_cli`."""
    script = Path(sys.executable).with_name("engage")
    return [str(script)] if script.exists() else [sys.executable, "-m", "engage_cli"]


def free_port() -> int:
    """A TCP port that nothing on 127.0.0.1 listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@attrs.frozen
class Server:
    """A running `engage serve` and the database it uses."""

    base_url: str
    database_url: str
    process: subprocess.Popen[bytes]
    log: Path

    def engage(self, *args: str) -> str:
        """Run another `engage` command against the same database; its stdout."""
        completed = subprocess.run(
            [*engage_command(), "--database-url", self.database_url, *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr
        return completed.stdout

    def create_account(self, name: str = "E2E") -> str:
        """A new account's API key, via `engage accounts create --json`."""
        api_key: str = json.loads(self.engage("accounts", "create", "--name", name, "--json"))["api_key"]
        return api_key


def _wait_until_ready(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"engage serve exited with {process.returncode}:\n{log.read_text()}")
        try:
            httpx.get(f"{base_url}/api/v1/contacts", timeout=2.0)
            return  # any HTTP answer (401 without a key) means the app is serving
        except httpx.TransportError:
            time.sleep(0.1)
    pytest.fail(f"engage serve did not answer within {READY_TIMEOUT:.0f}s:\n{log.read_text()}")


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's own process group (uvicorn and any workers it spawned), then SIGKILL."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT)


@pytest.fixture(scope="module")
def start_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Server]]:
    """`start_server("--workers", "2")` starts `engage serve` on a free port with a fresh SQLite file."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*serve_args: str) -> Server:
        directory = tmp_path_factory.mktemp("engage-e2e")
        database_url = f"sqlite:///{directory / 'engage.db'}"
        port = free_port()
        log = directory / "server.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")}
        with log.open("wb") as out:
            process = subprocess.Popen(
                [
                    *engage_command(),
                    "--database-url",
                    database_url,
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    *serve_args,
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        started.append(process)
        base_url = f"http://127.0.0.1:{port}"
        _wait_until_ready(process, base_url, log)
        return Server(base_url=base_url, database_url=database_url, process=process, log=log)

    try:
        yield start
    finally:
        for process in started:
            _stop(process)
