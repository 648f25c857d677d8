"""`engage serve`: migrate, then run the HTTP service under uvicorn."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import attrs
import click

from engage_cli.context import CliState, pass_state
from engage_cli.errors import redact
from engage_core.settings import Settings
from engage_core.team.service import MemberInput

GRACEFUL_SHUTDOWN_SECONDS = 20
"""On SIGTERM, requests in flight get this long to finish before they are cut: web chat's live streams
never finish on their own, and would otherwise hold a stopping server forever."""

APP_FACTORY = "engage_http.bootstrap:app_factory"
"""Import string uvicorn's process manager loads in every worker process (`--workers` > 1)."""

LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
LOG_FORMATS = ("text", "json")

log = logging.getLogger("engage.serve")
DEMO_ACCOUNT_NAME = "Demo"
DEMO_ADMIN_EMAIL = "admin@demo.example"


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", default=8000, type=click.IntRange(1, 65535), show_default=True, help="TCP port to bind.")
@click.option(
    "--workers",
    default=1,
    type=click.IntRange(min=1),
    show_default=True,
    metavar="N",
    help=f"HTTP worker processes. Above 1, each process builds the app from {APP_FACTORY}.",
)
@click.option(
    "--no-worker",
    is_flag=True,
    help="Do not run the background job worker inside this process (sets ENGAGE_RUN_WORKER=0).",
)
@click.option(
    "--access-log/--no-access-log",
    default=True,
    show_default=True,
    help="Log a line per request (uvicorn's access log). Behind a proxy that logs requests, turn it off.",
)
@click.option(
    "--demo",
    is_flag=True,
    help="When the database has no account yet, create a demo account and print its API key once.",
)
@pass_state
def serve(state: CliState, host: str, port: int, workers: int, no_worker: bool, access_log: bool, demo: bool) -> None:
    """Apply pending migrations, then serve the HTTP API."""
    settings = state.settings()
    if not (os.environ.get("ENGAGE_APP_URL") or "").strip():
        # Unset, the public address is where this server listens, so media and invitation links
        # reach it on any port (a wildcard address is reached on loopback here).
        reachable = "127.0.0.1" if host in WILDCARD_HOSTS else host
        settings = attrs.evolve(settings, app_url=f"http://{_bracketed(reachable)}:{port}")
    if no_worker:
        settings = attrs.evolve(settings, run_worker=False)
    check_logging(settings)
    from engage_http import logs

    with logs.logging_to(settings.log_level, settings.log_format):
        _serve(state, settings, host, port, workers, no_worker, access_log, demo)


WILDCARD_HOSTS = frozenset({"0.0.0.0", "::", ""})  # noqa: S104 (compared with, never bound)
"""Addresses that listen on every interface: no one address to give out."""


def _bracketed(host: str) -> str:
    """An IPv6 address in a URL goes in brackets."""
    return f"[{host}]" if ":" in host else host


def check_logging(settings: Settings) -> None:
    if settings.log_level not in LOG_LEVELS:
        raise click.ClickException(f"ENGAGE_LOG_LEVEL must be one of: {', '.join(LOG_LEVELS)}.")
    if settings.log_format not in LOG_FORMATS:
        raise click.ClickException(f"ENGAGE_LOG_FORMAT must be one of: {', '.join(LOG_FORMATS)}.")


def _serve(
    state: CliState,
    settings: Settings,
    host: str,
    port: int,
    workers: int,
    no_worker: bool,
    access_log: bool,
    demo: bool,
) -> None:
    from engage_http import logs
    from engage_http.bootstrap import check_settings
    from engage_http.secret_key import secret_cipher

    # Every setting is checked before the first migration: a server that cannot start migrates nothing.
    check_settings(settings)
    if workers > 1 or state.database().engine.dialect.name != "sqlite":
        secret_cipher(settings, state.database())  # fail here, once, not in every worker process
    if workers > 1 and settings.channels_gateway == "sandbox":
        _say(settings, SANDBOX_PER_PROCESS_WARNING, warning=True)
    applied = state.migrate()
    where = redact(state.database_url)
    _say(
        settings, f"Database {where}: applied {', '.join(applied)}." if applied else f"Database {where} is up to date."
    )
    if demo and state.database().is_empty():
        _create_demo_account(state, host, port)

    # Every process uvicorn starts, and the app itself, read their settings from the environment.
    os.environ["ENGAGE_DATABASE_URL"] = state.database_url
    os.environ["ENGAGE_APP_URL"] = settings.app_url
    if no_worker:
        os.environ["ENGAGE_RUN_WORKER"] = "0"

    import uvicorn

    if workers > 1:
        if not settings.redis_url:
            _say(settings, per_process_limits_warning(workers, settings.rate_limit), warning=True)
        state.close()
        with _shared_metrics(settings):
            uvicorn.run(
                APP_FACTORY,
                factory=True,
                host=host,
                port=port,
                workers=workers,
                log_level=settings.log_level,
                access_log=access_log,
                log_config=logs.uvicorn_config(settings.log_level, settings.log_format),  # each process applies it
                timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
            )
        return

    from engage_http.bootstrap import build_app

    app = build_app(settings, migrate=False)
    state.close()
    _stop_quietly_after_shutdown()
    # log_config=None: uvicorn keeps the handlers `logs.logging_to` installed in this process.
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=settings.log_level,
        access_log=access_log,
        log_config=None,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )


@contextlib.contextmanager
def _shared_metrics(settings: Settings) -> Iterator[None]:
    """With metrics on, the worker processes count into one directory (prometheus_client's
    multiprocess mode), so a scrape of any of them reports them all: `PROMETHEUS_MULTIPROC_DIR` when
    it is set, else a temporary directory removed afterwards. Emptied first: the values of an earlier
    run would be added to this one's."""
    if not settings.metrics:
        yield
        return
    from engage_http.metrics import SHARED_DIRECTORY_VARIABLE

    given = os.environ.get(SHARED_DIRECTORY_VARIABLE)
    directory = Path(given) if given else Path(tempfile.mkdtemp(prefix="engage-metrics-"))
    directory.mkdir(parents=True, exist_ok=True)
    for stale in directory.glob("*.db"):
        stale.unlink()
    os.environ[SHARED_DIRECTORY_VARIABLE] = str(directory)
    try:
        yield
    finally:
        if not given:
            shutil.rmtree(directory, ignore_errors=True)


def _say(settings: Settings, message: str, *, warning: bool = False) -> None:
    """A start-up message: echoed as it always was, or with JSON logs a log line like every other."""
    if settings.log_format == "json":  # no plain text among the JSON lines
        log.log(logging.WARNING if warning else logging.INFO, message)
    else:
        click.echo(message, err=warning)


def _stop_quietly_after_shutdown() -> None:
    """After its graceful shutdown, uvicorn raises the SIGTERM or SIGINT it caught again, with the
    handler that was in place before it ran; a shutdown that finished is a success (exit status 0)
    for service managers, so that handler does nothing."""
    for caught in (signal.SIGTERM, signal.SIGINT):
        signal.signal(caught, lambda number, frame: None)


SANDBOX_PER_PROCESS_WARNING = (
    "Warning: the sandbox channels gateway keeps its state in each process, so with several worker processes "
    "a scan or an injected message reaches only the process that received it. Run the sandbox with one "
    "process, or use ENGAGE_CHANNELS_GATEWAY=hosted (docs/channels.md)."
)


def per_process_limits_warning(workers: int, limit: int) -> str:
    """Said at start-up when several processes run without Redis: each counts requests on its own."""
    return (
        f"Warning: {workers} worker processes without ENGAGE_REDIS_URL: rate limits are counted per process, "
        f"so one key may make up to {workers * limit} requests per window instead of {limit}. "
        "Set ENGAGE_REDIS_URL to share the counts (docs/operations.md)."
    )


def _create_demo_account(state: CliState, host: str, port: int) -> None:
    services = state.services()
    issued = services.accounts.create(DEMO_ACCOUNT_NAME)
    password = secrets.token_urlsafe(12)
    services.team.create(issued.account.id, MemberInput("Demo admin", DEMO_ADMIN_EMAIL, "admin", password))
    base_url = f"http://{_client_host(host)}:{port}"
    click.echo("")
    click.echo(f"Created demo account {issued.account.id} ({issued.account.name}). Its API key, shown only this once:")
    click.echo("")
    click.echo(f"    {issued.api_key}")
    click.echo("")
    click.echo("Try it:")
    click.echo(f'    curl -H "X-Api-Key: {issued.api_key}" {base_url}/api/v1/contacts')
    click.echo("")
    click.echo(f"The dashboard: {base_url}/login as {DEMO_ADMIN_EMAIL}, password (shown only this once):")
    click.echo("")
    click.echo(f"    {password}")
    click.echo("")


def _client_host(host: str) -> str:
    """The address a client on this machine uses to reach `host`."""
    if host in ("0.0.0.0", ""):  # noqa: S104 - we only print this
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host
