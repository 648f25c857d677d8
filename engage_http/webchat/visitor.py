"""The visitor's routes (`/widget/{key}/...`) and the agents' live stream.

The visitor routes are public: the widget key in the path names the workspace, and only pages of the
workspace's allowed origins may use them (the `Origin` header must be one of them: 403 otherwise, and
no `Access-Control-*` header, so the browser shows the page nothing). The visitor's session is named
by its token in the `X-Widget-Session` header (never in a URL, so never in a log): they read and
write their own session only. Bodies are at most `BODY_LIMIT` bytes; each IP and each visitor token
has its own rate limit (`IP_LIMIT`, `VISITOR_LIMIT` a minute; in this process's memory).

    GET  /widget.js                              the widget (any page; one <script> tag)
    GET  /widget/{key}/config                    colour, greeting, language, direction
    POST /widget/{key}/sessions                  start: {visitor_name?, visitor_email?, visitor_phone?, page_url?}
    GET  /widget/{key}/session                   the session and its messages (`?after=seq`)
    PUT  /widget/{key}/session/visitor           the visitor's name, e-mail, phone
    POST /widget/{key}/session/messages          {message}
    POST /widget/{key}/session/human             ask for a person (`handled_by` -> `pending`)
    POST /widget/{key}/session/end               end the chat
    GET  /widget/{key}/session/stream            server-sent events (`engage_http.webchat.streams`)
    GET  /api/v1/web-chat/sessions/{session_id}/stream   the same stream for the workspace's key
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import EngageError, Forbidden, NotFound, ValidationFailed
from engage_core.kernel.rate_limits import InMemoryRateLimiter
from engage_core.services import Services
from engage_core.webchat.service import VisitorAccess
from engage_core.webchat.sessions import VisitorDetails
from engage_core.webchat.widgets import text_color
from engage_http import cors, envelope
from engage_http.auth import admit, api_key
from engage_http.errors import engage_error_response
from engage_http.webchat.live import LiveHub
from engage_http.webchat.streams import events, message_json, resume_point, session_json, stream_response

BODY_LIMIT = 16 * 1024
IP_LIMIT = 300
VISITOR_LIMIT = 60
WINDOW_SECONDS = 60
TOKEN_HEADER = "x-widget-session"  # noqa: S105 (a header name)
ORIGIN_REFUSED = "origin_not_allowed"
ALLOWED_HEADERS = "Content-Type, X-Widget-Session, Last-Event-ID"
METHODS = "GET, POST, PUT"


VisitorHandler = Callable[[Request, VisitorAccess], Awaitable[Response]]


class _Refused(Exception):
    """Answered as it is, without CORS headers."""

    def __init__(self, response: Response) -> None:
        self.response = response


class VisitorRoutes:
    def __init__(self, services: Services, hub: LiveHub) -> None:
        self.services = services
        self.hub = hub
        self.limiter = InMemoryRateLimiter()
        self.clock = services.dependencies.clock

    # -- plumbing -----------------------------------------------------------------------------

    def _limit(self, bucket: str, limit: int) -> None:
        self.limiter.hit(bucket, limit, WINDOW_SECONDS, self.clock.now()).raise_if_refused()

    async def _access(self, request: Request) -> tuple[VisitorAccess, str]:
        key = request.path_params["key"]
        try:
            access = await run_in_threadpool(self.services.web_chat.visitor_access, key)
        except NotFound as exc:
            raise _Refused(engage_error_response(exc)) from None
        origin = request.headers.get("origin")
        if origin is None or not access.widget.allows(origin):
            refused = Forbidden("This page's origin may not use this widget.", ORIGIN_REFUSED)
            raise _Refused(engage_error_response(refused))
        return access, origin

    def _token(self, request: Request) -> str:
        token = request.headers.get(TOKEN_HEADER, "")
        if not token or len(token) > 128:
            raise NotFound("Web chat session")
        self._limit(f"webchat-visitor:{token}", VISITOR_LIMIT)
        return token

    @staticmethod
    async def _body(request: Request) -> dict[str, Any]:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > BODY_LIMIT:
            raise _Refused(envelope.error(413, "The request body is too large."))
        raw = bytearray()
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > BODY_LIMIT:
                raise _Refused(envelope.error(413, "The request body is too large."))
        if not raw:
            return {}
        try:
            parsed = json.loads(raw)
        except ValueError:
            raise ValidationFailed.on("body", "The body must be a JSON object.") from None
        if not isinstance(parsed, dict):
            raise ValidationFailed.on("body", "The body must be a JSON object.")
        return parsed

    def endpoint(
        self, handler: Callable[[Request, VisitorAccess], Awaitable[Response]]
    ) -> Callable[[Request], Awaitable[Response]]:
        """A visitor route: CORS (preflight, allowed origins only), limits, errors as the API's."""

        async def answer(request: Request) -> Response:
            try:
                access, origin = await self._access(request)
            except _Refused as refused:
                return refused.response
            cors = {
                "Access-Control-Allow-Origin": origin,
                "Vary": "Origin",
                "Access-Control-Expose-Headers": "Retry-After",
            }
            if request.method == "OPTIONS":
                cors |= {
                    "Access-Control-Allow-Methods": METHODS,
                    "Access-Control-Allow-Headers": ALLOWED_HEADERS,
                    "Access-Control-Max-Age": "600",
                }
                return Response(status_code=204, headers=cors)
            try:
                self._limit(f"webchat-ip:{request.client.host if request.client else '?'}", IP_LIMIT)
                response = await handler(request, access)
            except _Refused as refused:
                response = refused.response
            except EngageError as exc:
                response = engage_error_response(exc)
            response.headers.update(cors)
            return response

        return answer

    # -- the routes ---------------------------------------------------------------------------

    async def config(self, request: Request, access: VisitorAccess) -> Response:
        widget = access.widget
        data = {
            "color": widget.color,
            "text_color": text_color(widget.color),
            "greeting": widget.greeting,
            "language": widget.language,
            "direction": widget.direction,
        }
        return envelope.success(data)

    async def start(self, request: Request, access: VisitorAccess) -> Response:
        body = await self._body(request)
        visitor = VisitorDetails(
            name=_text(body, "visitor_name"),
            email=_text(body, "visitor_email"),
            phone=_text(body, "visitor_phone"),
            ip=request.client.host if request.client else None,
            page_url=_text(body, "page_url"),
            referrer=_text(body, "referrer"),
        )
        started = await run_in_threadpool(self.services.web_chat.start, access.account_id, visitor)
        data = {
            "token": started.token,
            "session": session_json(started.session),
            "messages": [message_json(m) for m in started.messages],
        }
        return envelope.success(data, status=201, message="Session started.")

    async def read(self, request: Request, access: VisitorAccess) -> Response:
        token = self._token(request)
        after = resume_point({}, request.query_params)
        thread = await run_in_threadpool(self.services.web_chat.visitor_session, access.account_id, token, after)
        data = {"session": session_json(thread.session), "messages": [message_json(m) for m in thread.messages]}
        return envelope.success(data)

    async def visitor(self, request: Request, access: VisitorAccess) -> Response:
        token = self._token(request)
        body = await self._body(request)
        details = VisitorDetails(
            _text(body, "visitor_name"), _text(body, "visitor_email"), _text(body, "visitor_phone")
        )
        session = await run_in_threadpool(self.services.web_chat.visitor_update, access.account_id, token, details)
        return envelope.success(session_json(session))

    async def send(self, request: Request, access: VisitorAccess) -> Response:
        token = self._token(request)
        body = await self._body(request)
        text = body.get("message")
        if not isinstance(text, str):
            raise ValidationFailed.on("message", "The message field is required.")
        message = await run_in_threadpool(self.services.web_chat.visitor_send, access.account_id, token, text)
        return envelope.success(message_json(message), status=201)

    async def human(self, request: Request, access: VisitorAccess) -> Response:
        token = self._token(request)
        session = await run_in_threadpool(self.services.web_chat.request_human, access.account_id, token)
        return envelope.success(session_json(session))

    async def end(self, request: Request, access: VisitorAccess) -> Response:
        token = self._token(request)
        session = await run_in_threadpool(self.services.web_chat.visitor_end, access.account_id, token)
        return envelope.success(session_json(session))

    async def stream(self, request: Request, access: VisitorAccess) -> Response:
        token = self._token(request)
        account = access.account_id
        first = await run_in_threadpool(self.services.web_chat.visitor_session, account, token, 0, 1)
        after = resume_point(request.headers, request.query_params)

        def read(seq: int) -> Any:
            return self.services.web_chat.visitor_session(account, token, seq)

        return stream_response(events(self.hub, account, first.session.session_id, read, after))

    async def agent_stream(self, request: Request) -> Response:
        """The workspace's stream of one session (the API key, as every workspace route)."""
        try:
            admission = await run_in_threadpool(
                admit, self.services.accounts, request.headers, api_key(request.headers)
            )
            account = admission.account.id
            session_id = request.path_params["session_id"]
            await run_in_threadpool(self.services.web_chat.messages_after, account, session_id, 0, 1)
        except EngageError as exc:
            return engage_error_response(exc)
        after = resume_point(request.headers, request.query_params)

        def read(seq: int) -> Any:
            return self.services.web_chat.messages_after(account, session_id, seq)

        return stream_response(events(self.hub, account, session_id, read, after))


async def widget_script(request: Request) -> Response:
    """`/widget.js`: the widget, from the package (no build step)."""
    script = resources.files("engage_http.webchat").joinpath("static/widget.js").read_bytes()
    return Response(
        script,
        media_type="text/javascript",
        headers={"Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff"},
    )


def _text(body: dict[str, Any], field: str) -> str | None:
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationFailed.on(field, f"The {field} must be a string.")
    return value


def routes(services: Services, hub: LiveHub, api_prefix: str) -> list[Route]:
    """The visitor routes, the widget script and the agents' stream."""
    v = VisitorRoutes(services, hub)
    base = "/widget/{key:str}"
    return [
        Route("/widget.js", widget_script, methods=["GET"], name="web_chat_widget_js"),
        Route(base + "/config", v.endpoint(v.config), methods=["GET", "OPTIONS"]),
        Route(base + "/sessions", v.endpoint(v.start), methods=["POST", "OPTIONS"]),
        Route(base + "/session", v.endpoint(v.read), methods=["GET", "OPTIONS"]),
        Route(base + "/session/visitor", v.endpoint(v.visitor), methods=["PUT", "OPTIONS"]),
        Route(base + "/session/messages", v.endpoint(v.send), methods=["POST", "OPTIONS"]),
        Route(base + "/session/human", v.endpoint(v.human), methods=["POST", "OPTIONS"]),
        Route(base + "/session/end", v.endpoint(v.end), methods=["POST", "OPTIONS"]),
        Route(base + "/session/stream", v.endpoint(v.stream), methods=["GET", "OPTIONS"]),
        # Keyed like the workspace API, so answered like it: preflights echo the origin, and the key's
        # account enforces its whitelist (`admit`).
        cors.route(
            api_prefix + "/web-chat/sessions/{session_id:web_chat_session}/stream",
            v.agent_stream,
            methods=["GET"],
            name="web_chat_agent_stream",
            cross_origin=True,
        ),
    ]
