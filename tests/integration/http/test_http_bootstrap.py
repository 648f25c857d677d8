"""The composition root: settings -> SQL database -> services -> app."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import engage_http
from engage_core.settings import Settings
from engage_http.bootstrap import app_factory, build_app
from engage_sql import Database


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


@pytest.fixture
def disposals(monkeypatch: pytest.MonkeyPatch) -> list[Database]:
    """Records every `Database.dispose()` call."""
    calls: list[Database] = []
    original = Database.dispose

    def dispose(self: Database) -> None:
        calls.append(self)
        original(self)

    monkeypatch.setattr(Database, "dispose", dispose)
    return calls


def test_build_app_serves_the_api_over_a_migrated_database(database_url: str) -> None:
    """`build_app` migrates the database and serves requests from it."""
    app = build_app(Settings(database_url=database_url))
    key = app.state.services.accounts.create("Acme").api_key

    with running(app) as client:
        response = client.post("/api/v1/tags", json={"title": "VIP"}, headers={"X-Api-Key": key})
        listed = client.get("/api/v1/tags", headers={"Authorization": f"Bearer {key}"})

    assert response.status_code == 201
    assert [t["title"] for t in listed.json()["data"]] == ["VIP"]


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
    """No module of engage_http but `bootstrap` imports engage_sql."""
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
            if any(name.split(".")[0] == "engage_sql" for name in names) and path.name != "bootstrap.py":
                offenders.append(str(path.relative_to(package)))

    assert offenders == []
