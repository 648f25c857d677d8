"""Exceptions to responses, once for the whole adapter (SPEC 7).

    EngageError (engage_core.kernel.errors)     HTTPException (starlette)     anything else
     ├── NotFound          404            404 unknown route             500, generic message,
     ├── ValidationFailed  422 + errors   405 wrong method (+ Allow)        logged with its traceback,
     ├── Conflict          409            others: their status              nothing internal leaked
     ├── Forbidden         403 + code
     ├── Unauthenticated   401 (one body for every bad key)
     ├── RateLimited       429 + Retry-After
     └── Unavailable       503 (+ Retry-After when known: a channel provider failed,
                                the server is busy, the storage is full or read-only)

Every body uses the envelope of `envelope.py`.
"""

from __future__ import annotations

import http
import logging
from collections.abc import Callable, Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from engage_core.kernel.errors import (
    Conflict,
    EngageError,
    Forbidden,
    NotFound,
    RateLimited,
    Unauthenticated,
    Unavailable,
    ValidationFailed,
)
from engage_http import envelope
from engage_http.access_log import redact

logger = logging.getLogger("engage.http")

SERVER_ERROR_MESSAGE = "Server error. The failure has been logged."
WWW_AUTHENTICATE = {"WWW-Authenticate": 'Bearer realm="engage"'}

_STATUS: Mapping[type[EngageError], int] = {
    NotFound: 404,
    ValidationFailed: 422,
    Conflict: 409,
    Forbidden: 403,
    Unauthenticated: 401,
    RateLimited: 429,
    Unavailable: 503,
}

_HTTP_MESSAGES: Mapping[int, str] = {
    404: "Not found.",
    405: "Method not allowed.",
    413: "The request body is too large.",
}


def status_of(exc: EngageError) -> int:
    """The status of a domain error; 400 for an EngageError of no known kind."""
    for cls, status in _STATUS.items():
        if isinstance(exc, cls):
            return status
    return 400


def engage_error_response(exc: EngageError) -> Response:
    status = status_of(exc)
    if isinstance(exc, ValidationFailed):
        return envelope.error(status, exc.message, errors=exc.errors)
    if isinstance(exc, Forbidden):
        return envelope.error(status, exc.message, code=exc.code)
    if isinstance(exc, Unauthenticated):
        return envelope.error(status, exc.message, headers=WWW_AUTHENTICATE)
    if isinstance(exc, RateLimited):
        return envelope.error(status, exc.message, headers={"Retry-After": str(exc.retry_after)})
    if isinstance(exc, Unavailable) and exc.retry_after is not None:
        return envelope.error(status, exc.message, headers={"Retry-After": str(exc.retry_after)})
    return envelope.error(status, exc.message)


def server_error_response() -> Response:
    return envelope.error(500, SERVER_ERROR_MESSAGE)


async def handle_engage_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, EngageError)
    return engage_error_response(exc)


def http_message(status: int) -> str:
    """The message of an HTTP exception's status."""
    return _HTTP_MESSAGES.get(status) or _phrase(status)


async def handle_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code in (204, 304):
        return Response(status_code=exc.status_code, headers=exc.headers)
    return envelope.error(exc.status_code, http_message(exc.status_code), headers=exc.headers)


async def handle_server_error(request: Request, exc: Exception) -> Response:
    """Last resort for errors raised outside a route (a route logs and answers its own)."""
    return server_error_response()


StorageErrors = Callable[[BaseException], EngageError | None]
"""The storage adapter's reading of an unexpected exception: the domain error it stands for (a full or
read-only database is `Unavailable`), or None (a 500)."""


def log_storage_error(request: Request, exc: BaseException) -> None:
    """One line, no traceback: the state of the database, not a bug."""
    logger.warning("Storage unavailable on %s %s: %s", request.method, redact(request.url.path), _first_line(exc))


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def log_unexpected(request: Request, exc: BaseException) -> None:
    logger.error("Unhandled error on %s %s", request.method, redact(request.url.path), exc_info=exc)


def _phrase(status: int) -> str:
    try:
        return http.HTTPStatus(status).phrase + "."
    except ValueError:
        return "Request failed."


EXCEPTION_HANDLERS: Mapping[Any, Any] = {
    EngageError: handle_engage_error,
    HTTPException: handle_http_exception,
    Exception: handle_server_error,
}
