"""engage mounted in another ASGI application: its lifespan runs in the host's, webhooks are delivered,
and it shuts down cleanly; mounted without its lifespan, it says so."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI
from receiver import MakeReceiver
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.testclient import TestClient

from engage_core.settings import Settings
from engage_core.webhooks.service import WebhookInput
from engage_http.bootstrap import build_app
from engage_http.embedding import NOT_STARTED, engage_lifespan
from engage_sql import Database

SECRET_KEY = "an-embedding-test-secret-key"


def fastapi_host(engage: Starlette) -> Any:
    app = FastAPI(lifespan=engage_lifespan(engage))
    app.mount("/engage", engage)
    return app


def starlette_host(engage: Starlette) -> Any:
    return Starlette(routes=[Mount("/engage", app=engage)], lifespan=engage_lifespan(engage))


HOSTS = {"fastapi": fastapi_host, "starlette": starlette_host}


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """`app` under uvicorn on 127.0.0.1 with its lifespan, in a thread; its base URL."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the host app did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join()
        assert not thread.is_alive()


@pytest.fixture
def engage_settings(make_database_url: Callable[..., str], ca_file: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Settings of an engage app that delivers to a receiver on 127.0.0.1 trusted through the test CA."""
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
    return Settings(database_url=make_database_url(), secret_key=SECRET_KEY, webhook_allowed_hosts="127.0.0.1")


@pytest.mark.parametrize("host", sorted(HOSTS))
def test_mounted_engage_delivers_webhooks_and_shuts_down(
    host: str, engage_settings: Settings, make_receiver: MakeReceiver, disposals: list[Database]
) -> None:
    """In a host whose lifespan is engage's, a change made through the mount reaches a webhook receiver,
    and stopping the host stops the worker and closes the database."""
    receiver = make_receiver()
    engage = build_app(engage_settings)
    services = engage.state.services
    created = services.accounts.create("Host")
    services.webhooks.create(created.account.id, WebhookInput("Receiver", receiver.url("/hook"), ["contact.created"]))

    with serving(HOSTS[host](engage)) as url:
        response = httpx.post(
            f"{url}/engage/api/v1/contacts",
            json={"name": "Ada", "type": "instagram"},
            headers={"X-Api-Key": created.api_key},
        )
        assert response.status_code == 201
        (delivery,) = receiver.wait_for(1, timeout=60)
        worker = engage.state.delivery_worker

    assert delivery.path == "/hook"
    assert b'"contact.created"' in delivery.body
    assert worker is not None and not worker.running
    assert len(disposals) == 1


def test_a_request_without_the_lifespan_logs_a_warning_once(
    engage_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Mounted without its lifespan, engage still answers, and its first request warns what is missing."""
    engage = build_app(engage_settings)
    host = Starlette(routes=[Mount("/engage", app=engage)])  # no lifespan: the mistake
    client = TestClient(host)  # not entered: no lifespan runs

    with caplog.at_level(logging.WARNING, logger="engage.embedding"):
        first = client.get("/engage/api/v1/openapi.json")
        client.get("/engage/api/v1/openapi.json")

    assert first.status_code == 200
    assert [record.getMessage() for record in caplog.records] == [NOT_STARTED]


def test_a_request_inside_the_lifespan_logs_no_warning(
    engage_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """Run in the host's lifespan, engage gives no lifespan warning."""
    engage = build_app(engage_settings)

    with caplog.at_level(logging.WARNING, logger="engage.embedding"), TestClient(starlette_host(engage)) as client:
        client.get("/engage/api/v1/openapi.json")

    assert caplog.records == []
