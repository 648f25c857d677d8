"""The composition root: settings -> database -> services -> app.

This is the one module of `engage_http` that imports a storage adapter. `app_factory` takes no
arguments, for `uvicorn --factory engage_http.bootstrap:app_factory` (each worker process builds
its own app, engine and connection pool). It applies no migrations: with several workers they would
race each other, so they are applied once beforehand (`engage serve` and `engage db upgrade` do).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette

from engage_core.services import Services
from engage_core.settings import Settings
from engage_http.app import create_app
from engage_sql import Database


def build_app(settings: Settings | None = None, *, migrate: bool = True) -> Starlette:
    """Connect the database (applying pending migrations when `migrate`) and build the app on it.

    The database is disposed of when the app's lifespan ends.
    """
    settings = settings or Settings.from_env()
    database = Database.connect(settings.database_url)
    try:
        if migrate:
            database.upgrade()
        services = Services.build(database.uow)
    except BaseException:
        database.dispose()
        raise

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            database.dispose()

    return create_app(services, lifespan=lifespan)


def app_factory() -> Starlette:
    """`build_app` from `ENGAGE_*` environment variables, without migrating (for `uvicorn --factory`)."""
    return build_app(Settings.from_env(), migrate=False)
