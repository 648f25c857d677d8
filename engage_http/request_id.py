"""Request ids: one per request, in the response's `X-Request-Id` and in every log line of the request.

`RequestIdMiddleware` (pure ASGI, the app's outermost layer) takes the client's or proxy's
`X-Request-Id` when it is 1 to 128 characters of `A-Z a-z 0-9 - _ . : / + =`, else generates one (32
hex digits), echoes it in the response and sets `REQUEST_ID` while the request runs. The request's
worker thread and write-lane job run in a copy of its context, so they see it too. `RequestIdFilter`
puts it on every log record as `record.request_id` (`-` outside a request); the logging setup of
`engage serve` and `engage worker` adds it to their handlers, a host application embedding engage
adds it to its own.

When a request fails with an unhandled exception the id stays set as the exception leaves, so the
server's `Exception in ASGI application` traceback carries it too (uvicorn runs each request in a task
of its own, whose context ends with it).
"""

from __future__ import annotations

import logging
import os
import re
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = b"x-request-id"
MAX_LENGTH = 128
NONE = "-"

REQUEST_ID: ContextVar[str] = ContextVar("engage_request_id", default=NONE)

_SAFE = re.compile(rb"[A-Za-z0-9\-_.:/+=]{1,128}")


def request_id(headers: list[tuple[bytes, bytes]]) -> bytes:
    """The request's `X-Request-Id` when it is safe to log and echo, else a new id."""
    for name, value in headers:
        if name == HEADER:
            if _SAFE.fullmatch(value):
                return value
            break
    return os.urandom(16).hex().encode()


class RequestIdMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        value = request_id(scope["headers"])
        header = (HEADER, value)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        token = REQUEST_ID.set(value.decode())
        await self.app(scope, receive, send_with_id)  # on an exception the id stays set: see above
        REQUEST_ID.reset(token)


class RequestIdFilter(logging.Filter):
    """Sets `record.request_id` to the current request's id (`-` outside one); drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True
