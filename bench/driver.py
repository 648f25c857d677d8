"""Micro-benchmark: a statement run on SQLite through `Connection.execute`, through
`engage_sql.driver.DriverStatement`, and on the bare `sqlite3` cursor.

    .venv/bin/python -m bench.driver [--executions 10000] [--rounds 3]

The statements are two the hot paths run most, as their modules build them: the contact insert of
`POST /contacts` and the delivery queue's claim (two of 100 due attempts, leased for no time, so
every execution claims the same two again). Each way runs `--executions` of a statement in a
transaction rolled back afterwards, `--rounds` times after one run to warm up, and reports the best
round's thread CPU time per execution (other load on the machine does not inflate it). The bare
cursor is the floor: the same SQL, its arguments converted beforehand, its rows not converted.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Connection

from engage_core.kernel.clock import SystemClock
from engage_core.kernel.events import DomainEvent
from engage_core.settings import Settings
from engage_core.webhooks.service import WebhookInput
from engage_http.bootstrap import build_services
from engage_sql import Database
from engage_sql.contacts.contacts import _INSERT
from engage_sql.driver import DriverStatement
from engage_sql.webhooks.delivery_queue import _CLAIM

Run = Callable[[Connection, Any], object]


def contact(account_id: int, n: int, now: datetime) -> dict[str, Any]:
    """The parameters of the contact insert, as `SqlContactRepository.add` passes them."""
    return {
        "account_id": account_id,
        "name": "Bench Contact",
        "name_key": "bench contact",
        "email": "bench@example.com",
        "email_key": "bench@example.com",
        "phone": f"+9665{n:08d}",
        "type": "whatsapp",
        "status": "active",
        "blacklisted": False,
        "source": "api",
        "company": "",
        "address": "",
        "country_id": None,
        "ai_agent_id": None,
        "last_message_at": None,
        "created_at": now,
        "updated_at": now,
    }


def seeded_database(directory: Path) -> tuple[Database, int, datetime]:
    """A database with one account, one subscription and 100 attempts due now."""
    settings = Settings(
        database_url=f"sqlite:///{directory / 'driver.db'}",
        secret_key="bench-secret-key-of-the-driver-benchmark",  # noqa: S106 - a throwaway database
        webhook_allowed_hosts="127.0.0.1",
    )
    database = Database.connect(settings.database_url)
    database.upgrade()
    services = build_services(settings, database)
    account_id = services.accounts.create("Bench").account.id
    services.webhooks.create(account_id, WebhookInput("Bench", "https://127.0.0.1:9/", ["contact.created"]))
    now = SystemClock().now()
    with database.uow.workspace(account_id) as uow:
        for n in range(100):
            uow.emit(DomainEvent("contact.created", {"id": n}, now))
        uow.commit()
    return database, account_id, now


def ways(database: Database, statement: DriverStatement, params: Sequence[Any]) -> dict[str, tuple[Run, Sequence[Any]]]:
    """Each way of running `statement`, with the arguments it takes for each execution."""
    compiled = statement._compile(database.engine.dialect)

    returns_rows = bool(statement.statement.exported_columns)  # the SQLite insert does not (`inserted_id`)

    def through_sqlalchemy(connection: Connection, one: Any) -> object:
        result = connection.execute(statement.statement, one)
        return result.all() if returns_rows else result.rowcount

    def bare_cursor(connection: Connection, arguments: Any) -> object:
        cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
        cursor.execute(compiled.sql, arguments)
        rows = cursor.fetchall()
        cursor.close()
        return rows

    return {
        "Connection.execute": (through_sqlalchemy, params),
        "DriverStatement": (statement.rows if returns_rows else statement.execute, params),
        "bare sqlite3 cursor": (bare_cursor, [compiled.driver_arguments(one) for one in params]),
    }


def cpu_us_per_execution(database: Database, run: Run, arguments: Sequence[Any], rounds: int) -> float:
    best = float("inf")
    for round_number in range(rounds + 1):  # the first warms up
        with database.engine.connect() as connection:
            connection.begin()
            start = time.thread_time()
            for one in arguments:
                run(connection, one)
            elapsed = time.thread_time() - start
            connection.rollback()
        if round_number:
            best = min(best, elapsed)
    return best / len(arguments) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executions", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        database, account_id, now = seeded_database(Path(directory))
        claim = {"now": now + timedelta(seconds=1), "lease_until": now + timedelta(seconds=1), "limit": 2}
        cases = {
            "contact insert": (_INSERT, [contact(account_id, n, now) for n in range(args.executions)]),
            "queue claim": (_CLAIM["sqlite"], [claim] * args.executions),
        }
        for case, (statement, params) in cases.items():
            for way, (run, arguments) in ways(database, statement, params).items():
                cpu = cpu_us_per_execution(database, run, arguments, args.rounds)
                print(f"{case:15} {way:20} {cpu:6.1f} us CPU per execution")
        database.dispose()


if __name__ == "__main__":
    main()
