"""Creates guarded by a uniqueness rule, raced: many requests at once for the same key, over a real
server on SQLite and PostgreSQL (which commits concurrently), give exactly one success; the others
get the answer a sequential duplicate gets. The table walks every such create of the API."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
import httpx
import pytest
from offline_services import offline_services
from served_app import served

from engage_core.testing import FakeClock
from engage_http import create_app
from engage_sql import Database

CALLERS = 12


@attrs.frozen
class Create:
    """One create: the request of caller `n` (the same key in varying spellings) and the answers."""

    path: str
    body: Callable[[int], dict[str, Any]]
    created: int
    duplicate: int
    partner: bool = False
    """Sent by two partners, callers taking turns: a partner's creates are locked per partner only."""
    restarts: bool = False
    """A success may repeat: as one after another, a request may restart an attempt still pending."""


ITEMS = [{"product_name": "Tea", "quantity": 1, "unit_price": 3.5}]
CREATES = {
    "tag title, any case": Create("/tags", lambda n: {"title": "VIP" if n % 2 else " vip "}, 201, 422),
    "contact phone of a type": Create(
        "/contacts", lambda n: {"name": f"Ada {n}", "type": "whatsapp", "phone": "+14155552671"}, 201, 422
    ),
    "team member e-mail, any case": Create(
        "/team",
        lambda n: {
            "name": f"Agent {n}",
            "email": "Agent@Example.com" if n % 2 else "agent@example.com",
            "role": "agent",
            "password": "password1",
        },
        201,
        422,
    ),
    "store order reference": Create(
        "/store/orders", lambda n: {"external_reference": "wc-1001", "customer_name": "Ada", "items": ITEMS}, 201, 200
    ),
    "channel of a type": Create(
        "/channels/instagram/connect",
        lambda n: {"username": "shop.ig", "password": "secret"},
        200,
        409,
        restarts=True,
    ),
    "partner client admin e-mail": Create(
        "/partner/clients",
        lambda n: {
            "company_name": f"Client {n}",
            "plan": "pro",
            "admin": {
                "first_name": "Ada",
                "last_name": "L",
                "email": "Admin@Client.example" if n % 2 else "admin@client.example",
            },
        },
        201,
        409,
        partner=True,
    ),
    "partner client company name (a slug each)": Create(
        "/partner/clients",
        lambda n: {
            "company_name": "Acme Dental",
            "plan": "pro",
            "admin": {"first_name": "Ada", "last_name": "L", "email": f"admin{n}@client.example"},
        },
        201,
        201,
        partner=True,
    ),
}


@pytest.fixture
def base_url(database: Database) -> Iterator[tuple[str, dict[str, str], list[dict[str, str]]]]:
    """The app over `database`, served on 127.0.0.1: its URL, a workspace's headers and two partners'."""
    clock = FakeClock()
    services = offline_services(database.uow, clock)
    key = services.accounts.create("Acme").api_key
    partners = [services.partners.create(f"Agency {n}", f"agency{n}@example.com") for n in range(2)]
    with served(create_app(services)) as url:
        yield url, {"X-Api-Key": key}, [{"X-Partner-Key": partner.partner_key} for partner in partners]


def race(url: str, headers: list[dict[str, str]], create: Create) -> list[int]:
    """Every caller's status, all released together; caller `n` sends `headers[n % len(headers)]`."""
    start = threading.Barrier(CALLERS)

    def call(n: int) -> int:
        with httpx.Client(base_url=url + "/api/v1", headers=headers[n % len(headers)], timeout=60) as client:
            start.wait(timeout=30)
            return client.post(create.path, json=create.body(n)).status_code

    with ThreadPoolExecutor(CALLERS) as pool:
        return list(pool.map(call, range(CALLERS)))


@pytest.mark.parametrize("name", list(CREATES))
def test_concurrent_creates_of_one_key_succeed_once(
    base_url: tuple[str, dict[str, str], list[dict[str, str]]], name: str
) -> None:
    """One caller gets the success status; every other one the duplicate's answer, never a 5xx."""
    url, workspace, partners = base_url
    create = CREATES[name]
    statuses = race(url, partners if create.partner else [workspace], create)
    if create.restarts:
        assert create.created in statuses and set(statuses) <= {create.created, create.duplicate}, statuses
    else:
        assert sorted(statuses) == sorted([create.created] + [create.duplicate] * (CALLERS - 1)), statuses
