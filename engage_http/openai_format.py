"""OpenAI's error format, for the OpenAI-compatible operations (`Dialect.OPENAI`: `/models`,
`/chat/completions`), so that OpenAI's clients read our errors as they read OpenAI's.

    {"error": {"message": "...", "type": "invalid_request_error", "param": "n", "code": null}}

The statuses are the API's own (SPEC 7), but for a validation failure, which is a 400 as at
OpenAI (not a 422): `param` names the first field at fault (null for the body as a whole) and
`message` says every problem. `type` is `invalid_request_error` for a 4xx, `rate_limit_error` for a
429 and `server_error` for a 5xx; `code` is the 403's code (`feature_not_in_plan`, ...) or a fixed
one per status (`invalid_api_key`, `not_found`, `rate_limit_exceeded`, ...), null on a 400. Headers
are those of the API's own errors (`WWW-Authenticate`, `Retry-After`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import attrs
from starlette.exceptions import HTTPException
from starlette.responses import Response

from engage_core.kernel.errors import (
    EngageError,
    Forbidden,
    RateLimited,
    Unauthenticated,
    Unavailable,
    ValidationFailed,
)
from engage_http.converter import BODY, converter
from engage_http.envelope import JSON, dumps
from engage_http.errors import SERVER_ERROR_MESSAGE, WWW_AUTHENTICATE, http_message, status_of

VALIDATION_STATUS = 400

ErrorType = Literal["invalid_request_error", "rate_limit_error", "server_error"]

_CODES: Mapping[int, str] = {
    401: "invalid_api_key",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "request_too_large",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "service_unavailable",
}


@attrs.frozen
class OpenAIErrorDetail:
    """What went wrong: a message, its type, the request field at fault (`param`) and a machine code."""

    message: str
    type: ErrorType
    param: str | None
    code: str | None


@attrs.frozen
class OpenAIError:
    """An error in OpenAI's format."""

    error: OpenAIErrorDetail


def error_type(status: int) -> ErrorType:
    """`type` for a status (see the module notes)."""
    if status == 429:
        return "rate_limit_error"
    return "server_error" if status >= 500 else "invalid_request_error"


def error(
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """An error response in OpenAI's format; `code` defaults to the status's own (none for a 400)."""
    detail = OpenAIErrorDetail(message, error_type(status), param, code or _CODES.get(status))
    body = converter.unstructure(OpenAIError(detail))
    return Response(dumps(body), status_code=status, headers=headers, media_type=JSON)


def engage_error_response(exc: EngageError) -> Response:
    """A domain error in OpenAI's format (see the module notes)."""
    if isinstance(exc, ValidationFailed):
        fields = list(exc.errors)
        param = next((f for f in fields if f != BODY), None)
        message = " ".join(m for f in fields for m in exc.errors[f]) or exc.message
        return error(VALIDATION_STATUS, message, param=param)
    status = status_of(exc)
    if isinstance(exc, Forbidden):
        return error(status, exc.message, code=exc.code)
    if isinstance(exc, Unauthenticated):
        return error(status, exc.message, headers=WWW_AUTHENTICATE)
    if isinstance(exc, RateLimited):
        return error(status, exc.message, headers={"Retry-After": str(exc.retry_after)})
    if isinstance(exc, Unavailable) and exc.retry_after is not None:
        return error(status, exc.message, headers={"Retry-After": str(exc.retry_after)})
    return error(status, exc.message)


def http_exception_response(exc: HTTPException) -> Response:
    """An HTTP exception (413, 405, ...) in OpenAI's format."""
    return error(exc.status_code, http_message(exc.status_code), headers=exc.headers)


def server_error_response() -> Response:
    """The generic 500, in OpenAI's format."""
    return error(500, SERVER_ERROR_MESSAGE)
