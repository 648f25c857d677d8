"""OpenTelemetry tracing (`ENGAGE_TRACING=on`): a server span per request named by its route template
with the request id, a span per SQL statement, a client span per webhook attempt; off by default."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy
from http_support import Tenant
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from starlette.testclient import TestClient

from engage_core.contacts.model import Contact, ContactInput
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.webhooks.model import Outcome
from engage_http import create_app
from engage_http.bootstrap import build_services
from engage_http.tracing import REQUEST_ID_ATTRIBUTE, Tracing
from engage_sql import Database

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def exporter() -> InMemorySpanExporter:
    return InMemorySpanExporter()


@pytest.fixture
def tracing(exporter: InMemorySpanExporter) -> Tracing:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return Tracing(provider)


@pytest.fixture
def traced_client(services: Services, tracing: Tracing) -> Iterator[TestClient]:
    with TestClient(create_app(services, tracing=tracing)) as client:
        yield client


def server_spans(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [span for span in exporter.get_finished_spans() if span.kind is SpanKind.SERVER]


def test_tracing_is_off_by_default() -> None:
    """Without `ENGAGE_TRACING`, the settings leave tracing off."""
    assert Settings.from_env({}).tracing is False


def test_a_request_is_a_server_span_named_by_its_route_template(
    traced_client: TestClient, exporter: InMemorySpanExporter, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """`GET /api/v1/contacts/7` is the span `GET /api/v1/contacts/{id:id}`, never the path with its id."""
    contact = make_contact(tenant)
    traced_client.get(f"/api/v1/contacts/{contact.id}", headers=tenant.headers)
    (span,) = server_spans(exporter)
    assert span.name == "GET /api/v1/contacts/{id:id}"
    assert span.attributes is not None and span.attributes["http.route"] == "/api/v1/contacts/{id:id}"


def test_the_server_span_carries_the_request_id(
    traced_client: TestClient, exporter: InMemorySpanExporter, tenant: Tenant
) -> None:
    """The span's `engage.request_id` is the id the response echoes."""
    response = traced_client.get("/api/v1/contacts", headers={**tenant.headers, "X-Request-Id": "trace-me-1"})
    (span,) = server_spans(exporter)
    assert response.headers["x-request-id"] == "trace-me-1"
    assert span.attributes is not None and span.attributes[REQUEST_ID_ATTRIBUTE] == "trace-me-1"


def test_a_path_no_route_matches_is_named_by_its_method_alone(
    traced_client: TestClient, exporter: InMemorySpanExporter
) -> None:
    """An unmatched path does not become a span name (it may hold anything)."""
    traced_client.get("/no/such/place/123")
    (span,) = server_spans(exporter)
    assert span.name == "GET"


def test_each_sql_statement_of_a_traced_engine_is_a_span(tracing: Tracing, exporter: InMemorySpanExporter) -> None:
    """A statement on the engine handed to `Tracing.engine` is a client span holding its SQL."""
    engine = sqlalchemy.create_engine("sqlite://")
    tracing.engine(engine)
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text("SELECT 42"))
    statements = [span for span in exporter.get_finished_spans() if span.kind is SpanKind.CLIENT]
    assert any("SELECT 42" in str((span.attributes or {}).values()) for span in statements)


class AnsweringSender:
    def __init__(self, outcome: Outcome) -> None:
        self.outcome = outcome

    def send(self, url: str, headers: object, body: bytes) -> Outcome:
        return self.outcome


def test_a_webhook_attempt_is_a_client_span_with_the_host_but_not_the_path(
    tracing: Tracing, exporter: InMemorySpanExporter
) -> None:
    """The span names the receiver's host and the status, never the URL's path or query."""
    sender = tracing.sender(AnsweringSender(Outcome(204, "", None)))
    sender.send("https://hooks.example.com/secret-path?token=abc", {}, b"{}")
    (span,) = exporter.get_finished_spans()
    attributes = dict(span.attributes or {})
    assert (span.name, attributes["server.address"], attributes["http.response.status_code"]) == (
        "webhook.send",
        "hooks.example.com",
        204,
    )
    assert "secret-path" not in str(attributes) and "token" not in str(attributes)


def test_a_failed_webhook_attempt_is_an_error_span(tracing: Tracing, exporter: InMemorySpanExporter) -> None:
    """A 500 from the receiver marks the attempt's span as an error."""
    tracing.sender(AnsweringSender(Outcome(500, "down", None))).send("https://hooks.example.com/", {}, b"{}")
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code is StatusCode.ERROR


def test_tracing_without_the_extra_stops_with_the_package_to_install(tmp_path: Path) -> None:
    """`ENGAGE_TRACING=on` without OpenTelemetry installed refuses to start, naming the extra."""
    script = textwrap.dedent(
        f"""
        import sys
        sys.modules["opentelemetry"] = None  # as if not installed
        from engage_core.settings import Settings
        from engage_http.bootstrap import build_app
        try:
            build_app(Settings(database_url="sqlite:///{tmp_path}/t.db", secret_key="k" * 32, tracing=True))
        except RuntimeError as exc:
            print(exc)
        """
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert "pip install 'engage-platform[tracing]'" in completed.stdout


def test_the_storage_statements_of_a_service_call_are_spans(
    tracing: Tracing, exporter: InMemorySpanExporter, make_database: Callable[..., Database]
) -> None:
    """Creating a contact through the SQL storage traces its INSERT, prebuilt driver statements included."""
    database = make_database()
    tracing.engine(database.engine)
    services = build_services(Settings(secret_key="k" * 40), database)
    account_id = services.accounts.create("Traced").account.id
    exporter.clear()
    services.contacts.create(account_id, ContactInput(name="Bo", type="instagram"))
    statements = [str((span.attributes or {}).get("db.statement", "")) for span in exporter.get_finished_spans()]
    assert any("INSERT INTO contacts" in statement for statement in statements)  # in a CTE on PostgreSQL
