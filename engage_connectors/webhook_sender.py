"""The real `WebhookSender`: HTTPS POST through the SSRF-guarded connection pool.

Only a 2xx answer within the timeout is a success; a redirect, an error status, a timeout, a
refused address or a TLS failure is a failed attempt with the reason recorded. The timeout bounds
the whole exchange (connection, TLS, upload, answer), not each read, so a receiver that drips its
answer cannot hold a worker past it. The response body is read only up to the excerpt limit, and
asked for and read without content coding, so a hostile receiver can make us buffer neither
gigabytes nor a decompression bomb. `send` never raises: every failure is an `Outcome`.

Requests go straight to httpcore's pool (`guarded_pool`), below `httpx.Client`: a delivery needs
none of what the client adds per request (cookies, auth, redirects, event hooks, URL merging, the
`Request`/`Response` models), and that was a third of the sender's CPU time. URLs are still parsed
by `httpx.URL` (the same validation and IDNA encoding), once per target URL. Keeping no cookies
also means no receiver can set one that later requests would carry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

import attrs
import httpcore
import httpx

from engage_connectors.guarded_http import deadline, guarded_pool
from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_core.webhooks.model import RESPONSE_EXCERPT_LIMIT, RESPONSE_TIMEOUT_SECONDS, Outcome

TARGET_CACHE_SIZE = 1024
"""Parsed target URLs a sender keeps; the cache is emptied when it is full."""

_SET_BY_SENDER = frozenset({"host", "content-length", "accept-encoding", "transfer-encoding"})


@attrs.frozen
class _Target:
    """A parsed target URL: what httpcore needs, and the Host header httpx would send."""

    url: httpcore.URL
    host: bytes


class HttpWebhookSender:
    def __init__(self, policy: AddressPolicy, *, timeout: float = RESPONSE_TIMEOUT_SECONDS) -> None:
        self._timeout = timeout
        self._pool = guarded_pool(policy)
        limits = {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}
        self._extensions = {"timeout": limits}
        self._targets: dict[str, _Target] = {}

    def send(self, url: str, headers: Mapping[str, str], body: bytes) -> Outcome:
        try:
            target = self._target(url)
            request_headers = [(b"Host", target.host)]
            request_headers += [
                (name.encode(), value.encode()) for name, value in headers.items() if name.lower() not in _SET_BY_SENDER
            ]
            request_headers += [(b"Accept-Encoding", b"identity"), (b"Content-Length", str(len(body)).encode())]
            request = httpcore.Request(
                b"POST", target.url, headers=request_headers, content=body, extensions=self._extensions
            )
            with deadline(self._timeout):
                response = self._pool.handle_request(request)
                try:
                    excerpt = _read_excerpt(response)
                finally:
                    response.close()  # an answer not read to its end closes the connection
            return Outcome(response.status, excerpt, None)
        except BlockedAddress as exc:
            return Outcome(None, None, str(exc))
        except httpcore.TimeoutException:
            return Outcome(None, None, "The receiver did not answer in time.")
        except Exception as exc:  # the port promises never to raise: a bad URL or TLS failure is an outcome too
            return Outcome(None, None, _describe(exc))

    def _target(self, url: str) -> _Target:
        """`url` parsed (raises `httpx.InvalidURL`, or `httpx.UnsupportedProtocol` unless http(s))."""
        target = self._targets.get(url)
        if target is None:
            parsed = httpx.URL(url)
            if parsed.scheme not in ("http", "https") or not parsed.host:
                raise httpx.UnsupportedProtocol(f"The URL {parsed.scheme}://... is not an http(s) URL with a host.")
            target = _Target(
                httpcore.URL(scheme=parsed.raw_scheme, host=parsed.raw_host, port=parsed.port, target=parsed.raw_path),
                parsed.netloc,
            )
            if len(self._targets) >= TARGET_CACHE_SIZE:
                self._targets.clear()
            self._targets[url] = target
        return target

    def close(self) -> None:
        self._pool.close()


def _read_excerpt(response: httpcore.Response) -> str:
    """At most `RESPONSE_EXCERPT_LIMIT` bytes of the body as sent (never decompressed)."""
    collected = bytearray()
    for chunk in cast(Iterable[bytes], response.stream):  # a sync pool's (isinstance on it costs more)
        collected.extend(chunk)
        if len(collected) >= RESPONSE_EXCERPT_LIMIT:
            break
    return bytes(collected[:RESPONSE_EXCERPT_LIMIT]).decode("utf-8", errors="replace")


def _describe(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    if isinstance(cause, BlockedAddress):
        return str(cause)
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"[:500]
