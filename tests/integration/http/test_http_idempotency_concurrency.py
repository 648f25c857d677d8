"""Concurrent POSTs with one `Idempotency-Key`, over a real server on SQLite and PostgreSQL: the
request runs once, and every caller gets its response."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
from offline_services import offline_services
from served_app import served

from engage_core.testing import FakeClock
from engage_http import create_app
from engage_http.idempotency import IdempotentRequests
from engage_sql import Database

CALLERS = 8
ADA = {"name": "Ada Lovelace", "type": "instagram"}


def test_concurrent_posts_with_one_key_create_one_contact(database: Database) -> None:
    """Every caller gets 201 with the same contact, and the account has exactly one."""
    clock = FakeClock()
    services = offline_services(database.uow, clock)
    headers = {"X-Api-Key": services.accounts.create("Acme").api_key, "Idempotency-Key": "k-1"}
    app = create_app(services, idempotency=IdempotentRequests(database.idempotency_store(), clock))
    start = threading.Barrier(CALLERS)

    with served(app) as url:

        def call(_: int) -> httpx.Response:
            with httpx.Client(base_url=url + "/api/v1", headers=headers, timeout=60) as client:
                start.wait(timeout=30)
                return client.post("/contacts", json=ADA)

        with ThreadPoolExecutor(CALLERS) as pool:
            answers = list(pool.map(call, range(CALLERS)))
        with httpx.Client(base_url=url + "/api/v1", headers=headers, timeout=60) as client:
            total = client.get("/contacts").json()["meta"]["total"]

    assert [a.status_code for a in answers] == [201] * CALLERS
    assert len({a.json()["data"]["id"] for a in answers}) == 1
    assert sum(a.headers.get("idempotent-replayed") == "true" for a in answers) == CALLERS - 1
    assert total == 1
