"""engage_http: the Starlette adapter of engage (the workspace REST API under `/api/v1`).

`create_app(services)` builds the ASGI app over any `engage_core.services.Services`;
`engage_http.bootstrap` composes it with the SQL adapter (`build_app`, `app_factory`).
"""

from engage_http.app import create_app

__all__ = ["create_app"]
