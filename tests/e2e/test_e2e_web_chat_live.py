"""Live web chat delivery across two `engage serve` processes on one PostgreSQL (LISTEN/NOTIFY): a
visitor's event stream held by one process receives, without polling, an agent's message written
through the other; a stream reopened with the last event id gets what was written while it was away."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from engage_process import engage_command, free_port, stop, wait_until_ready
from worker_processes import SECRET_KEY

pytestmark = [pytest.mark.e2e, pytest.mark.postgres]

ORIGIN = "https://shop.example"
WAIT_SECONDS = 60.0
QUICK_SECONDS = 10.0
"""Well under the streams' own 15-second look: a message this fast was delivered by a notice."""
STREAM_TIMEOUT = httpx.Timeout(10.0, read=60.0)
"""A read waits past the streams' 15-second keep-alive comments."""


@pytest.fixture
def postgres_url(tmp_path: Path) -> Iterator[str]:
    from databases import POSTGRES_ENV, open_test_databases, postgres_server_url

    if postgres_server_url() is None:
        pytest.skip(f"{POSTGRES_ENV} is not set")
    databases = open_test_databases("postgres", tmp_path)
    url = databases.create()
    yield url
    databases.drop(url)
    databases.close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[[str], str]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(database_url: str) -> str:
        port = free_port()
        log = tmp_path / f"serve-{port}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")} | {"ENGAGE_SECRET_KEY": SECRET_KEY}
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
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        started.append(process)
        base = f"http://127.0.0.1:{port}"
        wait_until_ready(process, base, log)
        return base

    try:
        yield start
    finally:
        for process in started:
            stop(process)


def read_events(base: str, key: str, token: str, last_id: int, out: queue.Queue[Any], stop_at: threading.Event) -> None:
    """Read the visitor's stream into `out` as (id, data) until `stop_at` is set."""
    headers = {"Origin": ORIGIN, "X-Widget-Session": token, "Last-Event-ID": str(last_id)}
    with httpx.stream(
        "GET", f"{base}/widget/{key}/session/stream", headers=headers, timeout=STREAM_TIMEOUT
    ) as response:
        ident = None
        for line in response.iter_lines():
            if stop_at.is_set():
                return
            if line.startswith("id: "):
                ident = int(line[4:])
            elif line.startswith("data: ") and ident is not None:
                out.put((ident, line[6:]))
                ident = None


def test_two_processes_deliver_live(postgres_url: str, serve: Callable[[str], str]) -> None:
    """An agent message through process B reaches a stream on process A at once; a reconnect resumes."""
    subprocess.run(
        [*engage_command(), "--database-url", postgres_url, "db", "upgrade"],
        check=True,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")} | {"ENGAGE_SECRET_KEY": SECRET_KEY},
    )
    a, b = serve(postgres_url), serve(postgres_url)
    created = subprocess.run(
        [*engage_command(), "--database-url", postgres_url, "accounts", "create", "--name", "Live", "--json"],
        check=True,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")} | {"ENGAGE_SECRET_KEY": SECRET_KEY},
    )
    api = httpx.Client(base_url=f"{b}/api/v1", headers={"X-Api-Key": json.loads(created.stdout)["api_key"]})
    key = api.put("/web-chat/widget", json={"allowed_origins": [ORIGIN]}).json()["data"]["widget_key"]
    started = httpx.post(f"{a}/widget/{key}/sessions", json={}, headers={"Origin": ORIGIN}).json()["data"]
    token, sid = started["token"], started["session"]["session_id"]

    events: queue.Queue[Any] = queue.Queue()
    done = threading.Event()
    reader = threading.Thread(target=read_events, args=(a, key, token, 1, events, done), daemon=True)
    reader.start()
    time.sleep(1.0)  # the stream is open and waiting (its first read found nothing after seq 1)

    sent_at = time.monotonic()
    api.post(f"/web-chat/sessions/{sid}/messages", json={"message": "Hello from process B"})
    ident, data = events.get(timeout=WAIT_SECONDS)
    assert ident == 2 and "Hello from process B" in data
    assert time.monotonic() - sent_at < QUICK_SECONDS
    done.set()

    # Written while no stream is open; a stream reopened on B after event 2 gets exactly those.
    api.post(f"/web-chat/sessions/{sid}/messages", json={"message": "While you were away"})
    api.post(f"/web-chat/sessions/{sid}/end")
    again: queue.Queue[Any] = queue.Queue()
    read_events(b, key, token, 2, again, threading.Event())  # the stream of an ended session closes
    got = [again.get_nowait() for _ in range(again.qsize())]
    assert [i for i, _ in got] == [3, 4] and "While you were away" in got[0][1]
