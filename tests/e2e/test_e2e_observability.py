"""Observability of real processes: `engage serve` exports its spans over OTLP to a collector, metrics
add up across `--workers`, and `engage worker` serves metrics of its own."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from engage_process import free_port
from loopback import Closing, LoopbackHandler, LoopbackServer
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from worker_processes import MakeOutbox, StartWorker

pytestmark = pytest.mark.e2e

WAIT_SECONDS = 30.0


def wait_for(condition: Callable[[], Any], what: str) -> Any:
    """`condition()`'s first truthy value, polled until `WAIT_SECONDS` have passed."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"Timed out waiting for {what}"
        time.sleep(0.05)


class Collector(Closing):
    """An OTLP/HTTP trace collector on loopback: keeps the spans of every export it receives."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.lock = threading.Lock()
        collector = self

        class Handler(LoopbackHandler):
            def handle_request(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    with collector.lock:
                        for resource in request.resource_spans:
                            for scope in resource.scope_spans:
                                collector.spans.extend(scope.spans)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = LoopbackServer(Handler)
        self.server.start()
        self.url = f"http://127.0.0.1:{self.server.port}"

    def named(self, name: str) -> list[Span]:
        with self.lock:
            return [span for span in self.spans if span.name == name]

    def close(self) -> None:
        self.server.close()


@pytest.fixture
def collector() -> Iterator[Collector]:
    with Collector() as running:
        yield running


def attributes(span: Span) -> dict[str, Any]:
    return {item.key: item.value.string_value or item.value.int_value for item in span.attributes}


def test_serve_exports_a_request_span_with_its_sql_spans_to_the_collector(
    start_server: Callable[..., Any], collector: Collector
) -> None:
    """With ENGAGE_TRACING=on, a request reaches the OTLP endpoint as its route's span, carrying its
    request id, with the SQL statements it ran as spans of the same trace."""
    env = {
        "ENGAGE_TRACING": "on",
        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    }
    server = start_server(env=env)
    key = server.create_account("Traced")

    response = httpx.get(f"{server.base_url}/api/v1/contacts", headers={"X-Api-Key": key, "X-Request-Id": "otel-e2e-1"})
    assert response.status_code == 200

    def request_span() -> Span | None:
        spans = collector.named("GET /api/v1/contacts")
        mine = [span for span in spans if attributes(span).get("engage.request_id") == "otel-e2e-1"]
        return mine[0] if mine else None

    span = wait_for(request_span, "the request's span")
    statements = wait_for(
        lambda: [s for s in collector.spans if s.trace_id == span.trace_id and s.kind == Span.SPAN_KIND_CLIENT],
        "the request's SQL spans",
    )
    assert all(s.parent_span_id for s in statements)


def sample_sum(text: str, name: str, **labels: str) -> float:
    """The sum of the samples of `name` whose labels include `labels`."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and all(f'{key}="{value}"' in line for key, value in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_metrics_add_up_across_serve_workers(start_server: Callable[..., Any]) -> None:
    """With two worker processes, every scrape counts the requests both answered."""
    server = start_server("--workers", "2", env={"ENGAGE_METRICS": "on"})
    key = server.create_account("Counted")
    requests = 40
    with httpx.Client(base_url=server.base_url, headers={"X-Api-Key": key}) as client:
        for _ in range(requests):
            client.get("/api/v1/contacts", headers={"Connection": "close"})  # spread over the processes
        scrapes = [client.get("/metrics", headers={"Connection": "close"}).text for _ in range(4)]

    counts = {
        sample_sum(text, "engage_http_requests_total", route="/api/v1/contacts", status="200") for text in scrapes
    }
    assert counts == {float(requests)}


def test_the_standalone_worker_serves_its_metrics(make_outbox: MakeOutbox, start_worker: StartWorker) -> None:
    """`engage worker --metrics-port` serves `/metrics`: its deliveries and the queue's depth."""
    outbox = make_outbox()
    port = free_port()
    start_worker(outbox.database_url, "--metrics-port", str(port), env={"ENGAGE_METRICS": "on"})

    def delivered() -> str | None:
        try:
            text = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        except httpx.TransportError:
            return None
        return text if sample_sum(text, "engage_webhook_deliveries_total", outcome="delivered") >= 1 else None

    text = wait_for(delivered, "the worker's delivery to be counted")
    assert "engage_webhook_queue_depth" in text
