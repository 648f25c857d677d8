"""Request ids: taken from `X-Request-Id` or generated, echoed, and on every log record of the request."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterator

import pytest
from http_support import Tenant
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from engage_core.services import Services
from engage_http.areas import OPERATIONS
from engage_http.request_id import RequestIdFilter, RequestIdMiddleware
from engage_http.routing import API_PREFIX

GENERATED = re.compile(r"[0-9a-f]{32}")


class Captured(logging.Handler):
    """Keeps the records it is handed, after its filters ran."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []
        self.addFilter(RequestIdFilter())

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def captured() -> Iterator[Captured]:
    """Records of `engage.*` loggers, with the request id filter on the handler as `engage serve` has it."""
    handler = Captured()
    logger = logging.getLogger("engage")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def test_a_response_carries_a_generated_id(client: TestClient) -> None:
    """Without `X-Request-Id`, each response carries a new id of 32 hex digits."""
    ids = [client.get("/health").headers["x-request-id"] for _ in range(2)]

    assert all(GENERATED.fullmatch(value) for value in ids)
    assert ids[0] != ids[1]


def test_the_clients_id_is_echoed(client: TestClient) -> None:
    """A safe `X-Request-Id` sent by the client or a proxy comes back unchanged."""
    sent = "req-2026.11/abc:DEF+12="

    assert client.get("/health", headers={"X-Request-Id": sent}).headers["x-request-id"] == sent


@pytest.mark.parametrize("sent", ["x" * 129, "has space", 'quote"d', "semi;colon", "ünïcode", ""])
def test_an_unsafe_id_is_replaced(client: TestClient, sent: str) -> None:
    """An id too long, empty, or with a character outside the safe set is replaced by a generated one."""
    response = client.get("/health", headers={"X-Request-Id": sent.encode()})

    assert GENERATED.fullmatch(response.headers["x-request-id"])


def test_every_operation_answers_with_the_id(client: TestClient) -> None:
    """Every operation of the API (here refused for want of a key) and an unknown path echo the id."""
    answered = {}
    for operation in [*OPERATIONS, None]:
        method, path = ("GET", "/nothing") if operation is None else (operation.method, operation.path)
        path = re.sub(r"\{[^}]+\}", "1", path)
        response = client.request(method, API_PREFIX + path, headers={"X-Request-Id": "walk-1"})
        answered[(method, path)] = response.headers.get("x-request-id")

    assert set(answered.values()) == {"walk-1"}


def test_a_routes_500_is_logged_with_the_request_id(
    services: Services, app: Starlette, tenant: Tenant, monkeypatch: pytest.MonkeyPatch, captured: Captured
) -> None:
    """An unhandled error in a route: the 500 carries the id, and so does its logged traceback."""

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(services.tags, "list", explode)
    client = TestClient(app, raise_server_exceptions=False)

    response = client.get(API_PREFIX + "/tags", headers={"X-Api-Key": tenant.key, "X-Request-Id": "trace-me-500"})

    [record] = [r for r in captured.records if r.exc_info]
    assert response.status_code == 500
    assert response.headers["x-request-id"] == "trace-me-500"
    assert (record.name, record.request_id) == ("engage.http", "trace-me-500")  # type: ignore[attr-defined]


def test_an_error_outside_the_routes_keeps_the_id_for_the_servers_traceback(captured: Captured) -> None:
    """An exception leaving the app: the server's traceback line, logged as it leaves, carries the id."""

    async def failing(scope: Scope, receive: Receive, send: Send) -> None:
        raise RuntimeError("outside every route")

    async def serve() -> None:  # what uvicorn does with each request, in a task of its own
        scope: Scope = {"type": "http", "headers": [(b"x-request-id", b"outside-1")]}

        async def receive() -> Message:
            return {"type": "http.request", "body": b""}

        async def send(message: Message) -> None:
            pass

        try:
            await RequestIdMiddleware(failing)(scope, receive, send)
        except RuntimeError:
            logging.getLogger("engage.server").exception("Exception in ASGI application")

    asyncio.run(serve())

    assert [r.request_id for r in captured.records] == ["outside-1"]  # type: ignore[attr-defined]


def test_records_outside_a_request_have_no_id(captured: Captured) -> None:
    """A record logged outside any request (the delivery worker, start-up) has request id `-`."""
    logging.getLogger("engage.worker").warning("between requests")

    assert [r.request_id for r in captured.records] == ["-"]  # type: ignore[attr-defined]
