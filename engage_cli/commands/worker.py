"""`engage worker`: migrate, then deliver webhooks until SIGTERM or SIGINT.

The same delivery worker `engage serve` runs in-process (`engage_http.worker.start_delivery_worker`),
with the same cipher (`engage_http.bootstrap.secret_cipher`: `ENGAGE_SECRET_KEY`, or on SQLite the
development key file beside the database) and the same sender. The first SIGTERM or SIGINT stops
claiming, lets the sends in progress finish (each ends within `ENGAGE_WEBHOOK_TIMEOUT`) and records
them, then exits 0. A second signal exits at once, with status 1: what was in flight keeps its
lease, which expires, and is sent again by the next worker (at least once, same `delivery_id`).

Each attempt is logged on one line of stderr (`engage_core.webhooks.delivery`), without URL, secret,
signature or body.
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

import attrs
import click

from engage_cli.commands.serve import check_logging
from engage_cli.context import CliState, pass_state
from engage_cli.errors import redact
from engage_core.settings import Settings

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
@pass_state
def worker(state: CliState, concurrency: int | None) -> None:
    """Apply pending migrations, then deliver webhooks.

    Runs until SIGTERM or SIGINT, then finishes the deliveries in progress and exits. Run it next to
    `engage serve --no-worker`, or several of it against one PostgreSQL database.
    """
    settings = state.settings()
    if concurrency is not None:
        settings = attrs.evolve(settings, worker_concurrency=concurrency)
    _check(settings)

    from engage_http import logs
    from engage_http.bootstrap import delivery_gate, secret_cipher
    from engage_http.worker import start_delivery_worker

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
        handle = start_delivery_worker(
            database.delivery_queue(), cipher, settings, gate=delivery_gate(settings, database)
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
            log.info("Stopping: finishing the deliveries in progress.")
        finally:
            grace = settings.webhook_timeout_seconds + STOP_MARGIN_SECONDS
            stopped = handle.stop(timeout=grace)
        if not stopped:
            raise click.ClickException(
                f"The worker did not stop within {grace:g} s; "
                "the attempts in flight will be sent again when their lease ends."
            )
        log.info("Stopped.")


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
