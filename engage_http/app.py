"""`create_app`: the ASGI application of the workspace API, over any `Services`.

The app knows nothing of storage: give it `Services` built on the SQL adapter (`bootstrap.py`) or on
the in-memory fakes (`engage_core.testing`, as the tests do).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Lifespan

from engage_core.kernel.idempotency import InMemoryIdempotencyStore
from engage_core.messaging.sandbox_controls import SandboxControls
from engage_core.services import Services
from engage_http import api_docs, cors, dashboard, health
from engage_http.areas import OPERATIONS, PARTNER_OPERATIONS
from engage_http.dashboard import SessionCookies
from engage_http.errors import EXCEPTION_HANDLERS, StorageErrors
from engage_http.health import Readiness
from engage_http.idempotency import IdempotentRequests
from engage_http.media.files import LocalFiles, file_routes
from engage_http.messaging import sandbox_routes
from engage_http.messaging.callbacks import CallbackReader, callback_route
from engage_http.openapi import build_document, document_endpoint
from engage_http.rate_limit import RequestRateLimiter
from engage_http.request_id import RequestIdMiddleware
from engage_http.routing import API_PREFIX, LoopReads, ShortRead, WriteLane, build_routes
from engage_http.webchat.live import LiveHub
from engage_http.webchat.visitor import routes as web_chat_routes

if TYPE_CHECKING:  # imported only when on: `prometheus_client` and OpenTelemetry are optional extras
    from engage_http.metrics import Metrics
    from engage_http.tracing import Tracing


class EngageApp(Starlette):
    """Starlette with the request id outermost, outside even its server-error middleware, so that
    a 500 it answers carries the id in its header, and its traceback in its log line. With tracing,
    the request's span sits just inside it: it sees the id, and the 500 too."""

    tracing: Tracing | None = None

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()
        if self.tracing is not None:
            stack = self.tracing.asgi(stack, self.router)
        return RequestIdMiddleware(stack)


def create_app(
    services: Services,
    *,
    debug: bool = False,
    lifespan: Lifespan[Starlette] | None = None,
    sandbox: SandboxControls | None = None,
    provider_callbacks: CallbackReader | None = None,
    short_reads: Mapping[type, ShortRead] | None = None,
    loop_reads: LoopReads | None = None,
    rate_limiter: RequestRateLimiter | None = None,
    sessions: SessionCookies | None = None,
    write_lane: WriteLane | None = None,
    storage_errors: StorageErrors | None = None,
    readiness: Readiness | None = None,
    metrics: Metrics | None = None,
    tracing: Tracing | None = None,
    idempotency: IdempotentRequests | None = None,
    files: LocalFiles | None = None,
    live: LiveHub | None = None,
) -> Starlette:
    """The workspace API under `/api/v1`, with its OpenAPI document at `/api/v1/openapi.json` and the
    page rendering it at `/api/v1/docs` (`api_docs.py`).

    `debug` shows tracebacks of unexpected errors (never in production); `lifespan` is run around the
    app's life (the composition root disposes of the database there). `app.state.services` holds
    `services`. With `sandbox` (the sandbox gateway is in use) the sandbox routes are served and
    documented; with `provider_callbacks` (a hosted messaging provider) its callback route is served.
    `short_reads`: the reads the storage answers without blocking, by the core filter type they
    take, which then run on the event loop (`routing.py`), through `loop_reads` where the storage's
    reads wait for the network (PostgreSQL's, `engage_sql.loop_calls`); with a `write_lane`
    (SQLite's, or PostgreSQL's `LoopCalls.write_lane()`), the short writes that may run there do.
    `rate_limiter` limits each workspace and partner key's
    requests (`rate_limit.py`); None serves them unlimited (tests that make many requests). The
    partner API (`/api/v1/partner/...`) is always served; with `sessions`, so is the dashboard
    (`engage_http.dashboard`: sign-in, the inbox, the workspace pages, partners' impersonation
    landing), its failed sign-ins counted in the rate limiter's store. `storage_errors` names the storage's
    failures a client should retry (disk full, read-only, busy) as domain errors (503 with
    `Retry-After`); any other unexpected error is a 500. Every response carries `X-Request-Id`
    (`request_id.py`). `GET /health` and `GET /ready` are served
    outside `/api/v1` (`health.py`); `readiness` holds the checks of `/ready` (none: always ready).
    With `metrics`, `GET /metrics` is served there too and every request is counted (`metrics.py`);
    without, neither costs anything. With `tracing`, each request is an OpenTelemetry span
    (`tracing.py`). A POST with an `Idempotency-Key` header runs once per key
    (`idempotency.py`): the keys are kept by `idempotency` (the composition root's are in the
    database), by default in this process's memory, on the services' clock. With `files` (media kept
    in a local directory), the stored files are served at `/files/<key>` (`media/files.py`). The web
    chat's visitor routes, `/widget.js` and the live streams are served (`webchat/visitor.py`); their
    streams wake through `live` (by default the services' feed when it is a `LiveHub`, else a hub
    of their own, which then finds news by looking again every few seconds).
    """
    operations = (*OPERATIONS, *PARTNER_OPERATIONS)
    if sandbox is not None:
        operations = (*operations, *sandbox_routes.operations(sandbox))
    routes: list[BaseRoute] = [
        *build_routes(
            operations,
            services,
            prefix=API_PREFIX,
            debug=debug,
            short_reads=short_reads,
            loop_reads=loop_reads,
            rate_limiter=rate_limiter,
            write_lane=write_lane,
            storage_errors=storage_errors,
            idempotency=idempotency or IdempotentRequests(InMemoryIdempotencyStore(), services.dependencies.clock),
        )
    ]
    # Public and keyless: any origin may read the document (tools that render or generate from it).
    routes.append(
        cors.route(
            API_PREFIX + "/openapi.json",
            document_endpoint(build_document(operations, prefix=API_PREFIX)),
            methods=["GET"],
            name="openapi",
            cross_origin=True,
        )
    )
    routes.extend(api_docs.routes())
    routes.extend(health.routes(readiness or Readiness()))
    if metrics is not None:
        from engage_http import metrics as metrics_module

        routes.extend(metrics_module.routes(metrics))
    if provider_callbacks is not None:
        routes.append(callback_route(provider_callbacks, services.inbox))
    feed = services.dependencies.live
    hub = live or (feed if isinstance(feed, LiveHub) else LiveHub())
    if sessions is not None:
        limiter = rate_limiter.limiter if rate_limiter else None
        routes.extend(dashboard.routes(services, sessions, limiter, hub=hub))
    if files is not None:
        routes.extend(file_routes(files))
    routes.extend(web_chat_routes(services, hub, API_PREFIX))
    app = EngageApp(
        debug=debug,
        routes=routes,
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
    )
    # `/contacts/` is not `/contacts`: an API answers 404 rather than redirecting.
    app.router.redirect_slashes = False
    app.tracing = tracing
    if metrics is not None:
        app.add_middleware(metrics_module.MetricsMiddleware, metrics=metrics)
    app.state.services = services
    app.state.rate_limiter = rate_limiter
    return app
