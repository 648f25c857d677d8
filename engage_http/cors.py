"""Cross-origin requests (CORS): browsers may call the workspace API from the origins the key's
account whitelists (SPEC 5 item 4). See docs/api.md#cross-origin-requests-cors.

- **Preflights** (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) carry no key, so they
  cannot be tied to an account: every preflight of an existing workspace route is answered 204,
  echoing the `Origin`, with the path's methods, the headers a call sends (`ALLOWED_HEADERS`) and
  `MAX_AGE`. It grants nothing by itself: the actual request carries the key and enforces the whitelist.
- **Actual requests** with an `Origin` get `Access-Control-Allow-Origin: <origin>`, `Vary: Origin`
  and `Access-Control-Expose-Headers` (`EXPOSED_HEADERS`) on every answer, errors included, except
  the 403 `origin_not_allowed` of an origin the account does not list: the browser then hides it.
  Answers given before an account is known (401, 413) name no account and are the same for every
  caller, so they carry the headers too. No credentials (cookies) are involved: the key is a header.
- **The partner API** is server-to-server: a partner key must never be in a browser. Its preflights
  are answered 204 without `Access-Control-*` headers, so a browser stops before sending the key,
  and its answers carry none.
- Without an `Origin` (server-to-server calls) nothing is added: the only cost is looking for it.
- **Routes outside the operation table** (`route`) answer `OPTIONS` the same way: the OpenAPI
  document, public and keyless, as a workspace route (any origin may read it); the docs page, the
  dashboard and the provider callback as the partner API (no `Access-Control-*` headers).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Scope

from engage_core.accounts.model import ORIGIN_NOT_ALLOWED_CODE
from engage_core.kernel.errors import EngageError, Forbidden

ALLOWED_HEADERS = "X-Api-Key, Authorization, Content-Type, Idempotency-Key"
"""The request headers a preflight allows: the key (either header), a JSON body, a retry's key."""

EXPOSED_HEADERS = (
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, WWW-Authenticate, Idempotent-Replayed"
)
"""The response headers beyond the CORS-safelisted ones that a page may read."""

MAX_AGE = 7200
"""Seconds a browser may reuse a preflight's answer (Chromium's own cap). The answer depends on the
path alone, never on an account, so a change of a whitelist needs no shorter one."""

_ORIGIN = b"origin"


def request_origin(scope: Scope) -> str | None:
    """The request's `Origin` header, or None: one pass over the raw headers, no `Headers` object."""
    for name, value in scope["headers"]:
        if name == _ORIGIN:
            return str(value.decode("latin-1"))
    return None


def is_preflight(scope: Scope) -> bool:
    """Whether an `OPTIONS` request is a CORS preflight (it names the method it asks for)."""
    return any(name == b"access-control-request-method" for name, _ in scope["headers"])


def options(methods: Iterable[str], origin: str | None) -> Response:
    """The answer to `OPTIONS` on a path serving `methods`: 204 with `Allow`; with `origin` (a
    preflight of a workspace route), the preflight's headers too."""
    allowed = ", ".join(methods)
    headers = {"Allow": f"{allowed}, OPTIONS"}
    if origin is not None:
        headers |= {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": allowed,
            "Access-Control-Allow-Headers": ALLOWED_HEADERS,
            "Access-Control-Max-Age": str(MAX_AGE),
            "Vary": "Origin",
        }
    return Response(status_code=204, headers=headers)


def refuses(exc: EngageError) -> bool:
    """Whether the error is the account's refusal of the request's origin (no CORS headers then)."""
    return isinstance(exc, Forbidden) and exc.code == ORIGIN_NOT_ALLOWED_CODE


def allow(response: Response, origin: str) -> Response:
    """`response`, readable by a page of `origin`."""
    response.headers.add_vary_header("Origin")
    response.raw_headers.extend(
        (
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-expose-headers", EXPOSED_HEADERS.encode("latin-1")),
        )
    )
    return response


Endpoint = Callable[[Request], Awaitable[Response]]


def route(path: str, endpoint: Endpoint, *, methods: Sequence[str], name: str, cross_origin: bool = False) -> Route:
    """A route of its own endpoint (not of the operation table) that answers `OPTIONS` as the API
    routes do: 204 with `Allow`, and with `cross_origin` a preflight's headers and, on its answers to
    a request with an `Origin`, the actual request's (for a public, keyless resource)."""
    served = list(methods)
    if "GET" in served and "HEAD" not in served:  # Starlette serves HEAD with GET
        served.insert(served.index("GET") + 1, "HEAD")

    async def answer(request: Request) -> Response:
        origin = request_origin(request.scope) if cross_origin else None
        if request.method == "OPTIONS":
            return options(served, origin)
        response = await endpoint(request)
        return response if origin is None else allow(response, origin)

    return Route(path, answer, methods=[*served, "OPTIONS"], name=name)
