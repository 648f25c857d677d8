"""An httpx client that can only reach addresses the SSRF guard allows.

The check runs inside the connection itself: our network backend resolves the host, refuses it
if any address is internal, and opens the socket to an address it has just checked, then checks
the socket's peer address once more. There is no gap between the check and the connection for a
DNS rebinding to slip through, and TLS still verifies the certificate against the hostname.
Redirects are never followed. CA certificates come from `SSL_CERT_FILE`/`SSL_CERT_DIR` when set.

httpx timeouts bound each network operation, not the whole exchange: a receiver that drips one
byte just inside the read timeout could hold a request for ever. Inside `deadline(seconds)` every
connect, TLS handshake, read and write of this backend gets only the time left until the deadline,
so the whole request (connection, upload, answer) ends within it.
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
import os
import ssl
import time
from collections.abc import Iterable, Iterator
from typing import Any

import httpcore
import httpx

from engage_connectors.ssrf import AddressPolicy, BlockedAddress

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("engage_http_deadline", default=None)


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every network operation of a guarded client in this block (this thread) ends within `seconds`."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def _budget(timeout: float | None, expired: type[Exception]) -> float | None:
    """`timeout`, cut to the time left before the current deadline; `expired` once it has passed."""
    end = _deadline.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise expired("The request did not finish before its deadline.")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A network stream whose every operation respects the current `deadline`."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _budget(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _budget(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        budget = _budget(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, budget))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class GuardedBackend(httpcore.SyncBackend):
    """httpcore's socket backend, with the SSRF guard applied to every new connection."""

    def __init__(self, policy: AddressPolicy) -> None:
        self._policy = policy

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        last_error: Exception | None = None
        for address in self._policy.resolve(host, port):
            budget = _budget(timeout, httpcore.ConnectTimeout)
            try:
                stream = super().connect_tcp(str(address), port, budget, local_address, socket_options)
            except httpcore.ConnectError as exc:
                last_error = exc
                continue
            peer = stream.get_extra_info("socket").getpeername()[0]
            if not self._policy.address_allowed(host, ipaddress.ip_address(peer.split("%", 1)[0])):
                stream.close()
                raise BlockedAddress(f"The connection to {host} reached a refused address.")
            return _DeadlineStream(stream)
        raise httpcore.ConnectError(str(last_error or f"could not connect to {host}"))


def ssl_context() -> ssl.SSLContext:
    """Verification against `SSL_CERT_FILE`/`SSL_CERT_DIR` when set, else the system store."""
    cafile = os.environ.get("SSL_CERT_FILE") or None
    capath = os.environ.get("SSL_CERT_DIR") or None
    return ssl.create_default_context(cafile=cafile, capath=capath)


def guarded_pool(
    policy: AddressPolicy, *, max_connections: int = 100, context: ssl.SSLContext | None = None
) -> httpcore.ConnectionPool:
    """httpcore's connection pool over `GuardedBackend`: no proxies, no redirects (httpcore follows
    none), TLS verified against `context` (by default `ssl_context()`). An idle connection is kept
    for 30 s and reused by the next request to the same origin; each new one goes through the guard."""
    return httpcore.ConnectionPool(
        ssl_context=context or ssl_context(),
        max_connections=max_connections,
        max_keepalive_connections=20,
        keepalive_expiry=30.0,
        network_backend=GuardedBackend(policy),
    )


class GuardedTransport(httpx.HTTPTransport):
    """`httpx.HTTPTransport` whose connection pool is `guarded_pool`."""

    def __init__(self, policy: AddressPolicy, *, max_connections: int = 100) -> None:
        context = ssl_context()
        super().__init__(verify=context)
        # httpx offers no public hook for the network backend, so the pool is replaced with ours.
        self._pool = guarded_pool(policy, max_connections=max_connections, context=context)


def guarded_client(policy: AddressPolicy, *, timeout: float) -> httpx.Client:
    """A client for user-given URLs: SSRF guard, no redirects, no proxies from the environment."""
    return httpx.Client(
        transport=GuardedTransport(policy),
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
    )
