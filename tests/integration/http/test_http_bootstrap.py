"""The composition root: settings -> SQL database -> services -> app."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import engage_http
from engage_core.kernel.mail import MailMessage
from engage_core.settings import Settings
from engage_http.bootstrap import app_factory, build_app, start_worker
from engage_sql import Database
from engage_sql.write_lane import OutboundCallInBatch


def running(app: Starlette) -> TestClient:
    return TestClient(app)


def upgrade(url: str) -> list[str]:
    """Apply pending migrations with a database of its own; the revisions applied."""
    database = Database.connect(url)
    try:
        return database.upgrade()
    finally:
        database.dispose()


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'engage.db'}"


def test_build_app_serves_the_api_over_a_migrated_database(database_url: str) -> None:
    """`build_app` migrates the database and serves requests from it."""
    app = build_app(Settings(database_url=database_url))
    key = app.state.services.accounts.create("Acme").api_key

    with running(app) as client:
        response = client.post("/api/v1/tags", json={"title": "VIP"}, headers={"X-Api-Key": key})
        listed = client.get("/api/v1/tags", headers={"Authorization": f"Bearer {key}"})

    assert response.status_code == 201
    assert [t["title"] for t in listed.json()["data"]] == ["VIP"]


def test_build_app_keeps_idempotency_keys_in_the_database(database_url: str) -> None:
    """A retry with an `Idempotency-Key` is answered from the database, even by another app over it."""
    settings = Settings.from_env({"ENGAGE_DATABASE_URL": database_url, "ENGAGE_RUN_WORKER": "0"})
    first_app = build_app(settings)
    headers = {"X-Api-Key": first_app.state.services.accounts.create("Acme").api_key, "Idempotency-Key": "k-1"}
    with running(first_app) as client:
        first = client.post("/api/v1/tags", json={"title": "VIP"}, headers=headers)

    with running(build_app(settings)) as client:
        retry = client.post("/api/v1/tags", json={"title": "VIP"}, headers=headers)

    assert (first.status_code, retry.status_code) == (201, 201)
    assert retry.content == first.content
    assert retry.headers["idempotent-replayed"] == "true"


def test_the_database_is_disposed_when_the_app_stops(database_url: str, disposals: list[Database]) -> None:
    """Leaving the app's lifespan disposes of the database's connections."""
    app = build_app(Settings(database_url=database_url))

    with running(app):
        assert disposals == []

    assert len(disposals) == 1


def test_build_app_without_migrate_leaves_the_schema_alone(database_url: str) -> None:
    """`migrate=False` applies no migration (a later `upgrade()` has everything to do)."""
    with running(build_app(Settings(database_url=database_url), migrate=False)):
        pass

    assert upgrade(database_url) != []


def test_app_factory_reads_the_environment(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`app_factory()` builds the app from `ENGAGE_*` variables."""
    upgrade(database_url)
    monkeypatch.setenv("ENGAGE_DATABASE_URL", database_url)

    app = app_factory()
    key = app.state.services.accounts.create("Acme").api_key

    with running(app) as client:
        assert client.get("/api/v1/contacts", headers={"X-Api-Key": key}).status_code == 200


def test_app_factory_leaves_migrations_to_the_caller(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`app_factory()` applies no migration (several workers would race), so they are run beforehand."""
    monkeypatch.setenv("ENGAGE_DATABASE_URL", database_url)

    with running(app_factory()):
        pass

    assert upgrade(database_url) != []


def test_only_the_composition_root_imports_the_sql_adapter() -> None:
    """No module of engage_http but `bootstrap` (and its `secret_key` and `media_wiring`) imports engage_sql."""
    package = Path(engage_http.__file__).parent
    offenders = []
    for path in package.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            root = path.name in ("bootstrap.py", "secret_key.py", "media_wiring.py")
            if any(name.split(".")[0] == "engage_sql" for name in names) and not root:
                offenders.append(str(path.relative_to(package)))

    assert offenders == []


def test_every_outbound_port_of_the_services_is_guarded_on_sqlite(database_url: str) -> None:
    """In a write-lane batch, each outbound port the services were given raises at once."""
    app = build_app(Settings.from_env({"ENGAGE_DATABASE_URL": database_url, "ENGAGE_RUN_WORKER": "0"}))
    deps = app.state.services.dependencies
    groups = deps.uow.write_groups
    calls = {
        "mailer": lambda: deps.mailer.send(MailMessage("ada@example.com", "Hello", "Hi")),
        "store platform": lambda: deps.store.push_status(1, None, "processing"),
        "channel gateway": lambda: deps.gateway.start_qr("whatsapp"),
        "target guard": lambda: deps.guard.refusal("https://hooks.example.com/"),
    }
    refused = []
    with running(app), groups.batch():
        for name, call in calls.items():
            with pytest.raises(OutboundCallInBatch):
                call()
            refused.append(name)

    assert refused == list(calls)


def test_the_delivery_workers_sender_goes_through_the_outbound_guard(database_url: str) -> None:
    """`engage worker`'s sender is wrapped by the storage's guard, like the services' ports."""
    upgrade(database_url)
    settings = Settings.from_env({"ENGAGE_DATABASE_URL": database_url})
    database = Database.connect(database_url)
    wrapped: list[str] = []
    guard = database.outbound_guard()

    def outbound(port: Any, name: str) -> Any:
        wrapped.append(name)
        return guard(port, name)

    try:
        with patch.object(Database, "outbound_guard", lambda _self: outbound):
            start_worker(settings, database).stop()
    finally:
        database.dispose()

    assert wrapped == ["webhook sender"]
