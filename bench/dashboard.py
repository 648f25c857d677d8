"""Benchmark: the dashboard's inbox pages over 10,000 conversations, server side, beside the API.

    .venv/bin/python -m bench.dashboard [--requests 400] [--database-url postgresql://...]

Seeds one account with 10,000 contacts and 200,000 messages (`bench.conversations.seed`; a temporary
SQLite file by default, or the empty PostgreSQL database of `--database-url`, then `ANALYZE`d) and an
admin team member, builds the application exactly as `engage serve` does (`build_app`), signs in, and requests
each page `--requests` times in this process through Starlette's test client (no network, no
browser): the inbox's first page, a deep page, the "waiting for a human" view, its live region alone
(what dashboard.js asks for every few seconds), and one conversation. The baseline, in the same run,
is the API's `GET /api/v1/conversations` for the same first page (JSON instead of HTML). Prints p50 and
p99 in milliseconds per page and the ratio of each page's p50 to the API's.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import tempfile
import time
from pathlib import Path

from starlette.testclient import TestClient

from bench.conversations import seed
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.team.service import MemberInput
from engage_sql import Database

PASSWORD = "bench password 1"  # noqa: S105 - a throwaway member of a throwaway database


def timed(client: TestClient, path: str, requests: int, headers: dict[str, str] | None = None) -> list[float]:
    """Milliseconds of each of `requests` GETs of `path` (after 20 unmeasured ones)."""
    for _ in range(20):
        assert client.get(path, headers=headers).status_code == 200
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(path, headers=headers)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (path, response.status_code)
    return times


def p99(times: list[float]) -> float:
    return sorted(times)[max(0, int(len(times) * 0.99) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--contacts", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--database-url", help="an empty PostgreSQL database (default: a temporary SQLite file)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        started = time.perf_counter()
        account, key = seed(url, args.contacts, args.messages)
        if url.startswith("postgresql"):  # bulk-loaded rows have no statistics until autovacuum comes by
            database = Database.connect(url)
            with database.engine.connect() as connection:
                connection.exec_driver_sql("ANALYZE")
                connection.commit()
            database.dispose()
        took = time.perf_counter() - started
        print(f"seeded {args.contacts} conversations and {args.messages} messages in {took:.0f} s")
        os.environ.update(
            {"ENGAGE_DATABASE_URL": url, "ENGAGE_SECRET_KEY": "bench-" * 8, "ENGAGE_RATE_LIMIT": "1000000"}
        )
        from engage_http.bootstrap import build_app  # reads the settings just set

        app = build_app()
        app.state.services.team.create(account, MemberInput("Bench", "bench@example.com", "admin", PASSWORD))
        with TestClient(app) as client:
            form = client.get("/login")
            token = re.search(r'name="csrf" value="([^"]+)"', form.text)
            assert token is not None
            signed = client.post(
                "/login", data={"email": "bench@example.com", "password": PASSWORD, "csrf": token.group(1)}
            )
            assert signed.status_code == 200 and "Inbox" in signed.text, signed.status_code
            newest = app.state.services.messages.conversations(account, ConversationFilter(), PageRequest())
            contact = newest.items[0].contact_id  # the conversation to open
            pages = {
                "API GET /api/v1/conversations (baseline)": ("/api/v1/conversations", {"X-Api-Key": key}),
                "inbox, first page": ("/app/inbox", None),
                "inbox, page 300": ("/app/inbox?page=300", None),
                "inbox, waiting for a human": ("/app/inbox?view=waiting", None),
                "inbox, live region alone": ("/app/inbox", {"X-Engage-Fragment": "1"}),
                "a conversation (50 messages)": (f"/app/conversations/{contact}", None),
            }
            results = {name: timed(client, path, args.requests, headers) for name, (path, headers) in pages.items()}
    base = statistics.median(next(iter(results.values())))
    print(f"{'page':44} {'p50 ms':>8} {'p99 ms':>8} {'p50 / API':>10}")
    for name, times in results.items():
        median = statistics.median(times)
        print(f"{name:44} {median:8.2f} {p99(times):8.2f} {median / base:10.2f}")


if __name__ == "__main__":
    main()
