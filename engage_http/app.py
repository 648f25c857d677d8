"""`create_app`: the ASGI application of the workspace API, over any `Services`.

The app knows nothing of storage: give it `Services` built on the SQL adapter (`bootstrap.py`) or on
the in-memory fakes (`engage_core.testing`, as the tests do).
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route
from starlette.types import Lifespan

from engage_core.services import Services
from engage_http.errors import EXCEPTION_HANDLERS
from engage_http.openapi import build_document, document_endpoint
from engage_http.routes import OPERATIONS
from engage_http.routing import API_PREFIX, build_routes


def create_app(
    services: Services,
    *,
    debug: bool = False,
    lifespan: Lifespan[Starlette] | None = None,
    inline_reads: bool = False,
) -> Starlette:
    """The workspace API under `/api/v1`, with its OpenAPI document at `/api/v1/openapi.json`.

    `debug` shows tracebacks of unexpected errors (never in production); `lifespan` is run around the
    app's life (the composition root disposes of the database there). `inline_reads`: the storage
    answers short reads without blocking (SQLite in WAL mode), so they may run on the event loop
    (`routing.py`). `app.state.services` holds `services`.
    """
    routes = build_routes(OPERATIONS, services, prefix=API_PREFIX, debug=debug, inline_reads=inline_reads)
    routes.append(
        Route(
            API_PREFIX + "/openapi.json",
            document_endpoint(build_document(OPERATIONS, prefix=API_PREFIX)),
            methods=["GET"],
            name="openapi",
        )
    )
    app = Starlette(
        debug=debug,
        routes=routes,
        exception_handlers=EXCEPTION_HANDLERS,
        lifespan=lifespan,
    )
    # `/contacts/` is not `/contacts`: an API answers 404 rather than redirecting.
    app.router.redirect_slashes = False
    app.state.services = services
    return app
