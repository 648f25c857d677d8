"""Factories for end-to-end tests: real `engage` processes on loopback, always stopped afterwards.

`start_server()` runs `engage serve`; `start_worker(database_url)` runs `engage worker`, trusting the
test CA and allowed to reach 127.0.0.1; `make_outbox(events)` queues `contact.created` deliveries, in
a database of their own, for a subscription to a local receiver through the real services.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import attrs
import pytest
from engage_process import engage_command, free_port, stop, wait_until_ready
from receiver import Answer, MakeReceiver
from worker_processes import SECRET_KEY, MakeOutbox, Outbox, StartWorker, WorkerProcess, worker_settings

from engage_core.contacts.model import ContactDraft
from engage_core.kernel.clock import SystemClock
from engage_core.kernel.events import DomainEvent
from engage_core.webhooks.service import WebhookInput
from engage_http.bootstrap import build_services
from engage_sql import Database


@attrs.frozen
class Server:
    """A running `engage serve` and the database it uses."""

    base_url: str
    database_url: str
    process: subprocess.Popen[bytes]
    log: Path

    def engage(self, *args: str) -> str:
        """Run another `engage` command against the same database; its stdout."""
        completed = subprocess.run(
            [*engage_command(), "--database-url", self.database_url, *args],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr
        return completed.stdout

    def create_account(self, name: str = "E2E") -> str:
        """A new account's API key, via `engage accounts create --json`."""
        api_key: str = json.loads(self.engage("accounts", "create", "--name", name, "--json"))["api_key"]
        return api_key


@pytest.fixture(scope="module")
def start_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., Server]]:
    """`start_server("--workers", "2", env={...})` starts `engage serve` on a free port with a fresh
    SQLite file, with no `ENGAGE_*` variable but those of `env`."""
    started: list[subprocess.Popen[bytes]] = []

    def start(*serve_args: str, env: dict[str, str] | None = None) -> Server:
        directory = tmp_path_factory.mktemp("engage-e2e")
        database_url = f"sqlite:///{directory / 'engage.db'}"
        port = free_port()
        log = directory / "server.log"
        environment = {k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")} | (env or {})
        with log.open("wb") as out:
            process = subprocess.Popen(
                [
                    *engage_command(),
                    "--database-url",
                    database_url,
                    "serve",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    *serve_args,
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=environment,
                start_new_session=True,
            )
        started.append(process)
        base_url = f"http://127.0.0.1:{port}"
        wait_until_ready(process, base_url, log)
        return Server(base_url=base_url, database_url=database_url, process=process, log=log)

    try:
        yield start
    finally:
        for process in started:
            stop(process)


# -- engage worker ---------------------------------------------------------------------------------


@pytest.fixture
def start_worker(tmp_path: Path, ca_file: Path) -> Iterator[StartWorker]:
    """`start_worker(database_url, *worker_args, env={}) -> WorkerProcess` runs `engage --database-url URL
    worker ...` with SSL_CERT_FILE set to the test CA and ENGAGE_WEBHOOK_ALLOWED_HOSTS=127.0.0.1 (plus
    ENGAGE_SECRET_KEY on PostgreSQL). Every worker still running after the test is killed."""
    started: list[WorkerProcess] = []

    def start(database_url: str, *worker_args: str, env: dict[str, str] | None = None) -> WorkerProcess:
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("ENGAGE_", "SSL_CERT_"))}
        environment |= {"SSL_CERT_FILE": str(ca_file), "ENGAGE_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1"}
        if not database_url.startswith("sqlite"):
            environment["ENGAGE_SECRET_KEY"] = SECRET_KEY
        environment |= env or {}
        log = tmp_path / f"worker-{len(started)}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [*engage_command(), "--database-url", database_url, "worker", *worker_args],
                stdout=out,
                stderr=subprocess.STDOUT,
                env=environment,
            )
        worker = WorkerProcess(process, log)
        started.append(worker)
        return worker

    try:
        yield start
    finally:
        for worker in started:
            worker.kill()


@pytest.fixture
def make_outbox(make_database_url: Callable[..., str], make_receiver: MakeReceiver) -> Iterator[MakeOutbox]:
    """`make_outbox(events=1, delay=0.0) -> Outbox`: a new database and an HTTPS receiver answering 200
    after `delay` seconds; in the database a new account subscribed to `receiver.url("/hook")` for
    `contact.created`, then `events` contacts added in one unit of work, each emitting
    `contact.created`, so `events` deliveries are queued at once."""
    opened: list[Database] = []

    def make(events: int = 1, *, delay: float = 0.0) -> Outbox:
        receiver = make_receiver()
        receiver.answer_with(Answer(200, delay=delay))
        database_url = make_database_url()
        database = Database.connect(database_url)
        opened.append(database)
        services = build_services(worker_settings(database), database)
        account_id = services.accounts.create("Outbox").account.id
        hook = services.webhooks.create(
            account_id, WebhookInput("Receiver", receiver.url("/hook"), ["contact.created"])
        )
        names = tuple(f"Contact {n}" for n in range(events))
        now = SystemClock().now()
        with database.uow.workspace(account_id) as uow:
            for name in names:
                contact = uow.contacts.add(ContactDraft(name=name, type="instagram"), now)
                uow.emit(DomainEvent("contact.created", contact.event_payload(), now))
            uow.commit()
        return Outbox(database_url, receiver, database, account_id, hook.subscription.id, hook.secret, names)

    yield make
    for database in opened:
        database.dispose()
