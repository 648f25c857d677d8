"""Prometheus metrics at `GET /metrics` (`ENGAGE_METRICS=on`; needs the `metrics` extra, `prometheus-client`).

Off, this module is never imported and nothing is measured. On, `MetricsMiddleware` counts each HTTP
request and times it by method and route template (the Starlette route's path, so ids never become
labels; a path no route matches is `unmatched`), the delivery worker reports each attempt's outcome
to `Metrics.delivery_outcome`, and each scrape reads the webhook queue's depth and the age of its
oldest due attempt from the database. `/metrics` sits outside `/api/v1` like `/health`: no workspace
key, not rate limited, not in the OpenAPI document; with a token it asks for `Authorization: Bearer`.
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engage_http import envelope
from engage_http.health import NO_STORE

logger = logging.getLogger("engage.metrics")

UNMATCHED = "unmatched"
CHALLENGE = {**NO_STORE, "WWW-Authenticate": "Bearer"}

Backlog = Callable[[], tuple[int, datetime | None]]
"""The webhook attempts waiting and the earliest due moment among them (blocking: it reads the database)."""


class Metrics:
    """The metrics of one app, in a registry of its own (two apps in one process never collide)."""

    def __init__(
        self,
        *,
        token: str | None = None,
        backlog: Backlog | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.token = token
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "engage_http_requests",
            "HTTP requests answered, by method, route template and status code.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "engage_http_request_duration_seconds",
            "Seconds from a request's arrival to the end of its response, by method and route template.",
            ["method", "route"],
            registry=self.registry,
        )
        self.deliveries = Counter(
            "engage_webhook_deliveries",
            "Webhook attempts sent by this process's worker, by outcome (delivered, retry, failed, not-recorded).",
            ["outcome"],
            registry=self.registry,
        )
        self._now = now
        if backlog is not None:
            self.watch_backlog(backlog)

    def watch_backlog(self, backlog: Backlog) -> None:
        """Read the webhook queue's depth and oldest due age through `backlog` at each scrape."""
        self.registry.register(QueueCollector(backlog, self._now))

    def delivery_outcome(self, outcome: str) -> None:
        """Count one attempt's outcome (the delivery worker's `on_attempt`; any thread)."""
        self.deliveries.labels(outcome).inc()

    def exposition(self) -> bytes:
        """The metrics in Prometheus's text format (blocking: the queue's metrics read the database)."""
        return generate_latest(self.registry)


class QueueCollector(Collector):
    """`engage_webhook_queue_depth` and `engage_webhook_oldest_due_age_seconds`, read at each scrape.
    When the database does not answer they are left out of that scrape (and the failure logged)."""

    def __init__(self, backlog: Backlog, now: Callable[[], datetime]) -> None:
        self._backlog = backlog
        self._now = now

    def describe(self) -> Iterator[GaugeMetricFamily]:
        return iter(())  # nothing read at registration: the database may not be migrated yet

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            depth, earliest = self._backlog()
        except Exception as exc:  # a scrape must not fail because the database is down
            logger.warning("The webhook queue could not be read for metrics: %s", type(exc).__name__)
            return
        age = 0.0 if earliest is None else max(0.0, (self._now() - earliest).total_seconds())
        yield GaugeMetricFamily(
            "engage_webhook_queue_depth", "Webhook attempts waiting to be sent (due or not).", value=depth
        )
        yield GaugeMetricFamily(
            "engage_webhook_oldest_due_age_seconds",
            "Seconds the oldest due webhook attempt has waited past its due time (0: none is due).",
            value=age,
        )


class MetricsMiddleware:
    """Counts and times each HTTP request under its route template. Pure ASGI: no body buffering."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client gets when the app raises before answering

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            route = getattr(scope.get("route"), "path", None) or UNMATCHED
            method = scope["method"]
            self.metrics.requests.labels(method, route, str(status)).inc()
            self.metrics.latency.labels(method, route).observe(time.perf_counter() - started)


def routes(metrics: Metrics) -> list[Route]:
    """`GET /metrics` (and HEAD)."""

    async def scrape(request: Request) -> Response:
        if metrics.token is not None and not _bearer_matches(request, metrics.token):
            return envelope.error(401, "Unauthenticated. Provide the metrics token.", headers=CHALLENGE)
        body = await run_in_threadpool(metrics.exposition)
        return Response(body, media_type=CONTENT_TYPE_LATEST, headers=NO_STORE)

    return [Route("/metrics", scrape, methods=["GET"], name="metrics")]


def _bearer_matches(request: Request, token: str) -> bool:
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())
