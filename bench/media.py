"""Benchmark: media upload throughput of `engage serve`, next to a plain Starlette streaming endpoint.

    .venv/bin/python -m bench.media [--size-mb 20] [--uploads 8]

Both servers run on loopback, one uvicorn worker each, on this machine:

- the baseline, `bare_upload_app` below: a Starlette route that reads the request body as it
  arrives (`request.stream()`) and writes it to a file, then answers 201: the least an upload
  endpoint that keeps the file can do;
- `engage serve` on a new SQLite database with the local media store: `POST /api/v1/media`, which
  authenticates, parses the form as it arrives, streams the file part to the store, has Pillow read
  the image's header, and adds the row.

The file is a PNG of random pixels of about `--size-mb` MB (incompressible, a real image). Each
upload is sent by httpx from memory in 64 KiB pieces; the rate is the file's size over the time
from the first byte sent to the answer. Prints the median MB/s of each and engage's share of the
baseline's.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bench.harness import ENGAGE, PYTHON, free_port, process, wait_until_up

BOUNDARY = "bench-media-boundary"
PIECE = 64 * 1024


def bare_upload_app() -> Starlette:
    """The baseline: stream the body to a file under `BENCH_UPLOAD_DIR`."""
    directory = Path(os.environ["BENCH_UPLOAD_DIR"])

    async def upload(request: Request) -> JSONResponse:
        size = 0
        with tempfile.NamedTemporaryFile(dir=directory, delete=False) as file:
            async for chunk in request.stream():
                file.write(chunk)
                size += len(chunk)
        return JSONResponse({"size": size}, status_code=201)

    async def ready(request: Request) -> JSONResponse:
        return JSONResponse({})

    return Starlette(routes=[Route("/upload", upload, methods=["POST"]), Route("/ready", ready)])


def random_png(size_mb: int) -> bytes:
    side = int((size_mb * 1024 * 1024 / 3) ** 0.5)
    picture = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    out = io.BytesIO()
    picture.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def form(data: bytes) -> tuple[bytes, bytes]:
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="noise.png"\r\n'
        "Content-Type: image/png\r\n\r\n"
    ).encode()
    return head, f"\r\n--{BOUNDARY}--\r\n".encode()


def pieces(head: bytes, data: bytes, tail: bytes) -> Iterator[bytes]:
    yield head
    for start in range(0, len(data), PIECE):
        yield data[start : start + PIECE]
    yield tail


def timed_uploads(url: str, data: bytes, uploads: int, headers: dict[str, str]) -> list[float]:
    """MB/s of each upload of `data` as a form to `url`."""
    head, tail = form(data)
    length = len(head) + len(data) + len(tail)
    sent = {
        **headers,
        "Content-Type": f"multipart/form-data; boundary={BOUNDARY}",
        "Content-Length": str(length),
    }
    rates: list[float] = []
    with httpx.Client(timeout=120.0) as client:
        for _ in range(uploads):
            started = time.perf_counter()
            response = client.post(url, content=pieces(head, data, tail), headers=sent)
            elapsed = time.perf_counter() - started
            assert response.status_code == 201, response.text[:300]
            rates.append(len(data) / 1e6 / elapsed)
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=int, default=20)
    parser.add_argument("--uploads", type=int, default=8)
    args = parser.parse_args()
    data = random_png(args.size_mb)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        port = free_port()
        bare = [PYTHON, "-m", "uvicorn", "bench.media:bare_upload_app", "--factory", "--port", str(port)]
        with process([*bare, "--log-level", "warning", "--no-access-log"], {"BENCH_UPLOAD_DIR": tmp}):
            wait_until_up(f"http://127.0.0.1:{port}/ready")
            baseline = timed_uploads(f"http://127.0.0.1:{port}/upload", data, args.uploads, {})
        database = f"sqlite:///{directory / 'engage.db'}"
        created = subprocess.run(
            [ENGAGE, "--database-url", database, "accounts", "create", "--name", "Bench", "--json"],
            capture_output=True,
            check=True,
            text=True,
        )
        key = json.loads(created.stdout)["api_key"]
        port = free_port()
        serve = [ENGAGE, "--database-url", database, "serve", "--port", str(port), "--workers", "1"]
        with process([*serve, "--no-worker", "--no-access-log"]):
            base = f"http://127.0.0.1:{port}/api/v1"
            wait_until_up(base + "/openapi.json")
            engage = timed_uploads(base + "/media", data, args.uploads, {"X-Api-Key": key})
    bare_rate, engage_rate = statistics.median(baseline), statistics.median(engage)
    print(f"file: {len(data) / 1e6:.1f} MB PNG, {args.uploads} uploads each")
    print(f"plain Starlette streaming endpoint: {bare_rate:8.1f} MB/s (median)")
    print(f"engage POST /api/v1/media:          {engage_rate:8.1f} MB/s (median), {engage_rate / bare_rate:.0%} of it")


if __name__ == "__main__":
    main()
