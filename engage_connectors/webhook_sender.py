"""The real `WebhookSender`: HTTPS POST through the SSRF-guarded client.

Only a 2xx answer within the timeout is a success; a redirect, an error status, a timeout, a
refused address or a TLS failure is a failed attempt with the reason recorded. The timeout bounds
the whole exchange (connection, TLS, upload, answer), not each read, so a receiver that drips its
answer cannot hold a worker past it. The response body is read only up to the excerpt limit, and
asked for and read without content coding, so a hostile receiver can make us buffer neither
gigabytes nor a decompression bomb. `send` never raises: every failure is an `Outcome`.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx

from engage_connectors.guarded_http import deadline, guarded_client
from engage_connectors.ssrf import AddressPolicy, BlockedAddress
from engage_core.webhooks import RESPONSE_EXCERPT_LIMIT, RESPONSE_TIMEOUT_SECONDS, Outcome


class HttpWebhookSender:
    def __init__(self, policy: AddressPolicy, *, timeout: float = RESPONSE_TIMEOUT_SECONDS) -> None:
        self._timeout = timeout
        self._client = guarded_client(policy, timeout=timeout)

    def send(self, url: str, headers: Mapping[str, str], body: bytes) -> Outcome:
        request_headers = {**headers, "Accept-Encoding": "identity"}
        try:
            with (
                deadline(self._timeout),
                self._client.stream("POST", url, headers=request_headers, content=body) as response,
            ):
                excerpt = _read_excerpt(response)
                return Outcome(response.status_code, excerpt, None)
        except BlockedAddress as exc:
            return Outcome(None, None, str(exc))
        except httpx.TimeoutException:
            return Outcome(None, None, "The receiver did not answer in time.")
        except Exception as exc:  # the port promises never to raise: a bad URL or TLS failure is an outcome too
            return Outcome(None, None, _describe(exc))

    def close(self) -> None:
        self._client.close()


def _read_excerpt(response: httpx.Response) -> str:
    """At most `RESPONSE_EXCERPT_LIMIT` bytes of the body as sent (never decompressed)."""
    collected = bytearray()
    for chunk in response.iter_raw():
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
