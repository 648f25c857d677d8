"""`engage worker`: migrate, then deliver webhooks and run jobs (website crawls) until SIGTERM or SIGINT.

The same delivery worker `engage serve` runs in-process (`engage_http.worker.start_delivery_worker`),
with the same cipher (`engage_http.secret_key.secret_cipher`: `ENGAGE_SECRET_KEY`, or on SQLite the
development key file beside the database) and the same sender. The first SIGTERM or SIGINT stops
claiming, lets the sends in progress finish (each ends within `ENGAGE_WEBHOOK_TIMEOUT`) and records
them, then exits 0. A second signal exits at once, with status 1: what was in flight keeps its
lease, which expires, and is sent again by the next worker (at least once, same `delivery_id`).

Beside it runs the job runner (`engage_http.worker.start_job_runner`) with the handlers the services
declare: a stop tells the job in progress, which stores its progress and is resumed by the next
worker (a crawl goes on from the pages it stored).

Each attempt is logged on one line of stderr (`engage_core.webhooks.delivery`), without URL, secret,
signature or body. With `ENGAGE_METRICS=on` and `--metrics-port`, the worker serves `GET /metrics`
(its delivery outcomes and the queue's depth); with `ENGAGE_TRACING=on`, its SQL statements and
attempts are OpenTelemetry spans.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING

import attrs
import click

from engage_cli.commands.serve import check_logging
from engage_cli.context import CliState, pass_state
from engage_cli.errors import redact
from engage_core.settings import Settings
from engage_core.webhooks.ports import WebhookSender

if TYPE_CHECKING:  # imported only when metrics are on: `prometheus_client` is an optional extra
    from engage_http.metrics import Metrics, MetricsServer

STOP_MARGIN_SECONDS = 10.0
"""How long past `ENGAGE_WEBHOOK_TIMEOUT` a stop waits for the sends in progress to be recorded."""

log = logging.getLogger("engage.worker")


@click.command()
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Deliveries sent at once. [default: ENGAGE_WORKER_CONCURRENCY, else 4]",
)
@click.option(
    "--metrics-port",
    type=click.IntRange(1, 65535),
    default=None,
    envvar="ENGAGE_WORKER_METRICS_PORT",
    metavar="PORT",
    help="With ENGAGE_METRICS=on, serve GET /metrics on this port. [env: ENGAGE_WORKER_METRICS_PORT]",
)
@click.option(
    "--metrics-host",
    default="127.0.0.1",
    show_default=True,
    envvar="ENGAGE_WORKER_METRICS_HOST",
    help="Interface the metrics port binds. [env: ENGAGE_WORKER_METRICS_HOST]",
)
@pass_state
def worker(state: CliState, concurrency: int | None, metrics_port: int | None, metrics_host: str) -> None:
    """Apply pending migrations, then deliver webhooks.

    Runs until SIGTERM or SIGINT, then finishes the deliveries in progress and exits. Run it next to
    `engage serve --no-worker`, or several of it against one PostgreSQL database.
    """
    settings = state.settings()
    if concurrency is not None:
        settings = attrs.evolve(settings, worker_concurrency=concurrency)
    _check(settings)
    if metrics_port is not None and not settings.metrics:
        raise click.ClickException("--metrics-port needs ENGAGE_METRICS=on.")

    from engage_http import logs
    from engage_http.bootstrap import (
        build_metrics,
        build_services,
        build_tracing,
        delivery_gate,
        traced,
    )
    from engage_http.secret_key import secret_cipher
    from engage_http.worker import JobRunnerHandle, start_delivery_worker, start_job_runner

    try:
        metrics = build_metrics(settings)
        tracing = build_tracing(settings)
    except RuntimeError as exc:  # an optional extra that is not installed
        raise click.ClickException(str(exc)) from exc

    with logs.logging_to(settings.log_level, settings.log_format), _signals_set(threading.Event()) as stop:
        try:
            cipher = secret_cipher(settings, state.database())
        except ValueError as exc:  # a key too short, or a damaged development key file
            raise click.ClickException(f"Invalid configuration: {exc}") from exc
        except OSError as exc:  # the development key file cannot be written beside the database
            raise click.ClickException(
                f"Cannot create the development key file beside the database ({exc.strerror or exc}): "
                "check the database path, or set ENGAGE_SECRET_KEY."
            ) from exc
        applied = state.migrate()
        where = redact(state.database_url)
        log.info(f"Database {where}: applied {', '.join(applied)}." if applied else f"Database {where} is up to date.")
        database = state.database()
        if tracing is not None:
            tracing.engine(database.engine)
        metrics_server = None
        if metrics is not None:
            metrics.watch_backlog(database.webhook_backlog)
            metrics.watch_jobs(database.job_queue().backlog)
            if metrics_port is None:
                log.warning("ENGAGE_METRICS=on but no --metrics-port: this worker's metrics are not served.")
            else:
                metrics_server = _serve_metrics(metrics, metrics_host, metrics_port)
        handle = start_delivery_worker(
            database.delivery_queue(),
            cipher,
            settings,
            gate=delivery_gate(settings, database),
            outbound=None if tracing is None else traced(tracing, _as_is),
            on_attempt=None if metrics is None else metrics.delivery_outcome,
        )
        handlers = build_services(settings, database).job_handlers()
        runner: JobRunnerHandle | None = None
        if handlers:
            runner = start_job_runner(
                database.job_queue(),
                handlers,
                lease_seconds=settings.job_lease_seconds,
                on_outcome=None if metrics is None else metrics.job_outcome,
            )
        try:
            log.info(
                "Delivering webhooks from %s (timeout %g s, lease %g s). Stop with SIGTERM or Ctrl+C.",
                where,
                settings.webhook_timeout_seconds,
                settings.webhook_lease_seconds,
            )
            while not stop.wait(1.0):
                if not handle.running:  # run_until outlives queue failures: this is only a safety net
                    raise click.ClickException("The delivery worker ended unexpectedly.")
                if runner is not None and not runner.running:
                    raise click.ClickException("The job runner ended unexpectedly.")
            log.info("Stopping: finishing the deliveries in progress.")
        finally:
            grace = settings.webhook_timeout_seconds + STOP_MARGIN_SECONDS
            stopped = runner is None or runner.stop(timeout=grace)
            stopped = handle.stop(timeout=grace) and stopped
            if metrics_server is not None:
                metrics_server.stop()
        if not stopped:
            raise click.ClickException(
                f"The worker did not stop within {grace:g} s; "
                "the attempts in flight will be sent again when their lease ends."
            )
        log.info("Stopped.")


def _serve_metrics(metrics: Metrics, host: str, port: int) -> MetricsServer:
    from engage_http.metrics import MetricsServer

    server = MetricsServer(metrics, host, port)
    try:
        server.start()
    except OSError as exc:
        raise click.ClickException(str(exc)) from exc
    log.info("Serving metrics on http://%s/metrics.", server.address)
    return server


def _as_is(sender: WebhookSender, _name: str) -> WebhookSender:
    return sender


def _check(settings: Settings) -> None:
    check_logging(settings)
    if settings.webhook_lease_seconds <= settings.webhook_timeout_seconds:
        raise click.ClickException(
            f"ENGAGE_WEBHOOK_LEASE ({settings.webhook_lease_seconds:g} s) must be greater than "
            f"ENGAGE_WEBHOOK_TIMEOUT ({settings.webhook_timeout_seconds:g} s): a send must end before its lease "
            "does, or another worker sends the same attempt at the same time."
        )


@contextlib.contextmanager
def _signals_set(stop: threading.Event) -> Iterator[threading.Event]:
    """While the block runs, the first SIGTERM or SIGINT sets `stop`; a second one exits at once
    with status 1. The previous handlers are restored afterwards."""

    def handle(signum: int, _frame: FrameType | None) -> None:
        if not stop.is_set():
            stop.set()
            return
        log.warning(
            "%s again: exiting now; the attempts in flight will be sent again when their lease ends.",
            signal.Signals(signum).name,
        )
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)  # now: not even the send threads are waited for (their leases expire)

    previous = {signum: signal.signal(signum, handle) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
