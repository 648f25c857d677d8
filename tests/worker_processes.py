"""The e2e tests' view of `engage worker` processes and of databases with deliveries queued: the types
the fixtures of `tests/e2e/conftest.py` return, importable by the tests (a `conftest` is not)."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Callable
from pathlib import Path

import attrs
from engage_process import STOP_TIMEOUT
from receiver import Receiver

from engage_core.kernel.pagination import PageRequest
from engage_core.settings import Settings
from engage_core.webhooks.model import Attempt
from engage_http.bootstrap import build_services
from engage_sql import Database

SECRET_KEY = "an-e2e-secret-key-shared-by-every-process"
"""ENGAGE_SECRET_KEY of PostgreSQL runs (SQLite runs use the development key file instead)."""


@attrs.frozen
class WorkerProcess:
    """A running `engage worker`; its stdout and stderr go to `log`."""

    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL: no chance to finish anything."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=STOP_TIMEOUT)

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    def wait(self, timeout: float = STOP_TIMEOUT) -> int:
        """The exit status, waiting up to `timeout` seconds for it."""
        return self.process.wait(timeout=timeout)


StartWorker = Callable[..., WorkerProcess]


@attrs.frozen
class Outbox:
    """An account whose subscription to a local receiver has deliveries queued."""

    database_url: str
    receiver: Receiver
    database: Database
    account_id: int
    webhook_id: int
    secret: str
    contact_names: tuple[str, ...]

    def log(self) -> list[Attempt]:
        """The subscription's whole delivery log."""
        services = build_services(worker_settings(self.database), self.database)
        attempts: list[Attempt] = []
        for number in itertools.count(1):
            page = services.webhooks.deliveries(self.account_id, self.webhook_id, None, PageRequest(number, 100))
            attempts.extend(page.items)
            if len(page.items) < 100:
                return attempts
        raise AssertionError("unreachable")


MakeOutbox = Callable[..., Outbox]


def worker_settings(database: Database) -> Settings:
    """The settings the worker processes get (`start_worker`), as the test process sees them."""
    url = database.engine.url
    return Settings(
        database_url=url.render_as_string(hide_password=False),
        secret_key=None if url.get_backend_name() == "sqlite" else SECRET_KEY,
        webhook_allowed_hosts="127.0.0.1",
    )
