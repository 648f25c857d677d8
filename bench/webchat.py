"""Benchmark: web chat's live connections and message latency, against a real `engage serve`.

    .venv/bin/python -m bench.webchat [--connections 5000] [--sessions 10] [--messages 20]

Starts `engage serve` (SQLite in a temporary directory, one process) and, from this process's event
loop, holds `--connections` idle server-sent event streams open on it (the agents' stream of one
session, `GET /api/v1/web-chat/sessions/{id}/stream`), then reads the server's resident memory:

1. Idle connections: the server's RSS before and after, and MB per connection (the baseline is the
   same server with none open).
2. Latency under that load: `--sessions` visitors each write `--messages` messages through the
   widget's route, one at a time; an agent client holds each session's stream. Reported: p50 and p99
   from the visitor's POST being sent to the agent's stream delivering the message.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.knowledge import percentile

ORIGIN = "https://shop.example"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def start_server(directory: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    database = f"sqlite:///{directory / 'engage.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")}
    engage = [sys.executable, "-m", "engage_cli", "--database-url", database]
    subprocess.run([*engage, "db", "upgrade"], env=env, check=True, capture_output=True)
    created = subprocess.run(
        [*engage, "accounts", "create", "--name", "Bench", "--json"], env=env, check=True, capture_output=True
    )
    api_key = json.loads(created.stdout)["api_key"]
    with socket_port() as port:
        pass
    log = (directory / "serve.log").open("wb")
    process = subprocess.Popen(
        [*engage, "serve", "--host", "127.0.0.1", "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{base}/health", timeout=2)
            break
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    return process, base, api_key


class socket_port:
    def __enter__(self) -> int:
        import socket

        self._s = socket.socket()
        self._s.bind(("127.0.0.1", 0))
        port: int = self._s.getsockname()[1]
        return port

    def __exit__(self, *exc: object) -> None:
        self._s.close()


async def open_stream(host: str, port: int, path: str, api_key: str) -> asyncio.StreamWriter:
    """An idle SSE connection, read up to its first event (so the server holds it)."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nX-Api-Key: {api_key}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    await reader.readuntil(b"event: session")
    return writer


async def idle_connections(base: str, api_key: str, session_id: str, count: int) -> list[asyncio.StreamWriter]:
    host, port = base.removeprefix("http://").split(":")
    path = f"/api/v1/web-chat/sessions/{session_id}/stream"
    writers: list[asyncio.StreamWriter] = []
    for start in range(0, count, 200):  # in batches: the server accepts them at its pace
        batch = [open_stream(host, int(port), path, api_key) for _ in range(min(200, count - start))]
        writers += await asyncio.gather(*batch)
    return writers


async def latency(base: str, api_key: str, key: str, sessions: int, messages: int) -> list[float]:
    headers = {"X-Api-Key": api_key}
    samples: list[float] = []
    async with httpx.AsyncClient(timeout=httpx.Timeout(10, read=60)) as client:
        for _ in range(sessions):
            started = (await client.post(f"{base}/widget/{key}/sessions", json={}, headers={"Origin": ORIGIN})).json()
            token, sid = started["data"]["token"], started["data"]["session"]["session_id"]
            arrived: asyncio.Queue[float] = asyncio.Queue()

            async def agent(sid: str = sid, arrived: asyncio.Queue[float] = arrived) -> None:
                url = f"{base}/api/v1/web-chat/sessions/{sid}/stream?after=1"
                async with client.stream("GET", url, headers=headers) as response:
                    async for line in response.aiter_lines():
                        if line.startswith("data: ") and '"sender_type":"visitor"' in line:
                            await arrived.put(time.perf_counter())

            task = asyncio.create_task(agent())
            await asyncio.sleep(0.3)
            for n in range(messages):
                sent = time.perf_counter()
                await client.post(
                    f"{base}/widget/{key}/session/messages",
                    json={"message": f"Message {n}"},
                    headers={"Origin": ORIGIN, "X-Widget-Session": token},
                )
                samples.append(await asyncio.wait_for(arrived.get(), 60) - sent)
            task.cancel()
    return samples


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as directory:
        process, base, api_key = start_server(Path(directory))
        try:
            api = httpx.Client(base_url=f"{base}/api/v1", headers={"X-Api-Key": api_key})
            key = api.put("/web-chat/widget", json={"allowed_origins": [ORIGIN]}).json()["data"]["widget_key"]
            held = httpx.post(f"{base}/widget/{key}/sessions", json={}, headers={"Origin": ORIGIN}).json()["data"]
            time.sleep(1)
            before = rss_mb(process.pid)
            started = time.perf_counter()
            writers = await idle_connections(base, api_key, held["session"]["session_id"], args.connections)
            opened = time.perf_counter() - started
            await asyncio.sleep(2)
            after = rss_mb(process.pid)
            samples = await latency(base, api_key, key, args.sessions, args.messages)
            print(f"idle connections held: {len(writers)} (opened in {opened:.1f} s)")
            print(f"server RSS: {before:.1f} MB before, {after:.1f} MB after")
            print(f"memory per connection: {(after - before) / len(writers) * 1024:.1f} KB")
            p50, p99 = percentile(samples, 0.5) * 1000, percentile(samples, 0.99) * 1000
            print(f"visitor -> agent stream latency, {len(samples)} messages: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
            for writer in writers:
                writer.close()
        finally:
            process.terminate()
            process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=5000)
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--messages", type=int, default=20)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
