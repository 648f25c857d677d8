"""Shared pieces of the benchmarks: free ports, server processes, and wrk runs on loopback.

Every benchmark reports a ratio against a baseline measured in the same run, on the same machine,
with the same load generator settings, so the numbers travel between machines.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
ENGAGE = str(Path(PYTHON).with_name("engage"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_up(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1.0)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise RuntimeError(f"server at {url} did not start within {timeout} s")


SERVER_ENV: Mapping[str, str] = {"ENGAGE_RATE_LIMIT": "1000000000"}
"""One key makes every request of a run: a limit no run reaches keeps the limiter's cost measured
without its 429s."""


@contextlib.contextmanager
def process(args: list[str], env: Mapping[str, str] | None = None) -> Iterator[subprocess.Popen[bytes]]:
    """Run a server process for the duration of the block; always terminate it."""
    proc = subprocess.Popen(args, env={**os.environ, **SERVER_ENV, **(env or {})}, cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def cpu_seconds(pid: int) -> float | None:
    """CPU time (user + system) the process has used so far, or None where /proc is unavailable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def engage_server(url: str) -> Iterator[tuple[int, str]]:
    """`engage serve` on the database `url` (one worker, no delivery worker, no access log), with
    `SERVER_ENV`: its process id and the API's base URL, once it answers."""
    port = free_port()
    serve = [ENGAGE, "--database-url", url, "serve", "--port", str(port), "--workers", "1"]
    with process([*serve, "--no-worker", "--no-access-log"]) as proc:
        base = f"http://127.0.0.1:{port}/api/v1"
        wait_until_up(base + "/openapi.json")
        yield proc.pid, base


@contextlib.contextmanager
def bare_server(get_body: object, post_body: object, pids: list[int] | None = None) -> Iterator[str]:
    """The bare Starlette baseline (one uvicorn worker) serving `get_body`/`post_body` at /bench.

    Its process id is appended to `pids` when given."""
    with tempfile.TemporaryDirectory() as tmp:
        fixtures = Path(tmp) / "fixtures.json"
        fixtures.write_text(json.dumps({"get": get_body, "post": post_body}))
        port = free_port()
        args = [PYTHON, "-m", "uvicorn", "bench.bare_app:app_factory", "--factory", "--port", str(port)]
        with process([*args, "--log-level", "warning", "--no-access-log"], {"BENCH_FIXTURES": str(fixtures)}) as proc:
            if pids is not None:
                pids.append(proc.pid)
            base = f"http://127.0.0.1:{port}"
            wait_until_up(base + "/bench")
            yield base


def wrk(
    url: str, *, seconds: int, connections: int, headers: Mapping[str, str] | None = None, body: str | None = None
) -> float:
    """Requests per second that wrk reached (non-2xx responses make the run fail)."""
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is required: apt-get install wrk")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        lua_headers = "".join(f'wrk.headers["{k}"] = "{v}"\n' for k, v in (headers or {}).items())
        if body is not None:
            script.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
            script.write(f"wrk.body = {json.dumps(body)}\n")
        script.write(lua_headers)
        script.write(
            "done = function(summary, latency, requests)\n"
            '  io.write(string.format("NON2XX %d\\n", summary.errors.status))\n'
            "end\n"
        )
    try:
        out = subprocess.run(
            ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", script.name, url],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        os.unlink(script.name)
    non_2xx = int(re.search(r"NON2XX (\d+)", out).group(1))  # type: ignore[union-attr]
    if non_2xx:
        raise RuntimeError(f"{non_2xx} non-2xx responses from {url}:\n{out}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]


Run = tuple[int, Callable[[int], float]]
"""A server's process id, and a function that loads it for N seconds and returns requests per second."""


def measure_rounds(
    runs: Mapping[str, Run], *, rounds: int, seconds: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Warm every run up, then measure them back to back in each round, so a disturbance of the
    machine hits both sides of a ratio alike. Returns requests per second and, where /proc exists,
    the server's CPU µs per request, per run and round."""
    for _, run in runs.values():
        run(2)
    rps: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, (pid, run) in runs.items():
            before = cpu_seconds(pid)
            rate = run(seconds)
            after = cpu_seconds(pid)
            rps[name].append(rate)
            if before is not None and after is not None:
                cpu[name].append(round((after - before) / (rate * seconds) * 1e6, 1))
    return rps, cpu


def print_cpu_per_request(cpu: Mapping[str, list[float]]) -> None:
    """The servers' median CPU µs per request, where /proc gave them."""
    if all(cpu.values()):
        medians = {name: statistics.median(values) for name, values in cpu.items()}
        print("Server CPU per request (median, µs): " + ", ".join(f"{n} {v:.0f}" for n, v in medians.items()))
