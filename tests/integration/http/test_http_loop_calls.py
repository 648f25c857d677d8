"""PostgreSQL's hot path through the composition root: short requests on the event loop, kept admissions."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from http_support import Api
from sqlalchemy import Connection, Engine, event
from starlette.testclient import TestClient

from engage_core.contacts.model import ContactInput
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock
from engage_http import create_app
from engage_http.bootstrap import build_app
from engage_sql import Database
from engage_sql.loop_calls import CooperativeConnection


@pytest.fixture
def database(make_database: Callable[..., Database], backend: str) -> Database:
    if backend != "postgres":
        pytest.skip("SQLite's short reads need no runner")
    return make_database()


@pytest.fixture
def workspace(database: Database) -> tuple[Services, str]:
    services = Services.build(database.uow, FakeClock(), cipher=FakeCipher(), guard=AllowAllTargets())
    issued = services.accounts.create("Acme")
    for n in range(3):
        services.contacts.create(issued.account.id, ContactInput(name=f"Contact {n}", type="instagram"))
    return services, issued.api_key


@pytest.fixture
def inline(database: Database, workspace: tuple[Services, str]) -> Iterator[Api]:
    services, key = workspace
    reads = database.loop_calls()
    assert reads is not None
    with TestClient(create_app(services, short_reads=database.short_reads(), loop_reads=reads)) as client:
        yield Api(client, {"X-Api-Key": key})
    reads.close()


@pytest.fixture
def statements() -> Iterator[list[tuple[str, bool]]]:
    """Of each statement run from here on (by any engine): its thread's name, and whether it ran on
    a `CooperativeConnection` (one of the loop's)."""
    seen: list[tuple[str, bool]] = []

    def record(connection: Connection, *_args: Any) -> None:
        cooperative = isinstance(connection.connection.dbapi_connection, CooperativeConnection)
        seen.append((threading.current_thread().name, cooperative))

    event.listen(Engine, "before_cursor_execute", record)
    yield seen
    event.remove(Engine, "before_cursor_execute", record)


def _on_the_loop(statements: list[tuple[str, bool]]) -> bool:
    return bool(statements) and all(not name.startswith("engage-") and loop for name, loop in statements)


def test_first_page_reads_on_the_event_loop(inline: Api, statements: list[tuple[str, bool]]) -> None:
    """`GET /contacts` sends its statements from the event loop's thread, on the loop's connection."""
    assert inline.get("/contacts", params={"per_page": 15}).status_code == 200
    assert _on_the_loop(statements)


def test_a_search_keeps_its_worker_thread(inline: Api, statements: list[tuple[str, bool]]) -> None:
    """A filtered page is not a short read: its statements run in a worker thread."""
    assert inline.get("/contacts", params={"search": "contact"}).status_code == 200
    assert statements and all(name.startswith("engage-read") and not loop for name, loop in statements)


def _settings(database: Database, **more: str) -> Settings:
    url = database.engine.url.render_as_string(hide_password=False)
    env = {"ENGAGE_DATABASE_URL": url, "ENGAGE_RUN_WORKER": "0", "ENGAGE_SECRET_KEY": "loop-reads-test-secret-key"}
    return Settings.from_env(env | more)


def test_the_composition_root_reads_on_the_loop(
    database: Database, workspace: tuple[Services, str], statements: list[tuple[str, bool]]
) -> None:
    """`build_app` on PostgreSQL wires the loop's reads: the first page is read there."""
    _, key = workspace
    with TestClient(build_app(_settings(database))) as client:
        statements.clear()  # the start-up's own
        response = client.get("/api/v1/contacts", headers={"X-Api-Key": key})

    assert response.status_code == 200 and _on_the_loop(statements)


def _page_statements(client: TestClient, key: str, statements: list[tuple[str, bool]]) -> int:
    statements.clear()
    assert client.get("/api/v1/contacts", headers={"X-Api-Key": key}).status_code == 200
    return len(statements)


def test_the_composition_root_keeps_admissions(
    database: Database, workspace: tuple[Services, str], statements: list[tuple[str, bool]]
) -> None:
    """Once its listener hears changes, a key's next page is one statement: the admission is kept."""
    _, key = workspace
    with TestClient(build_app(_settings(database))) as client:
        deadline = time.monotonic() + 30  # the listener connects in a thread of its own
        while _page_statements(client, key, statements) != 1:
            assert time.monotonic() < deadline, "admissions were never kept"
            time.sleep(0.01)


def test_admissions_are_read_each_time_with_the_cache_off(
    database: Database, workspace: tuple[Services, str], statements: list[tuple[str, bool]]
) -> None:
    """`ENGAGE_DATABASE_ADMISSION_CACHE=off` (behind a pooler): every page reads its admission."""
    _, key = workspace
    with TestClient(build_app(_settings(database, ENGAGE_DATABASE_ADMISSION_CACHE="off"))) as client:
        counts = [_page_statements(client, key, statements) for _ in range(3)]

    assert counts == [2, 2, 2]


@pytest.mark.parametrize(
    ("params", "key"),
    [({}, None), ({"per_page": 2, "page": 2}, None), ({}, "eng_not-a-key"), ({"page": 0}, None)],
    ids=["first-page", "second-page", "unknown-key", "invalid-page"],
)
def test_answers_are_those_of_a_worker_thread(
    inline: Api, workspace: tuple[Services, str], params: dict[str, Any], key: str | None
) -> None:
    """On the loop or in a worker thread, a client sees the same status and body."""
    services, api_key = workspace
    headers = {"X-Api-Key": key or api_key}
    threaded = TestClient(create_app(services))

    first = inline.get("/contacts", params=params, headers=headers)
    second = threaded.get("/api/v1/contacts", params=params, headers=headers)

    assert (first.status_code, first.json()) == (second.status_code, second.json())


def test_the_composition_root_writes_on_the_loop(
    database: Database, workspace: tuple[Services, str], statements: list[tuple[str, bool]]
) -> None:
    """`POST /contacts` on PostgreSQL runs its statements from the loop, on the loop's connections."""
    _, key = workspace
    with TestClient(build_app(_settings(database))) as client:
        statements.clear()  # the start-up's own
        response = client.post(
            "/api/v1/contacts", json={"name": "Ada", "type": "instagram"}, headers={"X-Api-Key": key}
        )
        listed = client.get("/api/v1/contacts", headers={"X-Api-Key": key}).json()

    assert response.status_code == 201 and _on_the_loop(statements)
    assert listed["meta"]["total"] == 4
