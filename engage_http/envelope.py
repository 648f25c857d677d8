"""The response envelope (SPEC 1.3-1.4, 7): every body is JSON built here.

Success: `{"success": true, "data": ..., "message"?: ..., "meta"?: {...}}`.
Errors: `{"success": false, "message": ...}`, plus `errors` on 422 and `code` on 403.
Bodies are serialised compactly by orjson (an order of magnitude faster than `json.dumps` on a page of
contacts); the data is already unstructured by the routes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from starlette.responses import Response

from engage_http.converter import converter
from engage_http.envelope_schemas import Error, ForbiddenError, PageMeta, ValidationError

JSON = "application/json"


def dumps(payload: Any) -> bytes:
    """Compact UTF-8 JSON.

    What orjson refuses (an integer beyond 64 bits, say a segment condition's value) goes through
    `json.dumps`, which also raises for what JSON cannot hold at all. Responses carry no NaN or
    infinity: request bodies reject them, and nothing computes a float.
    """
    try:
        return orjson.dumps(payload, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def success_body(
    data: Any, *, message: str | None = None, meta: PageMeta | None = None, success: bool = True
) -> dict[str, Any]:
    body: dict[str, Any] = {"success": success, "data": data}
    if message is not None:
        body["message"] = message
    if meta is not None:
        body["meta"] = {
            "current_page": meta.current_page,
            "per_page": meta.per_page,
            "total": meta.total,
            "last_page": meta.last_page,
        }
    return body


def success(
    data: Any, *, status: int = 200, message: str | None = None, meta: PageMeta | None = None, success: bool = True
) -> Response:
    """A data body; `success` false only for a record of something that did not happen (a message
    stored `failed`: SPEC 7 lists it among the non-error outcomes)."""
    body = success_body(data, message=message, meta=meta, success=success)
    return Response(dumps(body), status_code=status, media_type=JSON)


def no_content() -> Response:
    """204 with no body (SPEC 1.6)."""
    return Response(status_code=204)


def error(
    status: int,
    message: str,
    *,
    errors: Mapping[str, Sequence[str]] | None = None,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    body: Error | ValidationError | ForbiddenError
    if errors is not None:
        body = ValidationError(success=False, message=message, errors={k: list(v) for k, v in errors.items()})
    elif code is not None:
        body = ForbiddenError(success=False, message=message, code=code)
    else:
        body = Error(success=False, message=message)
    return Response(dumps(converter.unstructure(body)), status_code=status, headers=headers, media_type=JSON)
