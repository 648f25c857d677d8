"""Running engage inside another ASGI application.

Starlette (and so FastAPI) does not run a mounted application's lifespan, and engage's lifespan is
where its delivery worker starts and its write lane and database close. A host runs it in its own:

    engage = build_app(settings)
    app = FastAPI(lifespan=engage_lifespan(engage))      # or Starlette(lifespan=...)
    app.mount("/engage", engage)

or, beside its own start-up work, `async with running(engage): ...` inside its lifespan. An app of
`build_app` whose lifespan never ran logs a warning at its first request (`LifespanCheck`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from typing import Any

import attrs
from starlette.applications import Starlette
from starlette.types import ASGIApp, Receive, Scope, Send

logger = logging.getLogger("engage.embedding")

NOT_STARTED = (
    "engage received a request but its lifespan has not run: no webhook is delivered and the database is "
    "never closed. Mounted in another app, run it in the host's lifespan: "
    "lifespan=engage_http.embedding.engage_lifespan(engage_app) (docs/operations.md, Embedding)."
)


@asynccontextmanager
async def running(app: Starlette) -> AsyncIterator[None]:
    """Run `app`'s start-up on entering and its shutdown on leaving, as a server would."""
    async with app.router.lifespan_context(app):
        yield


def engage_lifespan(*apps: Starlette) -> Callable[[Any], AbstractAsyncContextManager[None]]:
    """A lifespan for a host application that runs each of `apps`' (started in order, stopped in reverse)."""

    @asynccontextmanager
    async def lifespan(host: Any) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            for app in apps:
                await stack.enter_async_context(running(app))
            yield

    return lifespan


@attrs.define
class LifespanState:
    """Whether the app's lifespan is running, and whether the warning was given."""

    started: bool = False
    warned: bool = False


class LifespanCheck:
    """ASGI middleware: warns once when an HTTP request arrives while the lifespan is not running."""

    def __init__(self, app: ASGIApp, state: LifespanState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self.state.started and not self.state.warned:
            self.state.warned = True
            logger.warning(NOT_STARTED)
        await self.app(scope, receive, send)
