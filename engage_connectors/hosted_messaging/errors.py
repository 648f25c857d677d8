"""Every way a call to the messaging provider can fail, decided in one place.

The provider answers errors as problem documents: `{"status", "type", "title", "detail"}` with a
`type` such as `errors/invalid_checkpoint_solution`. A 401 is ambiguous there: it is the answer
both to a wrong API key and to a login the network refused, so the `type` tells them apart.

Messages never carry the API key or a request's credentials: they are built from the status, the
problem `type` and the provider's own `detail`, which is safe to store with a failed message.
"""

from __future__ import annotations

from typing import Any

import httpx

DETAIL_MAX = 500

# 401 answers that are about the network's account, not about our API key.
_CHECKPOINT_REJECTED = frozenset({"errors/invalid_checkpoint_solution", "errors/checkpoint_error"})
_CREDENTIALS_REJECTED = frozenset({"errors/invalid_credentials", "errors/expired_credentials"})
_ACCOUNT_SIDE_401 = _CHECKPOINT_REJECTED | _CREDENTIALS_REJECTED | {"errors/disconnected_account"}


class HostedMessagingError(Exception):
    """The provider call did not succeed."""


class ProviderAuthFailed(HostedMessagingError):
    """The provider refused our API key (missing, wrong or revoked): a configuration problem."""


class ProviderRejected(HostedMessagingError):
    """The provider understood the request and refused it; sending it again will not help."""

    def __init__(self, status: int, error_type: str | None, detail: str) -> None:
        self.status = status
        self.error_type = error_type
        self.detail = detail
        label = f"{status} {error_type}" if error_type else str(status)
        super().__init__(f"The messaging provider refused the request ({label}): {detail}")


class CredentialsRejected(ProviderRejected):
    """The network refused the username and password."""


class CheckpointRejected(ProviderRejected):
    """The network refused the 2FA code; the checkpoint stays open for another try."""


class NotFound(ProviderRejected):
    """No such account (or chat): never created, deleted, or a QR attempt that failed."""


class ProviderUnavailable(HostedMessagingError):
    """No usable answer came back; the same request may work later."""


class ProviderUnreachable(ProviderUnavailable):
    """No connection: refused, reset, or the host could not be resolved."""


class ProviderTimeout(ProviderUnavailable):
    """The provider did not answer within the timeout."""


class ProviderServerError(ProviderUnavailable):
    """The provider answered 5xx, 408 or 429: its own trouble, or too many requests."""

    def __init__(self, status: int, detail: str) -> None:
        self.status = status
        self.detail = detail
        super().__init__(f"The messaging provider failed ({status}): {detail}")


class ProviderProtocolError(HostedMessagingError):
    """A successful status with a body we cannot read: the provider's API changed, or a proxy answered."""


def error_for_response(response: httpx.Response) -> HostedMessagingError:
    """The exception for a non-2xx answer (the body must have been read)."""
    status = response.status_code
    problem = _problem(response)
    error_type = _text(problem.get("type"))
    detail = _text(problem.get("detail")) or _text(problem.get("title")) or response.reason_phrase or "no detail"
    detail = detail[:DETAIL_MAX]
    if status in (408, 429) or status >= 500:
        return ProviderServerError(status, detail)
    if status == 401 and error_type not in _ACCOUNT_SIDE_401:
        return ProviderAuthFailed(f"The messaging provider refused the API key (401): {detail}")
    if error_type in _CHECKPOINT_REJECTED:
        return CheckpointRejected(status, error_type, detail)
    if error_type in _CREDENTIALS_REJECTED:
        return CredentialsRejected(status, error_type, detail)
    if status == 404:
        return NotFound(status, error_type, detail)
    return ProviderRejected(status, error_type, detail)


def error_for_transport(exc: httpx.TransportError) -> ProviderUnavailable:
    """The exception for a request that got no answer at all."""
    if isinstance(exc, httpx.TimeoutException):
        return ProviderTimeout("The messaging provider did not answer in time.")
    return ProviderUnreachable(f"The messaging provider could not be reached ({type(exc).__name__}).")


def _problem(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _text(value: object) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None
