"""Media through a real `engage serve` on loopback: a video uploaded over HTTP is fetched back at its
public URL whole and by ranges, and a 60 MB upload is refused while it streams without the
server's memory growing by anything like its size."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from media_files import image, video

pytestmark = pytest.mark.e2e

BOUNDARY = "e2e-media-boundary"
PIECE = bytes(range(256)) * 256  # 64 KiB
MEMORY_SLACK = 16 * 1024 * 1024
"""How much the server's peak memory may grow during a 60 MB upload: a few buffers, not the file."""


@pytest.fixture(scope="module")
def server(start_server: Callable[..., Any]) -> Any:
    return start_server("--no-worker")


@pytest.fixture(scope="module")
def client(server: Any) -> Iterator[httpx.Client]:
    headers = {"X-Api-Key": server.create_account()}
    with httpx.Client(base_url=server.base_url, headers=headers, timeout=60.0) as http:
        yield http


def _served_path(media: dict[str, Any]) -> str:
    """The media's URL on this server (the URL names `ENGAGE_APP_URL`, whose port is not this one)."""
    return urlsplit(media["url"]).path


def _peak_memory(pid: int) -> int:
    """The process's peak resident memory so far (`VmHWM`), in bytes."""
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM in /proc status")


def _form(size: int, declared: bool) -> tuple[Iterator[bytes], dict[str, str]]:
    """A form with one PNG-looking file part of `size` bytes, streamed in 64 KiB pieces; with `declared`,
    its Content-Length is sent (else it goes chunked)."""
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\n'
        "Content-Type: image/png\r\n\r\n"
    ).encode() + b"\x89PNG\r\n\x1a\n"
    tail = f"\r\n--{BOUNDARY}--\r\n".encode()
    body_size = len(head) + size + len(tail)

    def pieces() -> Iterator[bytes]:
        yield head
        left = size
        while left > 0:
            piece = PIECE[: min(left, len(PIECE))]
            left -= len(piece)
            yield piece
        yield tail

    headers = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
    if declared:
        headers["Content-Length"] = str(body_size)
    return pieces(), headers


def test_a_video_is_served_whole_and_by_ranges(client: httpx.Client) -> None:
    """The upload's URL serves it as `video/mp4`; `Range: bytes=0-99` answers 206 with its first 100 bytes."""
    data = video("mp4", (96, 64), 2.0)
    uploaded = client.post("/api/v1/media", files={"file": ("clip.mp4", data)})
    assert uploaded.status_code == 201, uploaded.text
    path = _served_path(uploaded.json()["data"])

    whole = httpx.get(client.base_url.join(path))
    first = httpx.get(client.base_url.join(path), headers={"Range": "bytes=0-99"})
    last = httpx.get(client.base_url.join(path), headers={"Range": "bytes=-10"})

    assert (whole.status_code, whole.content, whole.headers["content-type"]) == (200, data, "video/mp4")
    assert (first.status_code, first.content, first.headers["content-range"]) == (
        206,
        data[:100],
        f"bytes 0-99/{len(data)}",
    )
    assert (last.status_code, last.content) == (206, data[-10:])


def test_an_unknown_file_is_a_404(client: httpx.Client) -> None:
    """A URL under `/files/` that names no stored object answers 404."""
    assert httpx.get(client.base_url.join("/files/media/ab/abNotAFile.png")).status_code == 404


def test_a_60_mb_upload_is_refused_while_it_streams(server: Any, client: httpx.Client) -> None:
    """Sent chunked (no length to refuse it by), the file is a 422 once it passes 50 MB; the server's peak
    memory grows by far less than the upload, and nothing is kept."""
    warm_up = client.post("/api/v1/media", files={"file": ("warm.png", image("png"))})  # load every code path first
    assert warm_up.status_code == 201
    kept = (client.get("/api/v1/media").json()["meta"]["total"], _stored_files(server))
    before = _peak_memory(server.process.pid)
    pieces, headers = _form(60 * 1024 * 1024, declared=False)

    response = client.post("/api/v1/media", content=pieces, headers=headers)

    grown = _peak_memory(server.process.pid) - before
    print(f"peak memory grew by {grown / 1e6:.2f} MB during a refused 60 MB upload")
    assert (response.status_code, response.json()["errors"]) == (
        422,
        {"file": ["The file may not be larger than 50 MB."]},
    )
    assert grown < MEMORY_SLACK, f"peak memory grew by {grown / 1e6:.1f} MB"
    assert (client.get("/api/v1/media").json()["meta"]["total"], _stored_files(server)) == kept


def _stored_files(server: Any) -> int:
    """How many files the local store of the server's database holds."""
    root = server.database_url.removeprefix("sqlite:///") + ".media"
    return sum(len(names) for _, _, names in os.walk(root))


def test_a_declared_60_mb_body_is_a_413_before_it_is_read(client: httpx.Client) -> None:
    """A Content-Length above the form's limit is refused at once."""
    pieces, headers = _form(60 * 1024 * 1024, declared=True)

    try:
        response = client.post("/api/v1/media", content=pieces, headers=headers)
    except httpx.HTTPError:  # the server may close the connection while the client still sends
        return
    assert response.status_code == 413
