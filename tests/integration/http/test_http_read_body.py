"""`read_body`: a request body from its ASGI messages, however many, within a size limit."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request

from engage_http.routing import read_body


def _request(messages: Sequence[dict[str, Any]], headers: Sequence[tuple[bytes, bytes]] = ()) -> Request:
    """A POST whose body arrives as `messages`, in order."""
    pending = list(messages)

    async def receive() -> dict[str, Any]:
        return pending.pop(0)

    scope = {"type": "http", "method": "POST", "path": "/", "headers": list(headers), "query_string": b""}
    return Request(scope, receive)


def _chunk(body: bytes, *, more: bool) -> dict[str, Any]:
    return {"type": "http.request", "body": body, "more_body": more}


def test_a_body_in_one_message_is_read_whole() -> None:
    """The usual case: one message holds the whole body."""
    assert asyncio.run(read_body(_request([_chunk(b'{"a": 1}', more=False)]))) == b'{"a": 1}'


def test_a_body_in_several_messages_is_joined_in_order() -> None:
    """A streamed body is the concatenation of its messages, empty ones included."""
    messages = [_chunk(b"ab", more=True), _chunk(b"", more=True), _chunk(b"cd", more=False)]

    assert asyncio.run(read_body(_request(messages))) == b"abcd"


def test_a_streamed_body_past_the_limit_is_413() -> None:
    """Without a Content-Length, the body is refused as soon as its messages pass the limit."""
    messages = [_chunk(b"x" * 6, more=True), _chunk(b"x" * 6, more=True)]

    with pytest.raises(HTTPException) as refused:
        asyncio.run(read_body(_request(messages), limit=10))

    assert refused.value.status_code == 413


def test_a_declared_length_past_the_limit_is_413_before_reading() -> None:
    """A Content-Length above the limit is refused without reading a message."""
    request = _request([], headers=[(b"content-length", b"11")])

    with pytest.raises(HTTPException) as refused:
        asyncio.run(read_body(request, limit=10))

    assert refused.value.status_code == 413


def test_a_client_that_disconnects_mid_body_ends_the_read() -> None:
    """A disconnect before the last message is ClientDisconnect, as Starlette's own reading raises."""
    messages = [_chunk(b"ab", more=True), {"type": "http.disconnect"}]

    with pytest.raises(ClientDisconnect):
        asyncio.run(read_body(_request(messages)))
