"""The real `StorePlatform`: status changes of store-sourced orders pushed to the store connector.

A deployment has one store connector (`ENGAGE_STORE_URL`, `ENGAGE_STORE_TOKEN`): a small service
beside the shops (a WooCommerce or Shopify bridge, say) that serves every workspace, so each call
names the workspace and the order's reference at the store::

    POST {ENGAGE_STORE_URL}/orders/{external_reference}/status
    Authorization: Bearer {ENGAGE_STORE_TOKEN}
    Content-Type: application/json

    {"account_id": 7, "order_id": 42, "external_reference": "1001", "status": "canceled"}

What the answer means (the contract is `docs/stores.md`):

- 2xx: accepted; the local change goes ahead.
- 401 or 403: the connector refused our token: a rejection that points the operator at it.
- any other 4xx: the store refused; the `message` (or `error`) string of its JSON body is the
  rejection's message, which the API client gets in its 422.
- anything else (3xx, 5xx, a timeout, a refused connection, a name that does not resolve, a TLS
  failure): the store could not be reached, a rejection too, so nothing changes locally.

Every httpx failure is mapped here, once, into `StoreRejected`. The timeout bounds the whole
exchange, not each read (`guarded_http.deadline`). The store connector is the operator's own
service, often on a private network, so no address is refused; redirects are not followed and
proxy variables are ignored, as for webhooks. The token is never logged nor put in a message.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from typing import Any
from urllib.parse import urlsplit

import httpx

from engage_connectors.guarded_http import deadline, guarded_client
from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_connectors.url_paths import path_segment
from engage_core.commerce.orders import Order, StoreRejected

logger = logging.getLogger("engage.store")

DEFAULT_TIMEOUT_SECONDS = 10.0
ANSWER_LIMIT = 64 * 1024
"""Bytes of an answer read at most: enough for any error message."""
MESSAGE_LIMIT = 500
"""Characters of the store's message passed on to the API client."""

ANY_ADDRESS = AddressPolicy(allowed_networks=(ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")))
"""The operator names the connector: it may live on loopback or a private network."""


class HttpStorePlatform:
    """Pushes status changes to the store connector at `base_url` with bearer `token`."""

    def __init__(self, base_url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"The store URL must be an http:// or https:// URL, not {base_url!r}.")
        if not token:
            raise ValueError("The store token must not be empty.")
        if timeout <= 0:
            raise ValueError("The store timeout must be greater than 0.")
        self._base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
        self._timeout = timeout
        self._client = guarded_client(ANY_ADDRESS, timeout=timeout)

    def __repr__(self) -> str:
        return f"HttpStorePlatform({self._base_url!r})"  # never the token

    def status_url(self, external_reference: str) -> str:
        """Where the status of the order with this store reference is pushed: always below the
        base URL, the reference one percent-encoded path segment that is never `.` or `..`."""
        return f"{self._base_url}/orders/{path_segment(external_reference)}/status"

    def push_status(self, account_id: int, order: Order, slug: str) -> None:
        if order.external_reference is None:
            raise StoreRejected("The order has no reference at the store, so its status cannot be pushed there.")
        body = {
            "account_id": account_id,
            "order_id": order.id,
            "external_reference": order.external_reference,
            "status": slug,
        }
        try:
            status, answer = self._post(self.status_url(order.external_reference), body)
        except (httpx.HTTPError, BlockedAddress) as exc:
            reason = self._unreachable_reason(exc)
            logger.warning(
                "Store connector unreachable (account %s, order %s, %s): %s",
                account_id,
                order.id,
                slug,
                reason,
            )
            raise StoreRejected(unreachable(reason)) from exc
        if 200 <= status < 300:
            return
        message = rejection_message(status, answer)
        logger.info("Store refused %s of order %s (account %s): HTTP %s", slug, order.id, account_id, status)
        raise StoreRejected(message)

    def close(self) -> None:
        self._client.close()

    def _post(self, url: str, body: dict[str, Any]) -> tuple[int, bytes]:
        """POST `body` as JSON; the status and at most `ANSWER_LIMIT` bytes of the answer."""
        with deadline(self._timeout), self._client.stream("POST", url, json=body, headers=self._headers) as response:
            answer = bytearray()
            for chunk in response.iter_bytes():
                answer.extend(chunk)
                if len(answer) >= ANSWER_LIMIT:
                    break
            return response.status_code, bytes(answer[:ANSWER_LIMIT])

    def _unreachable_reason(self, exc: BaseException) -> str:
        if isinstance(exc, httpx.TimeoutException):
            return f"it did not answer within {self._timeout:g} seconds"
        cause = exc if isinstance(exc, BlockedAddress) else exc.__cause__ or exc.__context__
        if isinstance(cause, BlockedAddress):
            return str(cause).rstrip(".")
        if isinstance(exc, httpx.ConnectError):
            return f"the connection failed: {_one_line(str(exc)) or type(exc).__name__}"
        return f"the exchange failed: {type(exc).__name__}"


class NoStorePlatform:
    """Stands in when no store connector is configured: every push is refused with a message
    saying so, so a status change of a store-sourced order is a 422, never a server error."""

    def push_status(self, account_id: int, order: Order, slug: str) -> None:
        raise StoreRejected(
            "No store connector is configured (ENGAGE_STORE_URL), so the status of an order from a store "
            "platform cannot be changed here; change it in the store."
        )


def unreachable(reason: str) -> str:
    """The rejection message when the store could not be asked at all."""
    return f"The store could not be reached ({reason}); the order was not changed. Try again later."


def rejection_message(status: int, answer: bytes) -> str:
    """The rejection message for a non-2xx answer."""
    if status in (401, 403):
        return (
            f"The store connector refused the credentials of this service (HTTP {status}); the order was not "
            "changed. The operator should check ENGAGE_STORE_TOKEN."
        )
    if 400 <= status < 500:
        return store_message(answer) or f"The store refused the status change (HTTP {status})."
    return unreachable(f"it answered HTTP {status}")


def store_message(answer: bytes) -> str | None:
    """The `message` (else `error`) string of a JSON object answer, on one line and capped; None
    when there is none."""
    try:
        data = json.loads(answer)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    for key in ("message", "error"):
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            text = _one_line(value)
            return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"
    return None


def _one_line(text: str) -> str:
    return " ".join(text.split())
