"""Benchmark: webhook deliveries per second, the real worker against a plain httpx loop.

    .venv/bin/python -m bench.webhooks [--attempts 3000] [--concurrency 4] [--rounds 5]

A local HTTPS receiver (uvicorn, a trustme certificate, its own process) answers 200 to everything.
Each round queues `--attempts` contact.created deliveries on a SQLite database, then:

- baseline: a plain `httpx.Client` (one, shared) posts the same rendered bodies and headers from
  a ThreadPoolExecutor of `--concurrency` threads, verifying TLS against the same CA;
- engage: the real `DeliveryWorker` + `SqlDeliveryQueue` + `HttpWebhookSender` (SSRF guard, deadline,
  bounded read) with the same concurrency drains the queue: claim, decrypt, render and sign, send,
  record each attempt.

Both run in every round, one after the other, so a machine busy with something else slows both.
It prints deliveries per second of both and the ratio engage / baseline (medians over the rounds).
Target (issue 3): at least 0.70. It also prints the CPU time this process spent per delivery in
each (all its threads; the receiver's process not included): on a shared machine that swings much
less than the rates do.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import attrs
import httpx
import trustme
from sqlalchemy import select

from bench.harness import PYTHON, free_port, process
from engage_connectors.secrets import FernetCipher
from engage_connectors.ssrf import AddressPolicy
from engage_connectors.webhook_sender import HttpWebhookSender
from engage_core.kernel.clock import SystemClock, format_timestamp
from engage_core.kernel.events import DomainEvent
from engage_core.settings import Settings
from engage_core.webhooks.delivery import DeliveryWorker, render
from engage_core.webhooks.model import Claim, Completion, NextStep, Outcome
from engage_core.webhooks.service import WebhookInput
from engage_http.bootstrap import build_services
from engage_sql import Database
from engage_sql.webhooks.delivery_queue import SqlDeliveryQueue
from engage_sql.webhooks.tables import webhook_attempts

SECRET_KEY = "bench-secret-key-of-the-webhook-benchmark"  # noqa: S105 - a throwaway database
TARGET = 0.70


def contact_payload(n: int, now: str) -> dict[str, object]:
    """A contact.created `data` of the size and shape SPEC 6 lists."""
    return {
        "id": n,
        "name": f"Bench Contact {n}",
        "email": f"contact{n}@example.com",
        "phone": f"+9665{n:08d}",
        "type": "whatsapp",
        "status": "active",
        "is_blacklist": False,
        "source": "api",
        "company": "Example Trading Co.",
        "address": "King Fahd Road 1, Riyadh",
        "country_id": 194,
        "created_at": now,
        "updated_at": now,
    }


@contextmanager
def receiver(directory: Path) -> Iterator[tuple[str, ssl.SSLContext, Path]]:
    """The HTTPS receiver process: its hook URL, a client TLS context trusting it, and the CA file."""
    authority = trustme.CA()
    certificate = authority.issue_cert("127.0.0.1")
    key, chain, ca_file = directory / "key.pem", directory / "cert.pem", directory / "ca.pem"
    certificate.private_key_pem.write_to_path(str(key))
    certificate.cert_chain_pems[0].write_to_path(str(chain))
    authority.cert_pem.write_to_path(str(ca_file))
    context = ssl.create_default_context(cafile=str(ca_file))
    port = free_port()
    args = [PYTHON, "-m", "uvicorn", "bench.webhook_receiver:app", "--port", str(port), "--lifespan", "off"]
    args += ["--ssl-keyfile", str(key), "--ssl-certfile", str(chain), "--log-level", "warning", "--no-access-log"]
    with process(args):
        url = f"https://127.0.0.1:{port}/hook"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.post(url, content=b"{}", verify=context, timeout=1.0).raise_for_status()
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield url, context, ca_file


class CountingQueue:
    """The worker's queue, telling when `expect(n)` attempts have been recorded."""

    def __init__(self, queue: SqlDeliveryQueue) -> None:
        self._queue = queue
        self._lock = threading.Lock()
        self._left = 0
        self.done = threading.Event()

    def expect(self, count: int) -> None:
        self._left = count
        self.done.clear()

    def claim(self, now: datetime, lease_seconds: float, limit: int) -> Sequence[Claim]:
        return self._queue.claim(now, lease_seconds, limit)

    def complete(self, claim: Claim, outcome: Outcome, step: NextStep, now: datetime) -> bool:
        recorded = self._queue.complete(claim, outcome, step, now)
        self._count(recorded)
        return recorded

    def _count(self, recorded: int) -> None:
        with self._lock:
            self._left -= recorded
            if self._left == 0:
                self.done.set()

    def complete_and_claim(
        self,
        completions: Sequence[Completion],
        now: datetime,
        lease_seconds: float,
        limit: int,
        *,
        release: Sequence[Claim] = (),
    ) -> tuple[Sequence[bool], Sequence[Claim]]:
        recorded, claims = self._queue.complete_and_claim(completions, now, lease_seconds, limit, release=release)
        self._count(sum(recorded))
        return recorded, claims

    def close(self) -> None:
        self._queue.close()


@attrs.frozen
class Run:
    """One way of delivering, in one round: deliveries per second, and CPU microseconds per delivery."""

    rate: float
    cpu_us: float

    @classmethod
    def of(cls, deliveries: int, seconds: float, cpu_seconds: float) -> Run:
        return cls(deliveries / seconds, cpu_seconds / deliveries * 1e6)


class Bench:
    """One database (SQLite unless told) with one subscription to the receiver, and both ways of delivering to it."""

    def __init__(
        self, directory: Path, url: str, context: ssl.SSLContext, concurrency: int, database_url: str | None = None
    ) -> None:
        settings = Settings(
            database_url=database_url or f"sqlite:///{directory / 'bench.db'}",
            secret_key=SECRET_KEY,
            webhook_allowed_hosts="127.0.0.1",
        )
        self.database = Database.connect(settings.database_url)
        self.database.upgrade()
        services = build_services(settings, self.database)
        self.account_id = services.accounts.create("Bench").account.id
        hook = services.webhooks.create(self.account_id, WebhookInput("Bench", url, ["contact.created"]))
        self.url, self.secret = url, hook.secret
        self.cipher = FernetCipher(SECRET_KEY)
        self.concurrency = concurrency
        self.sender = HttpWebhookSender(AddressPolicy.from_setting(settings.webhook_allowed_hosts), timeout=30.0)
        self.queue = CountingQueue(self.database.delivery_queue())
        self.worker = DeliveryWorker(
            self.queue, self.sender, self.cipher, SystemClock(), concurrency=concurrency, timeout_seconds=30.0
        )
        self.client = httpx.Client(verify=context, timeout=30.0)
        self.pool = ThreadPoolExecutor(concurrency)

    def enqueue(self, attempts: int) -> None:
        now = SystemClock().now()
        with self.database.uow.workspace(self.account_id) as uow:
            for n in range(attempts):
                uow.emit(DomainEvent("contact.created", contact_payload(n, format_timestamp(now)), now))
            uow.commit()

    def rendered(self) -> list[tuple[dict[str, str], bytes]]:
        """The headers and body of every pending attempt, as the worker would render them now."""
        a = webhook_attempts.c
        with self.database.engine.connect() as connection:
            rows = connection.execute(select(webhook_attempts).where(a.status == "pending").order_by(a.id)).all()
        now = SystemClock().now()
        return [
            render(
                Claim(
                    row.id,
                    "",
                    row.kind,
                    row.owner_id,
                    row.webhook_id,
                    self.url,
                    "",
                    row.event_type,
                    row.payload,
                    row.delivery_id,
                    row.attempt_number,
                ),
                self.secret,
                int(now.timestamp()),
                format_timestamp(now),
            )
            for row in rows
        ]

    def baseline(self, requests: list[tuple[dict[str, str], bytes]]) -> Run:
        """Deliveries per second of the plain httpx loop."""

        def post(request: tuple[dict[str, str], bytes]) -> None:
            headers, body = request
            self.client.post(self.url, headers=headers, content=body).raise_for_status()

        started, cpu = time.perf_counter(), time.process_time()
        list(self.pool.map(post, requests))
        return Run.of(len(requests), time.perf_counter() - started, time.process_time() - cpu)

    def engage(self, attempts: int) -> Run:
        """Deliveries per second of the worker draining the queue, as `engage worker` runs it."""
        self.queue.expect(attempts)
        stop = threading.Event()
        thread = threading.Thread(target=self.worker.run_until, args=(stop,), kwargs={"idle_seconds": 0.01})
        started, cpu = time.perf_counter(), time.process_time()
        thread.start()
        self.queue.done.wait()
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        stop.set()
        thread.join()
        a = webhook_attempts.c
        with self.database.engine.connect() as connection:
            pending = connection.execute(select(a.id).where(a.status != "delivered")).all()
        if pending:
            raise RuntimeError(f"{len(pending)} attempts were not delivered")
        return Run.of(attempts, elapsed, cpu)

    def round(self, attempts: int) -> tuple[Run, Run]:
        self.enqueue(attempts)
        baseline = self.baseline(self.rendered())
        engage = self.engage(attempts)
        return baseline, engage

    def close(self) -> None:
        self.worker.close()
        self.pool.shutdown()
        self.client.close()
        self.sender.close()
        self.database.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp, receiver(Path(tmp)) as (url, context, ca_file):
        os.environ["SSL_CERT_FILE"] = str(ca_file)  # the worker's sender trusts what SSL_CERT_FILE names
        bench = Bench(Path(tmp), url, context, args.concurrency)
        try:
            bench.round(min(500, args.attempts))  # warm-up: connections, caches
            rounds = [bench.round(args.attempts) for _ in range(args.rounds)]
        finally:
            bench.close()
    baseline = statistics.median(b.rate for b, _ in rounds)
    engage = statistics.median(e.rate for _, e in rounds)
    ratio = statistics.median(e.rate / b.rate for b, e in rounds)
    baseline_cpu = statistics.median(b.cpu_us for b, _ in rounds)
    engage_cpu = statistics.median(e.cpu_us for _, e in rounds)
    for number, (b, e) in enumerate(rounds, 1):
        print(
            f"round {number}: httpx loop {b.rate:7.0f}/s {b.cpu_us:5.0f} us CPU  "
            f"engage worker {e.rate:7.0f}/s {e.cpu_us:5.0f} us CPU  ratio {e.rate / b.rate:.2f}"
        )
    print(
        f"webhooks  engage {engage:7.0f} deliveries/s  httpx loop {baseline:7.0f}/s  "
        f"ratio {ratio:.2f} (median of the rounds; target {TARGET})  "
        f"CPU per delivery: engage {engage_cpu:.0f} us, httpx loop {baseline_cpu:.0f} us  "
        f"attempts {args.attempts}  concurrency {args.concurrency}"
    )
    summary = {"baseline": round(baseline, 1), "engage": round(engage, 1), "ratio": round(ratio, 3)}
    summary |= {"baseline_cpu_us": round(baseline_cpu), "engage_cpu_us": round(engage_cpu)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
