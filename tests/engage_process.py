"""Real `engage` processes for tests: the command, a free port, waiting until a server answers, and
stopping one with its whole process group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

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


def wait_until_ready(process: subprocess.Popen[bytes], base_url: str, log: Path) -> None:
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


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the server's own process group (uvicorn and any workers it spawned), then SIGKILL."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT)
