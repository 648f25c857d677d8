"""Benchmark: `GET /contacts` and `POST /contacts` on SQLite against the bare Starlette baseline.

    .venv/bin/python -m bench.contacts [--seconds 10] [--connections 16] [--contacts 10000] [--rounds 3]

Seeds an account with 10,000 contacts, runs `engage serve` with one worker next to the bare app,
loads both with wrk on loopback and prints requests per second and the ratio engage / bare.
Targets (issue 2): GET at least 0.40, POST at least 0.20.

Both servers run one uvicorn worker with no access log (the bare app's `--no-access-log`, engage's
`--no-access-log`). Each one is warmed up on both endpoints first; then every round measures the
four runs back to back (bare GET, engage GET, bare POST, engage POST), so a disturbance of the
machine hits both sides of a ratio alike. The ratios printed are those of the medians of the
rounds. Where /proc exists, the CPU time each server spent per request is printed too: it varies
less than requests per second on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from pathlib import Path

import httpx

from bench.harness import (
    Run,
    bare_server,
    engage_server,
    measure_rounds,
    print_cpu_per_request,
    wrk,
)
from engage_core.contacts.model import ContactDraft
from engage_core.kernel.clock import SystemClock
from engage_core.plans.model import CONTACTS, DEFAULT_PLAN, LIMIT_MAX
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_sql import Database

POST_BODY = {"name": "Bench Contact", "type": "instagram", "email": "bench@example.com"}


def seed(url: str, contacts: int) -> str:
    """Create an account with `contacts` contacts in one transaction; return its API key.

    Seeding goes through the repository, not the service, so it skips the per-contact events. The
    account's plan (the default, `business`) gets the highest contacts limit: the runs create more
    contacts than its 100,000, and the limit is still checked on every create, as it always is."""
    db = Database.connect(url)
    db.upgrade()
    services = Services.build(db.uow)
    services.plans.update(DEFAULT_PLAN, PlanPatch(limits={CONTACTS: LIMIT_MAX}))
    issued = services.accounts.create("Bench")
    now = SystemClock().now()
    with db.uow.workspace(issued.account.id) as uow:
        for i in range(contacts):
            kind = ("whatsapp", "telegram", "instagram")[i % 3]
            phone = f"+9665{i:08d}" if kind != "instagram" else None
            uow.contacts.add(ContactDraft(name=f"Contact {i}", type=kind, phone=phone, email=f"c{i}@example.com"), now)
        uow.commit()
    db.dispose()
    return issued.api_key


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--contacts", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    post = json.dumps(POST_BODY)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        key = seed(url, args.contacts)
        headers = {"X-Api-Key": key}
        with engage_server(url) as (engage_pid, base):
            get_url = base + "/contacts?per_page=15"
            get_body = httpx.get(get_url, headers=headers).json()
            post_body = httpx.post(base + "/contacts", json=POST_BODY, headers=headers).json()
            bare_pids: list[int] = []
            with bare_server(get_body, post_body, bare_pids) as bare:
                c = args.connections
                runs: dict[str, Run] = {
                    "bare_get": (bare_pids[0], lambda s: wrk(bare + "/bench", seconds=s, connections=c)),
                    "engage_get": (
                        engage_pid,
                        lambda s: wrk(get_url, seconds=s, connections=c, headers=headers),
                    ),
                    "bare_post": (bare_pids[0], lambda s: wrk(bare + "/bench", seconds=s, connections=c, body=post)),
                    "engage_post": (
                        engage_pid,
                        lambda s: wrk(base + "/contacts", seconds=s, connections=c, headers=headers, body=post),
                    ),
                }
                rounds, cpu = measure_rounds(runs, rounds=args.rounds, seconds=args.seconds)
    results = {name: round(statistics.median(values), 1) for name, values in rounds.items()}
    ratios = {}
    for label, name, target in (("GET ", "get", 0.40), ("POST", "post", 0.20)):
        engage, bare = results[f"engage_{name}"], results[f"bare_{name}"]
        ratios[f"{name}_ratio"] = round(engage / bare, 3)
        print(
            f"{label} /contacts  engage {engage:8.0f} rps  bare {bare:8.0f} rps"
            f"  ratio {engage / bare:.2f} (target {target})"
        )
    print_cpu_per_request(cpu)
    print(json.dumps({**results, **ratios, "rounds": rounds, "cpu_us_per_request": cpu}))


if __name__ == "__main__":
    main()
