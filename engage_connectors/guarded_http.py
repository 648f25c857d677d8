"""An httpx client that can only reach addresses the SSRF guard allows.

The check runs inside the connection itself: our network backend resolves the host, refuses it
if any address is internal, and opens the socket to an address it has just checked, then checks
the socket's peer address once more. There is no gap between the check and the connection for a
DNS rebinding to slip through, and TLS still verifies the certificate against the hostname.
Redirects are never followed. CA certificates come from `SSL_CERT_FILE`/`SSL_CERT_DIR` when set.
"""

from __future__ import annotations

import ipaddress
import os
import ssl
from collections.abc import Iterable

import httpcore
import httpx

from engage_connectors.ssrf import AddressPolicy, BlockedAddress


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
            try:
                stream = super().connect_tcp(str(address), port, timeout, local_address, socket_options)
            except httpcore.ConnectError as exc:
                last_error = exc
                continue
            peer = stream.get_extra_info("socket").getpeername()[0]
            if not self._policy.address_allowed(host, ipaddress.ip_address(peer.split("%", 1)[0])):
                stream.close()
                raise BlockedAddress(f"The connection to {host} reached a refused address.")
            return stream
        raise httpcore.ConnectError(str(last_error or f"could not connect to {host}"))


def ssl_context() -> ssl.SSLContext:
    """Verification against `SSL_CERT_FILE`/`SSL_CERT_DIR` when set, else the system store."""
    cafile = os.environ.get("SSL_CERT_FILE") or None
    capath = os.environ.get("SSL_CERT_DIR") or None
    return ssl.create_default_context(cafile=cafile, capath=capath)


class GuardedTransport(httpx.HTTPTransport):
    """`httpx.HTTPTransport` whose connection pool uses `GuardedBackend`."""

    def __init__(self, policy: AddressPolicy, *, max_connections: int = 100) -> None:
        context = ssl_context()
        super().__init__(verify=context)
        # httpx offers no public hook for the network backend, so the pool is rebuilt with ours.
        self._pool = httpcore.ConnectionPool(
            ssl_context=context,
            max_connections=max_connections,
            max_keepalive_connections=20,
            keepalive_expiry=30.0,
            network_backend=GuardedBackend(policy),
        )


def guarded_client(policy: AddressPolicy, *, timeout: float) -> httpx.Client:
    """A client for user-given URLs: SSRF guard, no redirects, no proxies from the environment."""
    return httpx.Client(
        transport=GuardedTransport(policy),
        timeout=httpx.Timeout(timeout),
        follow_redirects=False,
        trust_env=False,
    )
