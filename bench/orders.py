"""Benchmark: `POST /orders` with three items on SQLite against the bare Starlette baseline.

    .venv/bin/python -m bench.orders [--seconds 10] [--connections 16] [--rounds 3]

Seeds an account with a catalogue of three products whose stock will not run out, runs `engage
serve` with one worker next to the bare app (which answers with the same JSON engage returned for
one such order), loads both with wrk on loopback and prints requests per second and the ratio.

Each request creates a real order: the three products are read, their stock is taken with one
conditional UPDATE each, the order and its items are inserted and `order.created` goes to the
outbox, all in one durable transaction (`synchronous=FULL`). The orders name a customer but no
contact, so the duplicate window (same contact, same products, same quantities) does not apply and
every request takes stock.
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
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_sql import Database

CATALOG_CSV = (
    "product_name,sku,price,currency,category,stock\n"
    "Espresso beans 1kg,BEAN-1,24.90,USD,coffee,1000000000\n"
    "Paper filters,FLT-100,3.50,USD,accessories,1000000000\n"
    "Ceramic mug,MUG-1,12.00,USD,accessories,1000000000\n"
)


def seed(url: str) -> tuple[str, list[int]]:
    """Create an account with a three-product catalogue; return its API key and the product ids."""
    db = Database.connect(url)
    db.upgrade()
    services = Services.build(db.uow)
    issued = services.accounts.create("Bench")
    result = services.knowledge_base.create_catalog(issued.account.id, CatalogInput(title="Shop", csv_file=CATALOG_CSV))
    db.dispose()
    return issued.api_key, [product.id for product in result.products]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        key, product_ids = seed(url)
        order = {
            "customer_name": "Bench Customer",
            "customer_email": "bench@example.com",
            "items": [{"product_id": pid, "quantity": n} for pid, n in zip(product_ids, (2, 1, 3), strict=True)],
        }
        body = json.dumps(order)
        headers = {"X-Api-Key": key}
        with engage_server(url) as (engage_pid, base):
            created = httpx.post(base + "/orders", json=order, headers=headers)
            created.raise_for_status()
            bare_pids: list[int] = []
            with bare_server(None, created.json(), bare_pids) as bare:
                c = args.connections
                runs: dict[str, Run] = {
                    "bare_post": (bare_pids[0], lambda s: wrk(bare + "/bench", seconds=s, connections=c, body=body)),
                    "engage_post": (
                        engage_pid,
                        lambda s: wrk(base + "/orders", seconds=s, connections=c, headers=headers, body=body),
                    ),
                }
                rounds, cpu = measure_rounds(runs, rounds=args.rounds, seconds=args.seconds)
    results = {name: round(statistics.median(values), 1) for name, values in rounds.items()}
    engage, bare = results["engage_post"], results["bare_post"]
    print(f"POST /orders (3 items)  engage {engage:8.0f} rps  bare {bare:8.0f} rps  ratio {engage / bare:.2f}")
    print_cpu_per_request(cpu)
    print(json.dumps({**results, "ratio": round(engage / bare, 3), "rounds": rounds, "cpu_us_per_request": cpu}))


if __name__ == "__main__":
    main()
