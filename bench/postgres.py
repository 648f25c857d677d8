"""Benchmark: every hot path on SQLite and on PostgreSQL in the same run, with PostgreSQL's round trips counted.

    .venv/bin/python -m bench.postgres [--database postgresql://postgres@127.0.0.1:5432/pgperf_bench]
        [--seconds 5] [--rounds 3] [--connections 32] [--contacts 10000] [--messages 200000]
        [--attempts 2000] [--workers 1] [--paths get_contacts,post_contacts,...] [--statements]
        [--chunks 20000] [--queries 300] [--campaign-contacts 40000]

The PostgreSQL database named is dropped and created again (and `NAME_hooks` beside it for the
webhook worker), so give it one of its own. Each engine gets the same seed: one account with
`--contacts` contacts and `--messages` messages (`bench.conversations.seed`), a three-product
catalogue, a WhatsApp channel connected through the sandbox gateway, and the default plan's
contacts and monthly messages limits lifted. Then one `engage serve --no-worker --no-access-log`
per engine (`--workers` each) is loaded by wrk, path after path, both engines back to back in every
round, and per path it prints:

- requests per second (median of the rounds) and the ratio PostgreSQL / SQLite;
- CPU per request of the engage processes (the server and its workers, from /proc) and of the
  PostgreSQL backends connected to the bench database (from /proc; the server's shared background
  processes, such as the WAL writer, are not included);
- statements and round trips per request on PostgreSQL, counted by a second engage server whose
  connections go through `bench.wire.WireCounter` (a relay parsing the wire protocol): 200
  sequential requests after 50 of warm-up, so prepared statements and the pool are warm.

The webhook worker is measured as `bench.webhooks` does (the real worker against a plain httpx
loop to a local HTTPS receiver), once per engine, with its statements counted through the relay.
So are, in this process (`bench.postgres_in_process`), the knowledge-base search (`--queries`
questions a round over `--chunks` chunks of `bench.knowledge`'s text, a read-only unit of work
each) and the campaign drain (one worker sending a campaign to three quarters of
`--campaign-contacts` contacts through the sandbox gateway, at most at the campaign's highest rate,
`--seconds` a round), each in databases of their own (`NAME_knowledge`, `NAME_campaigns`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs
import httpx
import psycopg
from sqlalchemy.engine import make_url

from bench import conversations, webhooks
from bench import postgres_in_process as in_process
from bench.harness import ENGAGE, PYTHON, free_port, process, wait_until_up
from bench.orders import CATALOG_CSV
from bench.wire import Counts, WireCounter
from engage_core.contacts.model import ContactInput
from engage_core.knowledge.service import CatalogInput
from engage_core.plans.model import CONTACTS, DEFAULT_PLAN, LIMIT_MAX, MESSAGES_PER_MONTH
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_sql import Database

SERVER_CODE: dict[str, str] = {}
"""`PYTHONPATH` of the servers when `--server-code` names another checkout (a before/after run)."""

DEFAULT_DATABASE = "postgresql://postgres@127.0.0.1:5432/pgperf_bench"
PHONES = {"sqlite": "+14155550123", "postgresql": "+14155550124", "counted": "+14155550125"}
"""One WhatsApp contact per server: the counting server and the measured one share a database."""
SECRET_KEY = "bench-secret-key-of-the-postgresql-benchmark"  # noqa: S105 - a throwaway database
COUNTED_WARMUP = 50
COUNTED_REQUESTS = 200
PATHS = ("get_contacts", "post_contacts", "get_conversations", "send_message", "post_order")
IN_PROCESS_PATHS = ("knowledge_search", "campaign_drain")
"""Measured in this process, with no HTTP in front (`bench.postgres_in_process`), as is `webhooks`."""
PEER_PATHS = ("get_contacts", "post_contacts")
"""What the FastAPI + ORM peer (`bench.peer_app`) serves."""


@attrs.frozen
class Seeded:
    """What the paths need of the seeded account."""

    key: str
    product_ids: list[int]


def recreate(url: str) -> None:
    """Drop the PostgreSQL database `url` names and create it empty."""
    parsed = make_url(url)
    admin = parsed.set(drivername="postgresql", database="postgres", query={})
    with psycopg.connect(admin.render_as_string(hide_password=False), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{parsed.database}" WITH (FORCE)')
        connection.execute(f'CREATE DATABASE "{parsed.database}"')


def seed(url: str, contacts: int, messages: int) -> Seeded:
    """The account of every path: contacts, messages, a catalogue; its plan's limits lifted."""
    account, key = conversations.seed(url, contacts, messages)
    db = Database.connect(url)
    services = Services.build(db.uow)
    services.plans.update(DEFAULT_PLAN, PlanPatch(limits={CONTACTS: LIMIT_MAX, MESSAGES_PER_MONTH: LIMIT_MAX}))
    catalog = services.knowledge_base.create_catalog(account, CatalogInput(title="Shop", csv_file=CATALOG_CSV))
    db.dispose()
    return Seeded(key, [product.id for product in catalog.products])


def seed_counted(url: str) -> Seeded:
    """A second account on the seeded PostgreSQL database, for the counting server: the sandbox numbers
    its provider message ids per server process, so two servers must not send from one account."""
    db = Database.connect(url)
    services = Services.build(db.uow)
    issued = services.accounts.create("Counted")
    account = issued.account.id
    for i in range(30):
        services.contacts.create(account, ContactInput(name=f"Counted {i}", type="instagram"))
    catalog = services.knowledge_base.create_catalog(account, CatalogInput(title="Shop", csv_file=CATALOG_CSV))
    db.dispose()
    return Seeded(issued.api_key, [product.id for product in catalog.products])


def process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of `pid` and its living descendants."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parents[int(entry.name)] = int(_stat(int(entry.name))[1])
    tree, grown = {pid}, True
    while grown:
        grown = False
        for child, parent in parents.items():
            if parent in tree and child not in tree:
                tree.add(child)
                grown = True
    return sum(_cpu(p) for p in tree)


def backends_cpu(database: str) -> float:
    """CPU seconds of the PostgreSQL backends now connected to `database` (their title names it)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            title = (entry / "cmdline").read_bytes()
            if title.startswith(b"postgres: ") and f" {database} ".encode() in title:
                total += _cpu(int(entry.name))
    return total


def _stat(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _cpu(pid: int) -> float:
    try:
        fields = _stat(pid)
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url: str, seconds: int, connections: int, headers: Mapping[str, str], body: str | None) -> tuple[int, float]:
    """Requests wrk completed and the seconds it ran (a non-2xx response fails the run)."""
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is required: apt-get install wrk")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        if body is not None:
            script.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
            script.write(f"wrk.body = {json.dumps(body)}\n")
        script.write("".join(f'wrk.headers["{k}"] = "{v}"\n' for k, v in headers.items()))
        script.write(
            "done = function(summary, latency, requests)\n"
            '  io.write(string.format("NON2XX %d REQUESTS %d MICROS %d\\n",'
            " summary.errors.status, summary.requests, summary.duration))\n"
            "end\n"
        )
    try:
        out = subprocess.run(
            ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "-s", script.name, url],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    finally:
        os.unlink(script.name)
    found = re.search(r"NON2XX (\d+) REQUESTS (\d+) MICROS (\d+)", out)
    assert found is not None, out
    if int(found.group(1)):
        raise RuntimeError(f"{found.group(1)} non-2xx responses from {url}:\n{out}")
    return int(found.group(2)), int(found.group(3)) / 1e6


@attrs.define
class Server:
    """One running engage server on one engine, with what its paths need."""

    engine: str
    pid: int
    base: str
    key: str
    contact_id: int
    product_ids: list[int]
    database: str | None  # PostgreSQL's database name, for its backends' CPU

    @property
    def headers(self) -> dict[str, str]:
        return {"X-Api-Key": self.key}

    def request(self, path: str) -> tuple[str, str | None]:
        """The URL and JSON body (None: a GET) of `path`."""
        if path == "get_contacts":
            return self.base + "/contacts?per_page=15", None
        if path == "post_contacts":
            return self.base + "/contacts", json.dumps({"name": "Bench Contact", "type": "instagram"})
        if path == "get_conversations":
            return self.base + "/conversations?per_page=15", None
        if path == "send_message":
            return self.base + "/messages/send", json.dumps({"contact_id": self.contact_id, "message": "Hello"})
        if path == "post_order":
            items = [{"product_id": p, "quantity": n} for p, n in zip(self.product_ids, (2, 1, 3), strict=True)]
            return self.base + "/orders", json.dumps({"customer_name": "Bench Customer", "items": items})
        raise ValueError(path)


@contextlib.contextmanager
def serve(
    engine: str, url: str, seeded: Seeded, workers: int, database: str | None, *, channel: bool = True
) -> Iterator[Server]:
    """`engage serve` on `url`, with (`channel`) its sandbox WhatsApp connected and a WhatsApp contact
    to send to: the sandbox lives in one process's memory, so sending needs `workers` 1."""
    media = tempfile.mkdtemp(prefix="bench-media-")
    port = free_port()
    args = [ENGAGE, "--database-url", url, "serve", "--port", str(port), "--workers", str(workers)]
    with process(
        [*args, "--no-worker", "--no-access-log"],
        {"ENGAGE_SECRET_KEY": SECRET_KEY, "ENGAGE_MEDIA_DIR": media, **SERVER_CODE},
    ) as proc:
        base = f"http://127.0.0.1:{port}/api/v1"
        wait_until_up(base + "/openapi.json", timeout=120)  # a loaded machine starts slowly
        if not channel:
            yield Server(engine, proc.pid, base, seeded.key, 0, seeded.product_ids, database)
            return
        with httpx.Client(headers={"X-Api-Key": seeded.key}, timeout=30) as client:
            client.post(base + "/channels/whatsapp/connect").raise_for_status()
            client.post(base + "/sandbox/channels/whatsapp/scan", json={"username": PHONES[engine]}).raise_for_status()
            contact = client.post(
                base + "/contacts", json={"name": "Send", "type": "whatsapp", "phone": PHONES[engine]}
            )
            contact.raise_for_status()
        yield Server(engine, proc.pid, base, seeded.key, contact.json()["data"]["id"], seeded.product_ids, database)


@contextlib.contextmanager
def serve_peer(url: str, seeded: Seeded, database: str) -> Iterator[Server]:
    """The FastAPI + SQLAlchemy ORM peer (`bench.peer_app`, one uvicorn worker) on the PostgreSQL
    database `url`, answering for the seeded account's key."""
    port = free_port()
    args = [PYTHON, "-m", "uvicorn", "bench.peer_app:app_factory", "--factory", "--port", str(port)]
    with process([*args, "--log-level", "warning", "--no-access-log"], {"BENCH_PEER_DATABASE": url}) as proc:
        base = f"http://127.0.0.1:{port}/api/v1"
        wait_until_up(base.removesuffix("/api/v1") + "/openapi.json", timeout=120)
        yield Server("peer", proc.pid, base, seeded.key, 0, seeded.product_ids, database)


def disconnect(server: Server) -> None:
    """Disconnect the server's sandbox WhatsApp."""
    httpx.post(server.base + "/channels/whatsapp/disconnect", headers=server.headers).raise_for_status()


@attrs.frozen
class Measure:
    rps: float
    engage_us: float
    postgres_us: float | None


def load(server: Server, path: str, seconds: int, connections: int) -> Measure:
    url, body = server.request(path)
    engage_before = process_tree_cpu(server.pid)
    pg_before = backends_cpu(server.database) if server.database else 0.0
    requests, elapsed = wrk(url, seconds, connections, server.headers, body)
    engage = process_tree_cpu(server.pid) - engage_before
    pg = backends_cpu(server.database) - pg_before if server.database else None
    per = 1e6 / max(requests, 1)
    return Measure(requests / elapsed, engage * per, None if pg is None else pg * per)


def count(server: Server, relay: WireCounter, path: str) -> Counts:
    """Statements and round trips per request of `path`, over sequential requests through the relay."""
    url, body = server.request(path)
    with httpx.Client(headers={**server.headers, "Content-Type": "application/json"}, timeout=30) as client:

        def send() -> None:
            response = client.get(url) if body is None else client.post(url, content=body)
            response.raise_for_status()

        for _ in range(COUNTED_WARMUP):
            send()
        relay.reset()
        for _ in range(COUNTED_REQUESTS):
            send()
        return relay.snapshot().per(COUNTED_REQUESTS)


def _median(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def measure_paths(
    servers: list[Server], paths: list[str], seconds: int, rounds: int, connections: int
) -> dict[str, dict[str, Measure]]:
    """Per path and engine, the medians of `rounds` runs; both engines back to back in each round."""
    results: dict[str, dict[str, Measure]] = {}
    for path in paths:
        serving = [s for s in servers if s.engine != "peer" or path in PEER_PATHS]
        for server in serving:
            load(server, path, 2, connections)  # warm-up
        runs: dict[str, list[Measure]] = {s.engine: [] for s in serving}
        for _ in range(rounds):
            for server in serving:
                runs[server.engine].append(load(server, path, seconds, connections))
        results[path] = {
            engine: Measure(
                statistics.median(m.rps for m in measured),
                statistics.median(m.engage_us for m in measured),
                _median([m.postgres_us for m in measured]),
            )
            for engine, measured in runs.items()
        }
        line = "  ".join(
            f"{e} {m.rps:7.0f} rps engage {m.engage_us:5.0f} us"
            + ("" if m.postgres_us is None else f" pg {m.postgres_us:5.0f} us")
            for e, m in results[path].items()
        )
        print(f"{path:18} {line}", flush=True)
    return results


def webhook_run(url: str, directory: Path, hook: str, context: Any, attempts: int, rounds: int) -> dict[str, float]:
    """The worker against the httpx loop on `url` (medians of `rounds`): rates, ratio and CPU."""
    bench = webhooks.Bench(directory, hook, context, 4, database_url=url)
    database = make_url(url).database if url.startswith("postgresql") else None
    try:
        bench.round(min(500, attempts))
        rates: list[tuple[float, float, float, float | None]] = []
        for _ in range(rounds):
            bench.enqueue(attempts)
            baseline = bench.baseline(bench.rendered())
            pg_before = backends_cpu(database) if database else 0.0
            engage = bench.engage(attempts)
            pg = (backends_cpu(database) - pg_before) / attempts * 1e6 if database else None
            rates.append((baseline.rate, engage.rate, engage.cpu_us, pg))
    finally:
        bench.close()
    return {
        "httpx_loop": statistics.median(r[0] for r in rates),
        "engage": statistics.median(r[1] for r in rates),
        "ratio": statistics.median(r[1] / r[0] for r in rates),
        "engage_us": statistics.median(r[2] for r in rates),
        "postgres_us": _median([r[3] for r in rates]) or 0.0,
    }


def webhook_count(url: str, directory: Path, hook: str, context: Any, attempts: int, relay: WireCounter) -> Counts:
    """Statements and round trips per delivery of the worker, its database connections through the relay."""
    bench = webhooks.Bench(directory, hook, context, 4, database_url=url)
    try:
        bench.round(200)
        bench.enqueue(attempts)
        relay.reset()  # the worker's statements only, not the enqueueing's
        bench.engage(attempts)
        return relay.snapshot().per(attempts)
    finally:
        bench.close()


def knowledge_search(
    pg_url: str, directory: Path, database: str, args: argparse.Namespace, relay_port: int, relay: WireCounter
) -> tuple[dict[str, in_process.Rate], Counts]:
    """The knowledge-base search on both engines (`--chunks` chunks, `--queries` questions a round),
    and its statements on PostgreSQL."""
    pg = plain(pg_url, database)
    recreate(pg)
    lite = f"sqlite:///{directory / 'knowledge.db'}"
    asked = in_process.knowledge_questions(args.queries)
    rates, accounts = {}, {}
    for engine, url in (("sqlite", lite), ("postgresql", pg)):
        accounts[engine] = in_process.knowledge_fill(url, args.chunks)
        measured = database if engine == "postgresql" else None
        rates[engine] = in_process.knowledge_run(url, accounts[engine], asked, args.rounds, measured, backends_cpu)
        print(f"knowledge_search {engine}: {attrs.asdict(rates[engine])}", flush=True)
    # Counted on the PostgreSQL database just measured, through the relay.
    counts = in_process.knowledge_count(via(pg_url, relay_port, database), accounts["postgresql"], asked, relay)
    recreate(pg)
    return rates, counts


def campaign_drain(
    pg_url: str, directory: Path, database: str, args: argparse.Namespace, relay_port: int, relay: WireCounter
) -> tuple[dict[str, in_process.Rate], Counts]:
    """The campaign drain on both engines (a campaign to `--campaign-contacts`, `--seconds` a round),
    and its statements on PostgreSQL (in a database made anew, so that no other campaign's jobs run)."""
    pg = plain(pg_url, database)
    rates = {}
    for engine, url in (("sqlite", f"sqlite:///{directory / 'campaigns.db'}"), ("postgresql", pg)):
        if engine == "postgresql":
            recreate(pg)
        measured = database if engine == "postgresql" else None
        rates[engine] = in_process.campaign_run(
            url, args.campaign_contacts, args.seconds, args.rounds, measured, backends_cpu
        )
        print(f"campaign_drain {engine}: {attrs.asdict(rates[engine])}", flush=True)
    recreate(pg)
    counts = in_process.campaign_count(via(pg_url, relay_port, database), args.campaign_contacts, 1000, relay)
    recreate(pg)
    return rates, counts


def via(url: str, port: int, database: str | None = None) -> str:
    """`url` connecting through the relay's `port` (and to `database` when given), without TLS or GSS."""
    parsed = make_url(url)
    parsed = parsed.set(host="127.0.0.1", port=port, query={"sslmode": "disable", "gssencmode": "disable"})
    if database:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


def plain(url: str, database: str | None = None) -> str:
    parsed = make_url(url).set(query={"sslmode": "disable", "gssencmode": "disable"})
    if database:
        parsed = parsed.set(database=database)
    return parsed.render_as_string(hide_password=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", default=DEFAULT_DATABASE, help="a PostgreSQL database of the bench's own")
    parser.add_argument("--seconds", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--contacts", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--attempts", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--chunks", type=int, default=20_000, help="knowledge-base chunks searched")
    parser.add_argument("--queries", type=int, default=300, help="knowledge-base questions a round")
    parser.add_argument("--campaign-contacts", type=int, default=40_000, help="a campaign to three quarters of them")
    parser.add_argument("--paths", default=",".join((*PATHS, "webhooks", *IN_PROCESS_PATHS)))
    parser.add_argument("--statements", action="store_true", help="print each path's statements per request")
    parser.add_argument("--counts-only", action="store_true", help="count round trips, measure no throughput")
    parser.add_argument("--server-code", help="serve the code of this checkout instead (the run before a change)")
    parser.add_argument("--no-peer", action="store_true", help="leave out the FastAPI + ORM peer on PostgreSQL")
    args = parser.parse_args()
    if args.server_code:
        SERVER_CODE["PYTHONPATH"] = str(Path(args.server_code).resolve())
    paths = [p for p in args.paths.split(",") if p in PATHS]
    pg_url = plain(args.database)
    name = make_url(pg_url).database
    assert name is not None
    parsed = make_url(pg_url)
    relay = WireCounter(parsed.host or "127.0.0.1", parsed.port or 5432)
    relay_port = relay.start()

    report: dict[str, Any] = {"paths": {}, "counts": {}}
    with tempfile.TemporaryDirectory() as tmp:
        sqlite_url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        if paths:
            recreate(pg_url)
            started = time.perf_counter()
            seeded = {
                "sqlite": seed(sqlite_url, args.contacts, args.messages),
                "postgresql": seed(pg_url, args.contacts, args.messages),
            }
            print(f"seeded both in {time.perf_counter() - started:.0f} s", flush=True)
            with serve("counted", via(pg_url, relay_port), seed_counted(pg_url), 1, None) as counted:
                for path in paths:
                    report["counts"][path] = count(counted, relay, path)
                disconnect(counted)  # the sandbox's accounts live in the server's memory: the next connects anew
            if args.counts_only:
                for path in paths:
                    counts = report["counts"][path]
                    print(f"{path:18} statements {counts.executed:g}  round trips {counts.round_trips:g}")
                    for sql, n in counts.statements.most_common():
                        print(f"  {n:5.2f}  {sql[:160]}")
                return
            with contextlib.ExitStack() as stack:
                sending = "send_message" in paths
                if sending and args.workers > 1:
                    raise SystemExit("send_message needs --workers 1: the sandbox gateway lives in one process")
                lite = stack.enter_context(
                    serve("sqlite", sqlite_url, seeded["sqlite"], args.workers, None, channel=sending)
                )
                pg = stack.enter_context(
                    serve("postgresql", pg_url, seeded["postgresql"], args.workers, name, channel=sending)
                )
                servers = [lite, pg]
                if not args.no_peer and set(paths) & set(PEER_PATHS):
                    servers.append(stack.enter_context(serve_peer(pg_url, seeded["postgresql"], name)))
                results = measure_paths(servers, paths, args.seconds, args.rounds, args.connections)
            for path in paths:
                report["paths"][path] = {e: attrs.asdict(m) for e, m in results[path].items()}
        if "webhooks" in args.paths.split(","):
            hooks = name + "_hooks"
            recreate(plain(pg_url, hooks))
            with webhooks.receiver(Path(tmp)) as (hook, context, ca_file):
                os.environ["SSL_CERT_FILE"] = str(ca_file)
                runs = {}
                for engine, url in (
                    ("sqlite", f"sqlite:///{Path(tmp) / 'hooks.db'}"),
                    ("postgresql", plain(pg_url, hooks)),
                ):
                    runs[engine] = webhook_run(url, Path(tmp), hook, context, args.attempts, args.rounds)
                    print(
                        f"webhooks {engine}: {json.dumps({k: round(v, 2) for k, v in runs[engine].items()})}",
                        flush=True,
                    )
                recreate(plain(pg_url, hooks))
                report["counts"]["webhooks"] = webhook_count(
                    via(pg_url, relay_port, hooks), Path(tmp), hook, context, 500, relay
                )
                report["webhooks"] = runs

        wanted = set(args.paths.split(","))
        if "knowledge_search" in wanted:
            report["knowledge_search"], report["counts"]["knowledge_search"] = knowledge_search(
                pg_url, Path(tmp), name + "_knowledge", args, relay_port, relay
            )
        if "campaign_drain" in wanted:
            report["campaign_drain"], report["counts"]["campaign_drain"] = campaign_drain(
                pg_url, Path(tmp), name + "_campaigns", args, relay_port, relay
            )

    print()
    print(
        "| path | SQLite rps | PostgreSQL rps | PG / SQLite | FastAPI + ORM peer on PG rps | PG / peer"
        " | engage CPU per request SQLite / PG | PostgreSQL CPU per request | PG statements / round trips per request |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for path in paths:
        lite_m, pg_m = report["paths"][path]["sqlite"], report["paths"][path]["postgresql"]
        peer_m = report["paths"][path].get("peer")
        peer = ("", "") if peer_m is None else (f"{peer_m['rps']:,.0f}", f"**{pg_m['rps'] / peer_m['rps']:.1f}x**")
        counts: Counts = report["counts"][path]
        print(
            f"| {path} | {lite_m['rps']:,.0f} | {pg_m['rps']:,.0f} | **{pg_m['rps'] / max(lite_m['rps'], 1e-9):.2f}** "
            f"| {peer[0]} | {peer[1]} "
            f"| {lite_m['engage_us']:.0f} / {pg_m['engage_us']:.0f} µs | {pg_m['postgres_us']:.0f} µs "
            f"| {counts.executed:g} / {counts.round_trips:g} |"
        )
    if "webhooks" in report:
        lite_w, pg_w = report["webhooks"]["sqlite"], report["webhooks"]["postgresql"]
        counts = report["counts"]["webhooks"]
        print(
            f"| webhooks (deliveries/s; ratio to the httpx loop SQLite {lite_w['ratio']:.2f}, PG {pg_w['ratio']:.2f}) "
            f"| {lite_w['engage']:,.0f} | {pg_w['engage']:,.0f} | **{pg_w['engage'] / lite_w['engage']:.2f}** | | "
            f"| {lite_w['engage_us']:.0f} / {pg_w['engage_us']:.0f} µs | {pg_w['postgres_us']:.0f} µs "
            f"| {counts.executed:g} / {counts.round_trips:g} |"
        )
    for path in IN_PROCESS_PATHS:
        if path in report:
            lite_r, pg_r = report[path]["sqlite"], report[path]["postgresql"]
            counts = report["counts"][path]
            unit = "searches/s" if path == "knowledge_search" else "messages/s, at most the campaign's rate"
            print(
                f"| {path} ({unit}) | {lite_r.rate:,.0f} | {pg_r.rate:,.0f} | **{pg_r.rate / lite_r.rate:.2f}** | | "
                f"| {lite_r.engage_us:.0f} / {pg_r.engage_us:.0f} µs | {pg_r.postgres_us or 0:.0f} µs "
                f"| {counts.executed:g} / {counts.round_trips:g} |"
            )
    if args.statements:
        for path, counts in report["counts"].items():
            print(f"\n{path}: messages {dict(counts.messages)}, round trips {counts.round_trips}")
            for sql, n in counts.statements.most_common():
                print(f"  {n:5.2f}  {sql[:160]}")
    counted = {p: {"messages": c.messages, "round_trips": c.round_trips} for p, c in report["counts"].items()}
    serialisable = {**report, "counts": counted}
    for path in IN_PROCESS_PATHS:
        if path in report:
            serialisable[path] = {engine: attrs.asdict(rate) for engine, rate in report[path].items()}
    print(json.dumps(serialisable, default=str))


if __name__ == "__main__":
    main()
