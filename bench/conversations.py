"""Benchmark: `GET /conversations` over 10,000 contacts and 200,000 messages against the bare baseline.

    .venv/bin/python -m bench.conversations [--seconds 10] [--connections 16] [--rounds 3]
    .venv/bin/python -m bench.conversations --explain [--database-url postgresql://...]

Seeds one account with 10,000 contacts and 200,000 messages on SQLite, runs `engage serve` with one
worker next to the bare app (which answers with the same JSON engage returned for the first page),
loads both with wrk on loopback and prints requests per second, the ratio and the servers' CPU time
per request.

`--explain` serves nothing: it seeds the database named by `--database-url` (a temporary SQLite file
by default; a PostgreSQL database must be empty or freshly created) and prints the plan of every
statement a page of conversations runs (first page, a deep page, the `channel`, `contact_id` and
`handled_by` filters), as the database chose it (`EXPLAIN QUERY PLAN` on SQLite; `EXPLAIN (ANALYZE, BUFFERS)` on
PostgreSQL, after `ANALYZE`), with the median time of the repository call.

Seeding writes the tables directly with bulk inserts (the services would take minutes): the
messages, spread over 90 days, each contact's summary rows and the totals exactly as
`SqlMessageRepository` keeps them, and every contact's `last_message_at`. Half the messages are
inbound; those of the last two days are unread. One conversation in 100 waits for a human
(`pending`) and one in 200 has one (`human`); the AI answers the rest.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Connection, bindparam, event, insert, update

from bench.harness import (
    Run,
    bare_server,
    engage_server,
    measure_rounds,
    print_cpu_per_request,
    wrk,
)
from engage_core.contacts.model import CONTACT_TYPES
from engage_core.kernel.clock import SystemClock
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.services import Services
from engage_sql import Database
from engage_sql.contacts.tables import contacts
from engage_sql.messaging.messages import ALL_CHANNELS
from engage_sql.messaging.month_tally import month_start
from engage_sql.messaging.tables import (
    conversation_handling,
    conversation_totals,
    conversations,
    message_months,
    messages,
)
from engage_sql.text import fold

CHUNK = 10_000
HANDED_OVER_EVERY = 100
"""Every 100th contact's conversation waits for a human (`pending`)."""
TAKEN_OVER_EVERY = 200
"""And one in 200 more is answered by a human: 100 pending and 50 human of 10,000."""
DAYS = 90
WORDS = ("hello", "thanks", "order", "delivery", "price", "when", "tomorrow", "please", "yes", "no", "size", "colour")


def _chunks(rows: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    for start in range(0, len(rows), CHUNK):
        yield rows[start : start + CHUNK]


def _insert_ids(connection: Connection, table: Any, rows: list[dict[str, Any]]) -> list[int]:
    """Insert `rows` in chunks; their new ids, in the order given."""
    statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
    return [i for chunk in _chunks(rows) for i in connection.execute(statement, chunk).scalars()]


def seed(url: str, contact_count: int, message_count: int) -> tuple[int, str]:
    """Create an account with the contacts, messages and conversation summaries; its id and API key."""
    db = Database.connect(url)
    db.upgrade()
    issued = Services.build(db.uow).accounts.create("Bench")
    account = issued.account.id
    rng = random.Random(5)
    now = SystemClock().now()
    with db.engine.begin() as connection:
        types = [CONTACT_TYPES[i % len(CONTACT_TYPES)] for i in range(contact_count)]
        contact_rows = [
            {
                "account_id": account,
                "name": f"Contact {i}",
                "name_key": fold(f"Contact {i}"),
                "phone": None if kind == "instagram" else f"+9665{i:08d}",
                "type": kind,
                "status": "active",
                "blacklisted": False,
                "source": "api",
                "created_at": now - timedelta(days=DAYS + 1),
                "updated_at": now - timedelta(days=DAYS + 1),
            }
            for i, kind in enumerate(types)
        ]
        contact_ids = _insert_ids(connection, contacts, contact_rows)

        moments = sorted(now - timedelta(seconds=rng.randrange(DAYS * 86_400)) for _ in range(message_count))
        message_rows = []
        for n, moment in enumerate(moments):  # ids ascend with time, as they would live
            index = rng.randrange(contact_count)
            inbound = rng.random() < 0.5
            if inbound:
                status = "delivered" if now - moment < timedelta(days=2) else "read"
            else:
                status = rng.choice(("sent", "delivered", "read"))
            message_rows.append(
                {
                    "account_id": account,
                    "contact_id": contact_ids[index],
                    "direction": "inbound" if inbound else "outbound",
                    "channel": types[index],
                    "content": f"Message {n}: " + " ".join(rng.choices(WORDS, k=rng.randrange(3, 12))),
                    "status": status,
                    "provider_message_id": f"bench-{n}",
                    "sent_at": moment,
                    "created_at": moment,
                    "updated_at": moment,
                }
            )
        message_ids = _insert_ids(connection, messages, message_rows)

        summaries: dict[tuple[int, str], dict[str, Any]] = {}
        for message_id, row in zip(message_ids, message_rows, strict=True):
            unread = int(row["direction"] == "inbound" and row["status"] != "read")
            for scope in (ALL_CHANNELS, row["channel"]):
                summary = summaries.setdefault(
                    (row["contact_id"], scope),
                    {"account_id": account, "contact_id": row["contact_id"], "scope": scope, "unread_count": 0},
                )
                summary.update(last_message_id=message_id, last_message_at=row["created_at"])
                summary["unread_count"] += unread
        for chunk in _chunks(list(summaries.values())):
            connection.execute(insert(conversations), chunk)
        totals: dict[str, int] = {}
        for _, scope in summaries:
            totals[scope] = totals.get(scope, 0) + 1
        connection.execute(
            insert(conversation_totals),
            [{"account_id": account, "scope": scope, "conversations": count} for scope, count in totals.items()],
        )
        months = Counter(month_start(row["created_at"]) for row in message_rows if row["direction"] == "outbound")
        connection.execute(
            insert(message_months),
            [{"account_id": account, "month": month, "outbound": n} for month, n in sorted(months.items())],
        )
        last = [
            {"contact": s["contact_id"], "at": s["last_message_at"]}
            for (_, scope), s in summaries.items()
            if scope == ALL_CHANNELS
        ]
        touch = (
            update(contacts)
            .where(contacts.c.id == bindparam("contact"))
            .values(last_message_at=bindparam("at", type_=contacts.c.last_message_at.type))
        )
        for chunk in _chunks(last):
            connection.execute(touch, chunk)
        # Who answers: a few conversations wait for a human or have one, the rest are the AI's (no row).
        handling = [
            {"account_id": account, "contact_id": contact_id, "handled_by": state, "updated_at": now}
            for n, contact_id in enumerate(contact_ids)
            if (state := "pending" if n % HANDED_OVER_EVERY == 0 else "human" if n % TAKEN_OVER_EVERY == 1 else "")
        ]
        connection.execute(insert(conversation_handling), handling)
    db.dispose()
    return account, issued.api_key


# -- --explain -------------------------------------------------------------------------------------


def _captured(db: Database, call: Callable[[], object]) -> list[tuple[str, Any]]:
    """The statements (SQL and driver parameters) that `call` runs."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_args: Any) -> None:
        seen.append((statement, parameters))

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        call()
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    return [(sql, params) for sql, params in seen if "conversations" in sql]


def explain(url: str, account: int) -> None:
    """Print the plan and the median time of each kind of page."""
    db = Database.connect(url)
    postgres = db.engine.dialect.name == "postgresql"
    if postgres:
        with db.engine.begin() as connection:
            connection.exec_driver_sql("ANALYZE")
    with db.uow.workspace(account, readonly=True) as uow:
        some_contact = uow.messages.conversations(ConversationFilter(), PageRequest(page=333)).items[0].contact_id
    cases = {
        "first page (per_page 15)": (ConversationFilter(), PageRequest()),
        "deep page (page 100 of 15: OFFSET 1485)": (ConversationFilter(), PageRequest(page=100)),
        "channel=telegram, first page": (ConversationFilter(channel="telegram"), PageRequest()),
        "contact_id filter": (ConversationFilter(contact_id=some_contact), PageRequest()),
        "handled_by=pending, first page": (ConversationFilter(handled_by="pending"), PageRequest()),
        "handled_by=ai, first page": (ConversationFilter(handled_by="ai"), PageRequest()),
        "handled_by=ai, deep page (page 100 of 15)": (ConversationFilter(handled_by="ai"), PageRequest(page=100)),
    }
    for title, (filters, page) in cases.items():

        def listing(filters: ConversationFilter = filters, page: PageRequest = page) -> object:
            with db.uow.workspace(account, readonly=True) as uow:
                return uow.messages.conversations(filters, page)

        timings = []
        for _ in range(50):
            started = time.perf_counter()
            listing()
            timings.append(time.perf_counter() - started)
        print(f"\n### {title}: median {statistics.median(timings) * 1e3:.2f} ms per call\n")
        for sql, params in _captured(db, listing):
            print(sql.strip())
            print(f"-- parameters: {params}")
            prefix = "EXPLAIN (ANALYZE, BUFFERS) " if postgres else "EXPLAIN QUERY PLAN "
            with db.engine.connect() as connection:
                rows = connection.exec_driver_sql(prefix + sql, params).all()
            print("\n".join(str(row[0] if postgres else f"{row[0]:>3} {row[1]:>3}  {row[3]}") for row in rows))
    db.dispose()


# -- the HTTP benchmark ----------------------------------------------------------------------------


def serve_and_measure(url: str, key: str, seconds: int, connections: int, rounds_wanted: int) -> None:
    headers = {"X-Api-Key": key}
    with engage_server(url) as (engage_pid, base):
        get_url = base + "/conversations?per_page=15"
        first = httpx.get(get_url, headers=headers)
        if first.status_code == 404:
            raise SystemExit("GET /conversations is not served by this build: nothing to measure")
        first.raise_for_status()
        bare_pids: list[int] = []
        with bare_server(first.json(), None, bare_pids) as bare:
            runs: dict[str, Run] = {
                "bare_get": (bare_pids[0], lambda s: wrk(bare + "/bench", seconds=s, connections=connections)),
                "engage_get": (
                    engage_pid,
                    lambda s: wrk(get_url, seconds=s, connections=connections, headers=headers),
                ),
            }
            rounds, cpu = measure_rounds(runs, rounds=rounds_wanted, seconds=seconds)
    results = {name: round(statistics.median(values), 1) for name, values in rounds.items()}
    engage, bare_rps = results["engage_get"], results["bare_get"]
    print(f"GET /conversations  engage {engage:8.0f} rps  bare {bare_rps:8.0f} rps  ratio {engage / bare_rps:.2f}")
    print_cpu_per_request(cpu)
    print(json.dumps({**results, "ratio": round(engage / bare_rps, 3), "rounds": rounds, "cpu_us_per_request": cpu}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--contacts", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--explain", action="store_true", help="print the query plans instead of serving")
    parser.add_argument("--database-url", help="with --explain: the database to seed (default: a SQLite file)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        started = time.perf_counter()
        account, key = seed(url, args.contacts, args.messages)
        print(f"seeded {args.contacts} contacts and {args.messages} messages in {time.perf_counter() - started:.0f} s")
        if args.explain:
            explain(url, account)
        else:
            serve_and_measure(url, key, args.seconds, args.connections, args.rounds)


if __name__ == "__main__":
    main()
