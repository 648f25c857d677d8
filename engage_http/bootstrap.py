"""The composition root: settings -> database and outbound adapters -> services -> app.

With `worker.py`, this is the only part of `engage_http` that imports the adapters (`engage_sql`,
`engage_connectors`). `app_factory` takes no arguments, for `uvicorn --factory
engage_http.bootstrap:app_factory` (each worker process builds its own app, engine and connection
pool). It applies no migrations: with several workers they would race each other, so they are applied
once beforehand (`engage serve` and `engage db upgrade` do).

Webhook secrets are encrypted at rest under `ENGAGE_SECRET_KEY`. On SQLite, when it is unset, a random
development key is generated once and kept beside the database file (`<database>.secret-key`, mode
0600); on PostgreSQL (a production deployment, often several machines) the key is required.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from engage_connectors.secrets import FernetCipher
from engage_connectors.ssrf import AddressPolicy
from engage_connectors.target_guard import DnsTargetGuard
from engage_core.errors import EngageError
from engage_core.services import Services
from engage_core.settings import Settings
from engage_http.app import create_app
from engage_http.worker import DeliveryWorkerHandle, start_delivery_worker
from engage_sql import Database

logger = logging.getLogger("engage.bootstrap")

KEY_FILE_SUFFIX = ".secret-key"


class SecretKeyRequired(EngageError):
    """`ENGAGE_SECRET_KEY` is unset where no development key can stand in for it."""

    def __init__(self) -> None:
        super().__init__(
            "ENGAGE_SECRET_KEY must be set when the database is PostgreSQL: it encrypts webhook secrets, "
            "and every process sharing the database needs the same key."
        )


def secret_cipher(settings: Settings, database: Database) -> FernetCipher:
    """The cipher of secrets at rest: `ENGAGE_SECRET_KEY`, else (SQLite only) the development key file."""
    if settings.secret_key:
        return FernetCipher(settings.secret_key)
    url = database.engine.url
    if url.get_backend_name() != "sqlite" or not url.database:
        raise SecretKeyRequired()
    path = Path(url.database + KEY_FILE_SUFFIX)
    logger.warning(
        "ENGAGE_SECRET_KEY is not set: webhook secrets are encrypted with the development key in %s. "
        "Production must set ENGAGE_SECRET_KEY.",
        path,
    )
    return FernetCipher(development_key(path))


def development_key(path: Path) -> str:
    """The key kept in `path`, generated (mode 0600) on first use. Safe against concurrent first starts:
    the key is written to a private temporary file and linked into place, so a reader never sees a
    partial key and the first writer wins."""
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    temporary = path.with_name(f"{path.name}.{secrets.token_hex(8)}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(secrets.token_urlsafe(48) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another process created it first: use theirs
            os.link(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return _read_key(path)


def _read_key(path: Path) -> str:
    key = path.read_text(encoding="ascii").strip()
    if len(key) < 16:
        raise ValueError(f"The development key file {path} is damaged; delete it or set ENGAGE_SECRET_KEY.")
    return key


def target_guard(settings: Settings) -> DnsTargetGuard:
    """The SSRF guard of webhook targets, with the exemptions of `ENGAGE_WEBHOOK_ALLOWED_HOSTS`."""
    return DnsTargetGuard(AddressPolicy.from_setting(settings.webhook_allowed_hosts))


class DeferredCipher:
    """The secret cipher, resolved on first use: a command that never touches a secret (creating an
    account from the CLI, say) needs no `ENGAGE_SECRET_KEY`."""

    def __init__(self, settings: Settings, database: Database) -> None:
        self._settings = settings
        self._database = database
        self._cipher: FernetCipher | None = None

    def _resolved(self) -> FernetCipher:
        if self._cipher is None:
            self._cipher = secret_cipher(self._settings, self._database)
        return self._cipher

    def encrypt(self, plaintext: str) -> str:
        return self._resolved().encrypt(plaintext)

    def decrypt(self, ciphertext: str) -> str:
        return self._resolved().decrypt(ciphertext)


def build_services(settings: Settings, database: Database) -> Services:
    """Every use case over `database`, with the real target guard and the cipher resolved on first use."""
    return Services.build(database.uow, cipher=DeferredCipher(settings, database), guard=target_guard(settings))


def start_worker(settings: Settings, database: Database) -> DeliveryWorkerHandle:
    """Start the delivery worker over `database` (what `engage worker` runs; `engage serve` runs it in
    the app's lifespan). Stop it with the handle's `stop()`."""
    return start_delivery_worker(database.delivery_queue(), secret_cipher(settings, database), settings)


def build_app(settings: Settings | None = None, *, migrate: bool = True) -> Starlette:
    """Connect the database (applying pending migrations when `migrate`) and build the app on it.

    When `settings.run_worker`, the app's lifespan runs the delivery worker; leaving the lifespan stops
    it and then disposes of the database.
    """
    settings = settings or Settings.from_env()
    database = Database.connect(settings.database_url)
    try:
        cipher = secret_cipher(settings, database)  # before migrating: a missing key touches nothing
        if migrate:
            database.upgrade()
        services = Services.build(database.uow, cipher=cipher, guard=target_guard(settings))
    except BaseException:
        database.dispose()
        raise

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        worker: DeliveryWorkerHandle | None = None
        try:
            if settings.run_worker:
                worker = start_delivery_worker(database.delivery_queue(), cipher, settings)
            app.state.delivery_worker = worker
            yield
        finally:
            if worker is not None:
                await run_in_threadpool(worker.stop)
            database.dispose()

    # SQLite in WAL mode: a read takes no lock a writer holds and waits for no fsync, so short reads
    # may run on the event loop. A PostgreSQL read is a network round trip: never on the loop.
    return create_app(services, lifespan=lifespan, inline_reads=database.engine.dialect.name == "sqlite")


def app_factory() -> Starlette:
    """`build_app` from `ENGAGE_*` environment variables, without migrating (for `uvicorn --factory`)."""
    return build_app(Settings.from_env(), migrate=False)
