"""OpenTelemetry tracing (`ENGAGE_TRACING=on`; needs the `tracing` extra).

On, every HTTP request is a server span named by its method and route template
(`GET /api/v1/contacts/{id:id}`, never the path requested, so ids do not multiply span names) with
the request id as `engage.request_id`; every SQL statement is a child span (the SQLAlchemy
instrumentation, on engage's engine only); every webhook attempt is a client span of its own
(`webhook.send`, with the receiver's host and the answer's status, never the URL's path, query,
headers or body). Spans go to the tracer provider the process has: one set up by
`opentelemetry-instrument`, or by a host application that embeds engage. When there is none, engage
sets one up that exports OTLP over HTTP as the standard `OTEL_*` variables say
(`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_SERVICE_NAME`, ...), with the service name `engage` unless
`OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` names one.

Off (the default) this module is never imported, and nothing of OpenTelemetry is.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from opentelemetry import trace
from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
from opentelemetry.instrumentation.sqlalchemy.engine import EngineTracer
from opentelemetry.metrics import NoOpMeterProvider
from opentelemetry.trace import SpanKind, Status, StatusCode, TracerProvider
from starlette.routing import Match, Router
from starlette.types import ASGIApp, Scope

from engage_core.webhooks.model import Outcome
from engage_core.webhooks.ports import WebhookSender
from engage_http.request_id import REQUEST_ID

if TYPE_CHECKING:  # the composition root hands over the storage's engine
    from sqlalchemy.engine import Engine

SERVICE_NAME = "engage"
"""The service name of the spans when the environment names none."""

INSTRUMENTATION_NAME = "engage"

REQUEST_ID_ATTRIBUTE = "engage.request_id"


def tracer_provider() -> TracerProvider:
    """The process's tracer provider, after setting up the OTLP exporting one when there is none.

    "None" is OpenTelemetry's proxy provider, which stays in place until someone sets a real one."""
    current = trace.get_tracer_provider()
    if not isinstance(current, trace.ProxyTracerProvider):
        return current
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    named = "OTEL_SERVICE_NAME" in os.environ or "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    resource = Resource.create({} if named else {"service.name": SERVICE_NAME})
    provider = SdkTracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return trace.get_tracer_provider()


class Tracing:
    """Where engage's spans go: `provider` (the process's, see `tracer_provider`, when not given)."""

    def __init__(self, provider: TracerProvider | None = None) -> None:
        self.provider = provider or tracer_provider()
        self.tracer = self.provider.get_tracer(INSTRUMENTATION_NAME)

    def asgi(self, app: ASGIApp, router: Router) -> ASGIApp:
        """`app` with a server span around each HTTP request, named after the route of `router` it matches.

        OpenTelemetry's own metrics are left out (`/metrics` counts requests when it is on)."""
        return OpenTelemetryMiddleware(
            app,
            default_span_details=lambda scope: span_details(router, scope),
            server_request_hook=_tag_request_id,
            exclude_spans=["receive", "send"],  # a span per ASGI message says nothing an operator needs
            tracer_provider=self.provider,
            meter_provider=NoOpMeterProvider(),
        )

    def engine(self, engine: Engine) -> None:
        """A span for each statement `engine` runs (on this engine only: nothing is patched globally)."""
        # What `SQLAlchemyInstrumentor().instrument(engine=...)` builds: the instrumentor itself is
        # once per process (a second app's engine would go untraced) and also patches `create_engine`.
        meter = NoOpMeterProvider().get_meter(INSTRUMENTATION_NAME)
        usage = meter.create_up_down_counter("db.client.connections.usage")
        EngineTracer(self.tracer, engine, usage)  # type: ignore[no-untyped-call]

    def sender(self, sender: WebhookSender) -> WebhookSender:
        """`sender` with a client span around each attempt."""
        return TracedSender(sender, self.tracer)


def span_details(router: Router, scope: Scope) -> tuple[str, dict[str, Any]]:
    """The span's name and attributes: `METHOD template` and `http.route` for a path a route
    matches; the method alone (no path: it may hold ids) for one no route matches."""
    method = scope.get("method", "HTTP")
    for route in router.routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            template: str = getattr(route, "path", "")
            return f"{method} {template}", {"http.route": template}
    return method, {}


def _tag_request_id(span: trace.Span, scope: Mapping[str, Any]) -> None:
    if span.is_recording():
        span.set_attribute(REQUEST_ID_ATTRIBUTE, REQUEST_ID.get())


class TracedSender:
    """A `WebhookSender` whose attempts are client spans. The URL's host only: its path and query may
    hold a receiver's token."""

    def __init__(self, sender: WebhookSender, tracer: trace.Tracer) -> None:
        self._sender = sender
        self._tracer = tracer

    def send(self, url: str, headers: Mapping[str, str], body: bytes) -> Outcome:
        with self._tracer.start_as_current_span("webhook.send", kind=SpanKind.CLIENT) as span:
            span.set_attribute("http.request.method", "POST")
            span.set_attribute("server.address", urlsplit(url).hostname or "")
            outcome = self._sender.send(url, headers, body)
            if outcome.status_code is not None:
                span.set_attribute("http.response.status_code", outcome.status_code)
            if not outcome.succeeded:
                span.set_status(Status(StatusCode.ERROR, outcome.error or f"HTTP {outcome.status_code}"))
            return outcome

    def close(self) -> None:
        close = getattr(self._sender, "close", None)
        if close is not None:
            close()
