"""The webhook ports of the composition root: the secret key, the target guard and the delivery worker."""

from __future__ import annotations

import ast
import logging
import os
import socket
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path

import attrs
import pytest
from starlette.testclient import TestClient

import engage_http
from engage_connectors.secrets import FernetCipher
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeSender,
    InMemoryDeliveryQueue,
    InMemoryUnitOfWorkFactory,
)
from engage_core.webhooks.model import Claim
from engage_core.webhooks.service import WebhookInput
from engage_http.bootstrap import build_app
from engage_http.secret_key import KEY_FILE_SUFFIX, SecretKeyRequired, secret_cipher
from engage_http.worker import start_delivery_worker
from engage_sql import Database

KEY = "a-production-secret-key-of-some-length"
HOOK = WebhookInput("Hook", "https://hooks.example.com/engage")


@pytest.fixture
def database_path(tmp_path: Path) -> Path:
    return tmp_path / "engage.db"


@pytest.fixture
def settings(database_path: Path) -> Settings:
    """SQLite in a temporary directory, no secret key, no in-process worker."""
    return Settings(database_url=f"sqlite:///{database_path}", run_worker=False)


@pytest.fixture
def connect() -> Iterator[Callable[[str], Database]]:
    """`connect(url)`: a database disposed of after the test."""
    opened: list[Database] = []

    def make(url: str) -> Database:
        database = Database.connect(url)
        opened.append(database)
        return database

    yield make
    for database in opened:
        database.dispose()


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


# -- the secret key -------------------------------------------------------------------------------------


def test_without_a_key_sqlite_gets_a_private_development_key_file(
    settings: Settings, database_path: Path, connect: Callable[[str], Database]
) -> None:
    """Without `ENGAGE_SECRET_KEY`, a key is generated beside the SQLite file, readable by its owner only."""
    secret_cipher(settings, connect(settings.database_url))

    key_file = Path(f"{database_path}{KEY_FILE_SUFFIX}")
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(key_file.read_text().strip()) >= 32


def test_the_development_key_is_generated_once_and_reused(
    settings: Settings, database_path: Path, connect: Callable[[str], Database]
) -> None:
    """A second start reads the same key file: what one process encrypted, the next decrypts."""
    first = secret_cipher(settings, connect(settings.database_url))
    key_file = Path(f"{database_path}{KEY_FILE_SUFFIX}")
    written = key_file.read_text()

    second = secret_cipher(settings, connect(settings.database_url))

    assert key_file.read_text() == written
    assert second.decrypt(first.encrypt("signing secret")) == "signing secret"


def test_concurrent_first_starts_agree_on_one_key(
    settings: Settings, database_path: Path, connect: Callable[[str], Database]
) -> None:
    """Processes starting together on a fresh database all end up with the same development key."""
    database = connect(settings.database_url)
    ciphers: list[FernetCipher] = []
    barrier = threading.Barrier(8)

    def start() -> None:
        barrier.wait()
        ciphers.append(secret_cipher(settings, database))

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    token = secret_cipher(settings, database).encrypt("x")
    assert len(ciphers) == 8
    assert all(c.decrypt(token) == "x" for c in ciphers)
    assert [p.name for p in database_path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_the_development_key_warning_names_the_setting_but_not_the_key(
    settings: Settings, database_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Starting without a key warns that production must set ENGAGE_SECRET_KEY, never logging the key."""
    with caplog.at_level(logging.WARNING, logger="engage.secret_key"):
        build_app(settings)

    key = Path(f"{database_path}{KEY_FILE_SUFFIX}").read_text().strip()
    assert "ENGAGE_SECRET_KEY" in caplog.text
    assert key not in caplog.text


def test_a_configured_key_is_used_and_no_file_is_written(
    settings: Settings, database_path: Path, connect: Callable[[str], Database]
) -> None:
    """With `ENGAGE_SECRET_KEY` set, no development key file appears and its cipher is the key's."""
    configured = attrs.evolve(settings, secret_key=KEY)

    cipher = secret_cipher(configured, connect(settings.database_url))

    assert not Path(f"{database_path}{KEY_FILE_SUFFIX}").exists()
    assert secret_cipher(configured, connect(settings.database_url)).decrypt(cipher.encrypt("s")) == "s"


def test_postgresql_without_a_key_refuses_to_start() -> None:
    """On PostgreSQL an unset ENGAGE_SECRET_KEY stops the start with one line naming the setting."""
    url = os.environ.get("ENGAGE_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("ENGAGE_TEST_POSTGRES_URL is not set")

    with pytest.raises(SecretKeyRequired) as refused:
        build_app(Settings(database_url=url, run_worker=False))  # refused before migrating anything

    assert "ENGAGE_SECRET_KEY" in refused.value.message
    assert "\n" not in refused.value.message


def test_the_refusal_needs_no_reachable_postgresql() -> None:
    """The key is checked before any connection: an unreachable PostgreSQL URL is refused for the key alone."""
    with pytest.raises(SecretKeyRequired, match="ENGAGE_SECRET_KEY"):
        build_app(Settings(database_url="postgresql://nobody@127.0.0.1:9/none", run_worker=False), migrate=False)


def test_the_app_creates_webhooks_over_sql_with_the_real_ports(settings: Settings) -> None:
    """Over SQLite with the real cipher, a created subscription is stored and its log readable over HTTP."""
    app = build_app(attrs.evolve(settings, webhook_allowed_hosts="127.0.0.1"))
    key = app.state.services.accounts.create("Acme").api_key
    headers = {"X-Api-Key": key}

    with TestClient(app) as client:
        created = client.post(
            "/api/v1/webhooks", json={"name": "Local", "url": "https://127.0.0.1/engage"}, headers=headers
        )
        hook_id = created.json()["data"]["id"]
        queued = client.post(f"/api/v1/webhooks/{hook_id}/test", headers=headers)
        log = client.get(f"/api/v1/webhooks/{hook_id}/deliveries", headers=headers)

    assert created.status_code == 201, created.text
    assert queued.status_code == 202
    assert [d["event_type"] for d in log.json()["data"]] == ["webhook.test"]


def test_the_real_guard_refuses_an_internal_target(settings: Settings) -> None:
    """The app's target guard refuses a loopback target that is not in ENGAGE_WEBHOOK_ALLOWED_HOSTS."""
    app = build_app(settings)
    key = app.state.services.accounts.create("Acme").api_key

    with TestClient(app) as client:
        response = client.post(
            "/api/v1/webhooks", json={"name": "Loop", "url": "https://127.0.0.1/hook"}, headers={"X-Api-Key": key}
        )

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["url"]


# -- the in-process worker ------------------------------------------------------------------------------


def test_the_lifespan_runs_the_worker_and_stops_it(settings: Settings) -> None:
    """With `run_worker`, the worker runs while the app does and has stopped once the app has."""
    app = build_app(attrs.evolve(settings, run_worker=True))

    with TestClient(app):
        worker = app.state.delivery_worker
        assert worker.running

    assert not worker.running


def test_without_run_worker_no_worker_starts(settings: Settings) -> None:
    """`run_worker=False` (ENGAGE_RUN_WORKER=0, `serve --no-worker`) starts no worker."""
    app = build_app(settings)

    with TestClient(app):
        assert app.state.delivery_worker is None


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_the_in_process_worker_sends_queued_deliveries(settings: Settings) -> None:
    """The worker of `engage serve` sends a queued test delivery and records the failed attempt and its retry."""
    running = attrs.evolve(settings, run_worker=True, webhook_allowed_hosts="127.0.0.1", webhook_timeout_seconds=2.0)
    app = build_app(running)
    headers = {"X-Api-Key": app.state.services.accounts.create("Acme").api_key}

    with TestClient(app) as client:
        url = f"https://127.0.0.1:{closed_port()}/hook"
        created = client.post("/api/v1/webhooks", json={"name": "Down", "url": url}, headers=headers)
        hook_id = created.json()["data"]["id"]
        client.post(f"/api/v1/webhooks/{hook_id}/test", headers=headers)

        def log() -> Sequence[dict[str, object]]:
            data: list[dict[str, object]] = client.get(
                f"/api/v1/webhooks/{hook_id}/deliveries", headers=headers
            ).json()["data"]
            return data

        wait_for(lambda: any(d["status"] == "failed" for d in log()))
        attempts = log()

    assert [(d["attempt_number"], d["status"]) for d in attempts] == [(2, "pending"), (1, "failed")]
    assert attempts[1]["error"]


# -- start_delivery_worker ------------------------------------------------------------------------------


@pytest.fixture
def queued() -> tuple[InMemoryUnitOfWorkFactory, Services, int]:
    """An in-memory store with one account and one subscription; (uow, services, account id)."""
    uow = InMemoryUnitOfWorkFactory()
    services = Services.build(uow, FakeClock(), cipher=FakeCipher(), guard=AllowAllTargets())
    account_id = services.accounts.create("Acme").account.id
    return uow, services, account_id


def test_start_delivery_worker_delivers_and_stops_cleanly(
    queued: tuple[InMemoryUnitOfWorkFactory, Services, int],
) -> None:
    """The worker delivers queued attempts concurrently; `stop()` ends the thread within its timeout."""
    uow, services, account_id = queued
    hook = services.webhooks.create(account_id, HOOK).subscription
    for _ in range(5):
        services.webhooks.send_test(account_id, hook.id)
    sender = FakeSender()
    settings = Settings(worker_concurrency=3)

    handle = start_delivery_worker(
        InMemoryDeliveryQueue(uow.store),
        FakeCipher(),
        settings,
        gate=services.entitlements,
        sender=sender,
        clock=FakeClock(),
        idle_seconds=0.01,
    )
    wait_for(lambda: len(sender.sent) == 5)

    assert handle.stop(timeout=5.0) is True
    assert not handle.running


def test_stop_is_idempotent(queued: tuple[InMemoryUnitOfWorkFactory, Services, int]) -> None:
    """Stopping a stopped worker does nothing and reports it stopped."""
    uow, services, _ = queued
    handle = start_delivery_worker(
        InMemoryDeliveryQueue(uow.store),
        FakeCipher(),
        Settings(),
        gate=services.entitlements,
        sender=FakeSender(),
        idle_seconds=0.01,
    )

    assert handle.stop() is True
    assert handle.stop() is True


class FlakyQueue(InMemoryDeliveryQueue):
    """A queue whose first claim fails, as a database outage would."""

    failures = 1

    def claim(self, now: datetime, lease_seconds: float, limit: int) -> Sequence[Claim]:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("database unavailable")
        return super().claim(now, lease_seconds, limit)


def test_the_worker_survives_an_unexpected_error(
    queued: tuple[InMemoryUnitOfWorkFactory, Services, int], caplog: pytest.LogCaptureFixture
) -> None:
    """An error in the loop is logged and the worker resumes instead of dying silently."""
    uow, services, account_id = queued
    hook = services.webhooks.create(account_id, HOOK).subscription
    services.webhooks.send_test(account_id, hook.id)
    sender = FakeSender()

    handle = start_delivery_worker(
        FlakyQueue(uow.store), FakeCipher(), Settings(), gate=services.entitlements, sender=sender, idle_seconds=0.01
    )
    try:
        wait_for(lambda: len(sender.sent) == 1)
    finally:
        handle.stop()

    assert "database unavailable" in caplog.text


# -- the import rule ------------------------------------------------------------------------------------


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_only_the_composition_root_imports_the_connectors() -> None:
    """`engage_connectors` is imported by `bootstrap` (and its `secret_key` and `media_wiring`) and `worker` only."""
    package = Path(engage_http.__file__).parent
    importers = {
        str(path.relative_to(package)) for path in package.rglob("*.py") if "engage_connectors" in imported_roots(path)
    }

    assert importers <= {"bootstrap.py", "secret_key.py", "media_wiring.py", "worker.py"}
