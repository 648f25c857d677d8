"""`engage serve` under a service manager: SIGTERM ends it with status 0 whatever the number of
worker processes, and several processes on the sandbox gateway are warned about."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import Any

import pytest

STOP_SECONDS = 120.0
"""How long a graceful shutdown may take on a loaded machine (it takes about a second)."""

SANDBOX_WARNING = "the sandbox channels gateway keeps its state in each process"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_sigterm_ends_serve_with_status_0(start_server: Callable[..., Any], workers: str) -> None:
    """A SIGTERM is a clean stop: the server shuts down and exits 0, with one process or several."""
    server = start_server("--workers", workers, "--no-worker")

    server.process.send_signal(signal.SIGTERM)

    assert server.process.wait(timeout=STOP_SECONDS) == 0, server.log.read_text(errors="replace")


def test_several_processes_on_the_sandbox_gateway_are_warned(start_server: Callable[..., Any]) -> None:
    """`--workers 2` with the sandbox gateway (the default) says the sandbox is per process."""
    server = start_server("--workers", "2", "--no-worker")

    assert SANDBOX_WARNING in server.log.read_text(errors="replace")


def test_one_process_on_the_sandbox_gateway_is_not_warned(start_server: Callable[..., Any]) -> None:
    """One process holds the whole sandbox: no warning."""
    server = start_server("--no-worker")

    assert SANDBOX_WARNING not in server.log.read_text(errors="replace")
