"""Forms read as they arrive (`engage_http.form_stream`): parts in order, file bytes piece by piece
however the body is cut, text parts bounded, malformed forms refused; and the body fetched from the
event loop in batches, bounded, ended by a client that leaves or stays silent."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from engage_core.kernel.errors import ValidationFailed
from engage_http.form_stream import BodyStream, StreamedForm

BOUNDARY = "stream-test"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"


def body(*parts: tuple[str, str | None, bytes]) -> bytes:
    out = b""
    for name, filename, data in parts:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        out += f"--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data + b"\r\n"
    return out + f"--{BOUNDARY}--\r\n".encode()


def cut(data: bytes, size: int) -> list[bytes]:
    return [data[i : i + size] for i in range(0, len(data), size)]


@pytest.mark.parametrize("size", [1, 7, 64, 100_000])
def test_parts_come_in_order_whatever_the_pieces(size: int) -> None:
    """A text part and a file part read back exactly, with the file's name, however the body arrives."""
    payload = bytes(range(256)) * 40
    form = StreamedForm(CONTENT_TYPE, cut(body(("name", None, "Café".encode()), ("file", "a.png", payload)), size))

    read = []
    for part in form.parts():
        read.append((part.name, part.filename, part.text() if part.name == "name" else b"".join(part.chunks())))

    assert read == [("name", None, "Café"), ("file", "a.png", payload)]


def test_a_part_left_unread_is_skipped() -> None:
    """Asking for the next part skips what the handler did not read of the previous one."""
    form = StreamedForm(CONTENT_TYPE, [body(("file", "a.png", b"x" * 1000), ("name", None, b"Logo"))])

    names = [part.name for part in form.parts()]

    assert names == ["file", "name"]


def test_a_text_part_past_its_limit_is_refused() -> None:
    """`text(limit)` refuses a longer part with a 422 on its field."""
    part = next(StreamedForm(CONTENT_TYPE, [body(("name", None, b"x" * 11))]).parts())

    with pytest.raises(ValidationFailed) as refused:
        part.text(10)
    assert list(refused.value.errors) == ["name"]


@pytest.mark.parametrize(
    ("content_type", "data"),
    [
        (CONTENT_TYPE, b"not a form at all"),
        (CONTENT_TYPE, body(("file", "a.png", b"abc"))[:-20]),  # cut before its end
        ("multipart/form-data", body(("name", None, b"x"))),  # no boundary
    ],
)
def test_a_malformed_form_is_a_422(content_type: str, data: bytes) -> None:
    """Garbage, a form cut short, or no boundary: a 422 on the body."""
    with pytest.raises(ValidationFailed):
        list(StreamedForm(content_type, [data]).parts())


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """An event loop running in a thread of its own, as the server's is for a worker thread."""
    running = asyncio.new_event_loop()
    thread = threading.Thread(target=running.run_forever, daemon=True)
    thread.start()
    yield running
    running.call_soon_threadsafe(running.stop)
    thread.join()
    running.close()


def receiver(*messages: dict[str, Any]) -> Callable[[], Awaitable[dict[str, Any]]]:
    queue = list(messages)

    async def receive() -> dict[str, Any]:
        return queue.pop(0)

    return receive


def test_the_body_arrives_in_batches(loop: asyncio.AbstractEventLoop) -> None:
    """Every piece comes through, in order, several per hop."""
    messages = [{"type": "http.request", "body": bytes([n]) * 10, "more_body": n < 4} for n in range(5)]

    pieces = list(BodyStream(receiver(*messages), loop, limit=1000))

    assert pieces == [bytes([n]) * 10 for n in range(5)]


def test_a_body_past_the_limit_is_a_413(loop: asyncio.AbstractEventLoop) -> None:
    """The piece that passes the limit raises a 413."""
    messages = [{"type": "http.request", "body": b"x" * 6, "more_body": True}] * 2

    with pytest.raises(HTTPException) as refused:
        list(BodyStream(receiver(*messages), loop, limit=10))
    assert refused.value.status_code == 413


def test_a_client_that_goes_away_ends_the_stream(loop: asyncio.AbstractEventLoop) -> None:
    """A disconnect mid-body raises ClientDisconnect."""
    messages = [{"type": "http.request", "body": b"x", "more_body": True}, {"type": "http.disconnect"}]

    with pytest.raises(ClientDisconnect):
        list(BodyStream(receiver(*messages), loop, limit=10))


def test_a_silent_client_is_a_408(loop: asyncio.AbstractEventLoop) -> None:
    """A client that sends nothing for the timeout gets a 408."""

    async def never() -> dict[str, Any]:
        await asyncio.Event().wait()
        raise AssertionError

    with pytest.raises(HTTPException) as refused:
        list(BodyStream(never, loop, limit=10, timeout=0.05))
    assert refused.value.status_code == 408
