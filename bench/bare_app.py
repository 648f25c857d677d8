"""The baseline: a bare Starlette app that answers with the same JSON engage would.

It serialises the same Python data on every request (as engage does), so the ratio measures
what engage adds: authentication, the database, validation and the envelope.
Run as `uvicorn bench.bare_app:app_factory --factory` with `BENCH_FIXTURES` naming a JSON file
of `{"get": <body>, "post": <body>}`.
"""

from __future__ import annotations

import json
import os

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


def app_factory() -> Starlette:
    with open(os.environ["BENCH_FIXTURES"], encoding="utf-8") as handle:
        fixtures = json.load(handle)

    def get(request: Request) -> JSONResponse:
        return JSONResponse(fixtures["get"])

    async def post(request: Request) -> JSONResponse:
        await request.body()
        return JSONResponse(fixtures["post"], status_code=201)

    return Starlette(routes=[Route("/bench", get, methods=["GET"]), Route("/bench", post, methods=["POST"])])
