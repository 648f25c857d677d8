"""`GET /health` and `GET /ready`: liveness and readiness, over SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

import attrs
import httpx
import pytest
from sqlalchemy import make_url
from starlette.routing import Route
from starlette.testclient import TestClient

from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import InMemoryUnitOfWorkFactory
from engage_http import create_app
from engage_http.bootstrap import build_app
from engage_http.health import Check, Readiness
from engage_http.routing import API_PREFIX

OPERATIONAL_PATHS = ("/health", "/ready")
KEY = "a-secret-key-of-the-health-tests"
WAIT_SECONDS = 30.0


@pytest.fixture
def settings(make_database_url: Callable[..., str]) -> Settings:
    return Settings(database_url=make_database_url(), secret_key=KEY, run_worker=False)


def failed(body: dict[str, dict[str, dict[str, object]]]) -> list[str]:
    return [name for name, check in body["checks"].items() if not check["ok"]]


def test_health_answers_while_the_process_runs(settings: Settings) -> None:
    """`/health` is 200 with `status: ok`, whatever the database's state."""
    app = build_app(attrs.evolve(settings, database_url=_missing(settings.database_url)), migrate=False)

    response = TestClient(app).get("/health")

    assert (response.status_code, response.json()) == (200, {"status": "ok"})


def test_a_healthy_deployment_is_ready(settings: Settings) -> None:
    """A migrated database, a running worker and a key that decrypts: 200, every check passing."""
    with TestClient(build_app(attrs.evolve(settings, run_worker=True))) as client:
        response = client.get("/ready")

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "ready"
    assert set(response.json()["checks"]) == {"database", "migrations", "worker", "secret_key"}
    assert failed(response.json()) == []


def test_a_database_that_does_not_answer_is_not_ready(settings: Settings) -> None:
    """A database that cannot be reached: 503 naming the database check, with no driver error shown."""
    app = build_app(attrs.evolve(settings, database_url=_missing(settings.database_url)), migrate=False)

    response = TestClient(app).get("/ready")

    assert response.status_code == 503
    assert failed(response.json()) == ["database"]
    assert response.json()["checks"]["database"]["detail"] == "the database does not answer"


def test_an_unmigrated_database_is_not_ready(settings: Settings, make_database_url: Callable[..., str]) -> None:
    """A database without the latest migration: 503 naming the migrations check only."""
    app = build_app(attrs.evolve(settings, database_url=make_database_url(migrated=False)), migrate=False)

    with TestClient(app) as client:
        response = client.get("/ready")

    assert response.status_code == 503
    assert failed(response.json()) == ["migrations"]


def test_a_dead_worker_makes_the_process_not_ready(settings: Settings) -> None:
    """When the process should run the delivery worker and its thread has ended: 503 naming the worker."""
    with TestClient(build_app(attrs.evolve(settings, run_worker=True))) as client:
        assert client.get("/ready").status_code == 200
        client.app.state.delivery_worker.stop()  # type: ignore[attr-defined]

        response = _wait_for_status(client, 503)

    assert failed(response.json()) == ["worker"]


def test_a_dead_job_runner_makes_the_process_not_ready(settings: Settings) -> None:
    """When the process runs the job runner (the services declare handlers) and its thread has ended: 503."""
    with TestClient(build_app(attrs.evolve(settings, run_worker=True))) as client:
        assert client.app.state.job_runner is not None  # type: ignore[attr-defined]
        client.app.state.job_runner.stop()  # type: ignore[attr-defined]

        response = _wait_for_status(client, 503)

    assert failed(response.json()) == ["worker"]
    assert "job runner" in response.json()["checks"]["worker"]["detail"]


def test_without_a_worker_of_its_own_the_process_is_ready(settings: Settings) -> None:
    """`ENGAGE_RUN_WORKER=0`: the worker check passes, saying this process runs none."""
    with TestClient(build_app(settings)) as client:
        response = client.get("/ready")

    assert response.status_code == 200
    assert response.json()["checks"]["worker"] == {"ok": True, "detail": "not run by this process"}


def test_a_secret_key_that_does_not_decrypt_the_stored_secrets_is_not_ready(settings: Settings) -> None:
    """Started with a key other than the one the stored webhook secrets were encrypted with: 503."""
    first = build_app(attrs.evolve(settings, webhook_allowed_hosts="127.0.0.1"))
    key = first.state.services.accounts.create("Acme").api_key
    with TestClient(first) as client:
        created = client.post(
            "/api/v1/webhooks", json={"name": "Hook", "url": "https://127.0.0.1/hook"}, headers={"X-Api-Key": key}
        )
        assert created.status_code == 201, created.text

    with TestClient(build_app(attrs.evolve(settings, secret_key="another-key-entirely-0123"))) as client:
        response = client.get("/ready")

    assert response.status_code == 503
    assert failed(response.json()) == ["secret_key"]


def test_operational_routes_are_outside_the_api_and_its_document(settings: Settings) -> None:
    """Every route outside `/api/v1` that answers without a key is operational, and none is documented."""
    app = build_app(settings)
    with TestClient(app) as client:
        document = client.get(API_PREFIX + "/openapi.json").json()
        answers = {path: client.get(path).status_code for path in OPERATIONAL_PATHS}

    outside = {r.path for r in app.routes if isinstance(r, Route) and not r.path.startswith(API_PREFIX + "/")}
    assert set(OPERATIONAL_PATHS) <= outside
    assert answers == dict.fromkeys(OPERATIONAL_PATHS, 200)
    assert [path for path in document["paths"] if path.removeprefix(API_PREFIX) in OPERATIONAL_PATHS] == []


def test_the_report_is_reused_within_its_interval() -> None:
    """Probes run once per interval however many requests ask: a flood of probes costs one run."""
    runs: list[int] = []

    def probe() -> Iterable[Check]:
        runs.append(1)
        return (Check("counted", True, "ok"),)

    client = TestClient(create_app(_services(), readiness=Readiness([probe], ttl_seconds=3600)))
    statuses = [client.get("/ready").status_code for _ in range(5)]

    assert statuses == [200] * 5
    assert len(runs) == 1


def test_probes_that_hang_report_not_ready() -> None:
    """A probe that does not return in time (a database that never answers): 503 after the timeout."""
    release = threading.Event()

    def probe() -> Iterable[Check]:
        release.wait(WAIT_SECONDS)
        return (Check("slow", True, "ok"),)

    client = TestClient(create_app(_services(), readiness=Readiness([probe], timeout_seconds=0.2)))
    try:
        response = client.get("/ready")
    finally:
        release.set()

    assert response.status_code == 503
    assert failed(response.json()) == ["probes"]


def _services() -> Services:
    return Services.build(InMemoryUnitOfWorkFactory())


def _missing(url: str) -> str:
    """A database URL naming a database that does not exist (SQLite: in a directory that does not)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return f"sqlite:///{parsed.database}.missing/engage.db"
    return parsed.set(database=f"{parsed.database}_missing").render_as_string(hide_password=False)


def _wait_for_status(client: TestClient, status: int) -> httpx.Response:
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        response = client.get("/ready")
        if response.status_code == status or time.monotonic() > deadline:
            return response
        time.sleep(0.1)
