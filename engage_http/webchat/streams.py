"""Server-sent event streams of a session's log, for the visitor's widget and for agents' clients.

Why server-sent events rather than WebSocket: the traffic that must be live flows one way (the
service to the page); what the visitor writes is an ordinary POST with its own status and errors.
SSE is plain HTTP, so it crosses the proxies, load balancers and CORS rules the rest of the API
already crosses, reconnects with `Last-Event-ID` by design, and needs no extra protocol library.

Each message is one event whose `id` is the message's `seq` in its session: a client that reconnects
with `Last-Event-ID: 12` (a header, or `?after=12`) gets every message after the 12th, including
those written while it was away. After the messages of each wake-up comes one `session` event (no
id) with the session's state; a stream of an ended session sends what is left and closes. Comments
(`: keep-alive`) every `POLL_SECONDS` keep idle connections open through proxies.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from engage_core.kernel.clock import format_timestamp
from engage_core.webchat.service import SessionThread
from engage_core.webchat.sessions import WebChatMessage, WebChatSession
from engage_http.envelope import dumps
from engage_http.webchat.live import LiveHub

POLL_SECONDS = 15.0
"""How long a stream waits for a notice before it looks again (and sends a keep-alive comment)."""
BATCH = 200
"""The most messages read at once."""

Reader = Callable[[int], SessionThread]
"""Reads the session and its messages after a `seq`."""


def message_json(message: WebChatMessage) -> dict[str, Any]:
    return {
        "id": message.id,
        "seq": message.seq,
        "sender_type": message.sender_type,
        "message_text": message.message_text,
        "message_type": message.message_type,
        "media_url": message.media_url,
        "created_at": format_timestamp(message.created_at),
    }


def session_json(session: WebChatSession) -> dict[str, Any]:
    """What the visitor sees of their session (no IP, no page)."""
    return {
        "session_id": session.session_id,
        "status": session.status,
        "handled_by": session.handled_by,
        "visitor_name": session.visitor_name,
        "visitor_email": session.visitor_email,
        "visitor_phone": session.visitor_phone,
        "last_seq": session.last_seq,
    }


def resume_point(headers: Mapping[str, str], query: Mapping[str, str]) -> int:
    """The last `seq` the client saw: `Last-Event-ID`, else `?after=`, else 0."""
    for value in (headers.get("last-event-id"), query.get("after")):
        if value and value.strip().isdigit():
            return int(value.strip())
    return 0


def _event(kind: str, data: Mapping[str, Any], ident: int | None = None) -> bytes:
    head = b"" if ident is None else b"id: %d\n" % ident
    return head + b"event: " + kind.encode() + b"\ndata: " + dumps(data) + b"\n\n"


async def events(hub: LiveHub, account_id: int, session_id: str, read: Reader, after: int) -> AsyncIterator[bytes]:
    """The stream: what follows `after`, then whatever comes, until the session ends."""
    last = after
    shown: Mapping[str, Any] | None = None
    yield b"retry: 2000\n\n"
    with hub.subscribe(account_id, session_id) as wake:
        while True:
            wake.clear()  # before reading: a notice during the read wakes the next wait
            thread = await run_in_threadpool(read, last)
            for message in thread.messages:
                yield _event("message", message_json(message), message.seq)
                last = message.seq
            if len(thread.messages) == BATCH:
                continue
            state = session_json(thread.session)
            if state != shown:
                yield _event("session", state)
                shown = state
            if thread.session.status == "ended" and last >= thread.session.last_seq:
                return
            try:
                await asyncio.wait_for(wake.wait(), POLL_SECONDS)
            except TimeoutError:
                yield b": keep-alive\n\n"


def stream_response(body: AsyncIterator[bytes], headers: Mapping[str, str] | None = None) -> StreamingResponse:
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", **(headers or {})},
    )
