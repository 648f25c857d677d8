"""A fast webhook receiver for the delivery benchmark: a bare ASGI app that reads the body and answers 200.

Run under uvicorn with TLS: `uvicorn bench.webhook_receiver:app --ssl-keyfile KEY --ssl-certfile CERT`.
"""

from __future__ import annotations

from typing import Any

_HEADERS = [(b"content-type", b"text/plain"), (b"content-length", b"2")]


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": _HEADERS})
    await send({"type": "http.response.body", "body": b"ok"})
