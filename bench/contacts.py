"""Benchmark: `GET /contacts` and `POST /contacts` on SQLite against the bare Starlette baseline.

    .venv/bin/python -m bench.contacts [--seconds 10] [--connections 16] [--contacts 10000]

Seeds an account with 10,000 contacts, runs `engage serve` with one worker next to the bare app,
loads both with wrk on loopback and prints requests per second and the ratio engage / bare.
Targets (issue 2): GET at least 0.40, POST at least 0.20.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import httpx

from bench.harness import ENGAGE, bare_server, free_port, process, wait_until_up, wrk
from engage_core.clock import SystemClock
from engage_core.contacts import ContactDraft
from engage_core.services import Services
from engage_sql import Database

POST_BODY = {"name": "Bench Contact", "type": "instagram", "email": "bench@example.com"}


def seed(url: str, contacts: int) -> str:
    """Create an account with `contacts` contacts in one transaction; return its API key.

    Seeding goes through the repository, not the service, so it skips the per-contact events."""
    db = Database.connect(url)
    db.upgrade()
    services = Services.build(db.uow)
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
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        key = seed(url, args.contacts)
        headers = {"X-Api-Key": key}
        port = free_port()
        serve = [ENGAGE, "--database-url", url, "serve", "--port", str(port), "--workers", "1", "--no-worker"]
        with process(serve):
            base = f"http://127.0.0.1:{port}/api/v1"
            wait_until_up(base + "/openapi.json")
            get_url = base + "/contacts?per_page=15"
            get_body = httpx.get(get_url, headers=headers).json()
            post_body = httpx.post(base + "/contacts", json=POST_BODY, headers=headers).json()
            with bare_server(get_body, post_body) as bare:
                run = {"seconds": args.seconds, "connections": args.connections}
                wrk(bare + "/bench", seconds=2, connections=args.connections)  # warm-up
                wrk(get_url, seconds=2, connections=args.connections, headers=headers)
                results = {
                    "bare_get": wrk(bare + "/bench", **run),
                    "engage_get": wrk(get_url, **run, headers=headers),
                    "bare_post": wrk(bare + "/bench", **run, body=json.dumps(POST_BODY)),
                    "engage_post": wrk(base + "/contacts", **run, headers=headers, body=json.dumps(POST_BODY)),
                }
    ratios = {}
    for label, name, target in (("GET ", "get", 0.40), ("POST", "post", 0.20)):
        engage, bare = results[f"engage_{name}"], results[f"bare_{name}"]
        ratios[f"{name}_ratio"] = round(engage / bare, 3)
        ratio = engage / bare
        print(f"{label} /contacts  engage {engage:8.0f} rps  bare {bare:8.0f} rps  ratio {ratio:.2f} (target {target})")
    print(json.dumps({**results, **ratios}))


if __name__ == "__main__":
    main()
