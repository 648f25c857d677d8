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
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engage_http import envelope
from engage_http.health import NO_STORE

logger = logging.getLogger("engage.metrics")

UNMATCHED = "unmatched"
SHARED_DIRECTORY_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
CHALLENGE = {**NO_STORE, "WWW-Authenticate": "Bearer"}

Backlog = Callable[[], tuple[int, datetime | None]]
"""The webhook attempts waiting and the earliest due moment among them (blocking: it reads the database)."""

JobBacklog = Callable[[datetime], Sequence[tuple[str, int, datetime | None]]]
"""Per job kind: the unfinished jobs and the earliest due moment among the queued ones (`JobQueue.backlog`)."""


class Metrics:
    """The metrics of one app, in a registry of its own (two apps in one process never collide)."""

    def __init__(
        self,
        *,
        token: str | None = None,
        backlog: Backlog | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        shared_directory: str | None = None,
    ) -> None:
        self.token = token
        self.registry = CollectorRegistry(auto_describe=True)
        # With a shared directory (`PROMETHEUS_MULTIPROC_DIR`, read by prometheus_client when it is
        # first imported), the values live in files there and a scrape reads every process's.
        self._shared = None if shared_directory is None else CollectorRegistry()
        if self._shared is not None:
            MultiProcessCollector(self._shared, path=shared_directory)  # type: ignore[no-untyped-call]
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
        self.jobs = Counter(
            "engage_jobs",
            "Jobs run by this process's worker, by kind and outcome (succeeded, failed, retry, deferred, lost).",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self._now = now
        if backlog is not None:
            self.watch_backlog(backlog)

    def watch_backlog(self, backlog: Backlog) -> None:
        """Read the webhook queue's depth and oldest due age through `backlog` at each scrape."""
        (self._shared or self.registry).register(QueueCollector(backlog, self._now))

    def watch_jobs(self, backlog: JobBacklog) -> None:
        """Read the job queue's depth and oldest due age by kind through `backlog` at each scrape."""
        (self._shared or self.registry).register(JobQueueCollector(backlog, self._now))

    def job_outcome(self, kind: str, outcome: str) -> None:
        """Count one job run's outcome (the job runner's `on_outcome`; any thread)."""
        self.jobs.labels(kind, outcome).inc()

    def delivery_outcome(self, outcome: str) -> None:
        """Count one attempt's outcome (the delivery worker's `on_attempt`; any thread)."""
        self.deliveries.labels(outcome).inc()

    def exposition(self) -> bytes:
        """The metrics in Prometheus's text format (blocking: the queue's metrics read the database)."""
        return generate_latest(self._shared or self.registry)

    @classmethod
    def from_environment(cls, *, token: str | None = None) -> Metrics:
        """Metrics shared through `PROMETHEUS_MULTIPROC_DIR` when it is set, else this process's own."""
        return cls(token=token, shared_directory=os.environ.get(SHARED_DIRECTORY_VARIABLE) or None)


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


class JobQueueCollector(Collector):
    """`engage_job_queue_depth{kind}` and `engage_job_oldest_due_age_seconds{kind}`, read at each
    scrape; left out of a scrape when the database does not answer."""

    def __init__(self, backlog: JobBacklog, now: Callable[[], datetime]) -> None:
        self._backlog = backlog
        self._now = now

    def describe(self) -> Iterator[GaugeMetricFamily]:
        return iter(())  # nothing read at registration: the database may not be migrated yet

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            now = self._now()
            rows = self._backlog(now)
        except Exception as exc:  # a scrape must not fail because the database is down
            logger.warning("The job queue could not be read for metrics: %s", type(exc).__name__)
            return
        depth = GaugeMetricFamily(
            "engage_job_queue_depth", "Unfinished jobs (queued or running), by kind.", labels=["kind"]
        )
        age = GaugeMetricFamily(
            "engage_job_oldest_due_age_seconds",
            "Seconds the oldest due queued job of a kind has waited past its due time (0: none is due).",
            labels=["kind"],
        )
        for kind, count, earliest in rows:
            depth.add_metric([kind], count)
            age.add_metric([kind], 0.0 if earliest is None else max(0.0, (now - earliest).total_seconds()))
        yield depth
        yield age


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


class MetricsServer:
    """`GET /metrics` on a port of its own, for a process that serves no API (`engage worker`):
    uvicorn on a thread, answering nothing else (404)."""

    START_TIMEOUT_SECONDS = 30.0

    def __init__(self, metrics: Metrics, host: str, port: int) -> None:
        import uvicorn

        app = Starlette(routes=routes(metrics))
        config = uvicorn.Config(app, host=host, port=port, lifespan="off", access_log=False, log_config=None)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="engage-metrics-server", daemon=True)
        self.address = f"{host}:{port}"

    def start(self) -> None:
        """Listen; raises `OSError` when the address cannot be bound (uvicorn logs why)."""
        self._thread.start()
        deadline = time.monotonic() + self.START_TIMEOUT_SECONDS
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"The metrics server could not listen on {self.address}.")
            time.sleep(0.02)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10.0)
