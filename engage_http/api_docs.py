"""The API's docs page, `GET /api/v1/docs`: Swagger UI rendering `/api/v1/openapi.json`.

Swagger UI's files come from a Python package, `swagger-ui-bundle-v2` (the `docs` extra), and are
served by this server beside the page, under `/api/v1/docs/`: nothing is loaded from another origin,
and the page's Content-Security-Policy (`PAGE_SECURITY`) allows nothing else. The page starts Swagger
UI with a script file of its own (`INIT_SCRIPT`), so no inline script is allowed either; styles are
allowed inline, as Swagger UI sets some. Its links are relative to the page, so it works wherever the
app is mounted. Without the package, the page answers 404 with what to install; the document itself
is always served.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from engage_http import cors
from engage_http.routing import API_PREFIX

DOCS_PATH = API_PREFIX + "/docs"
ASSETS_PACKAGE = "swagger_ui_bundle"
INSTALL_HINT = "pip install 'engage-platform[docs]'"
"""Installs the package of Swagger UI's files (`swagger-ui-bundle-v2`)."""

BUNDLED_ASSETS = ("swagger-ui.css", "swagger-ui-bundle.js")
"""The files of the package the page loads; no other file of it is served."""

INIT_SCRIPT = """\
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null
  });
});
"""
"""Starts Swagger UI on the document beside the page (`openapi.json` resolves to `/api/v1/openapi.json`)."""

PAGE_SECURITY: Mapping[str, str] = {
    # Only this origin's files and calls. Swagger UI sets inline styles and draws icons from data:
    # URLs in its stylesheet; "Try it out" calls the API (connect-src) and offers answers as blobs.
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
}
ASSET_CACHE = "public, max-age=86400"
"""Assets are named with the Swagger UI version (`?v=`), so a newer package is fetched at once."""


def swagger_ui_directory() -> Path | None:
    """The folder of Swagger UI's files in the installed package, or None when it is not installed."""
    try:
        package = importlib.import_module(ASSETS_PACKAGE)
    except ImportError:
        return None
    return Path(str(package.swagger_ui_path))


def page(version: str) -> str:
    """The page, loading Swagger UI's files (`?v=` its version) and the start script from beside it."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        "<title>engage API</title>"
        f'<link rel="stylesheet" href="docs/swagger-ui.css?v={version}">'
        '</head><body><div id="swagger-ui"></div>'
        f'<script src="docs/swagger-ui-bundle.js?v={version}"></script>'
        f'<script src="docs/init.js?v={version}"></script>'
        "</body></html>"
    )


def missing_page() -> str:
    """The 404 page when Swagger UI's package is not installed."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>API docs not installed</title>'
        "</head><body><h1>API docs not installed</h1>"
        f"<p>This page needs Swagger UI's files: <code>{INSTALL_HINT}</code>, then restart the server.</p>"
        '<p>The OpenAPI document is at <a href="openapi.json">openapi.json</a>.</p></body></html>'
    )


def routes() -> list[Route]:
    """The page and its files, or the page saying what to install."""
    directory = swagger_ui_directory()
    if directory is None:

        async def not_installed(request: Request) -> Response:
            return HTMLResponse(missing_page(), status_code=404, headers=dict(PAGE_SECURITY))

        return [cors.route(DOCS_PATH, not_installed, methods=["GET"], name="docs")]

    body = page(directory.name.removeprefix("swagger-ui-"))

    async def docs(request: Request) -> Response:
        return HTMLResponse(body, headers=dict(PAGE_SECURITY))

    async def init_script(request: Request) -> Response:
        return Response(INIT_SCRIPT, media_type="text/javascript", headers=_asset_headers())

    return [
        cors.route(DOCS_PATH, docs, methods=["GET"], name="docs"),
        cors.route(DOCS_PATH + "/init.js", init_script, methods=["GET"], name="docs_init"),
        *(_asset_route(directory / name) for name in BUNDLED_ASSETS),
    ]


def _asset_route(path: Path) -> Route:
    """One file of the package, at a path of its own: no path names any other file."""

    async def asset(request: Request) -> Response:
        return FileResponse(path, headers=_asset_headers())

    return cors.route(f"{DOCS_PATH}/{path.name}", asset, methods=["GET"], name=f"docs_{path.stem}")


def _asset_headers() -> dict[str, str]:
    return {"Cache-Control": ASSET_CACHE, "X-Content-Type-Options": "nosniff"}
