"""Property-testing code built on engage with its testing kit (``pip install 'engage-platform[testing]'``).

    python examples/property_testing.py      # or: pytest examples/property_testing.py

Two small integrations, each tested against engage's own rules rather than hand-picked examples:

1. ``CrmSync``, a webhook consumer that mirrors contacts and counts orders. Hypothesis draws
   deliveries of every event of the catalogue, made by the real services and signed by engage's
   own delivery code (``engage_testing.events.deliveries``): every one is accepted, a tampered one
   is refused, a retried one is applied once.
2. ``Storefront``, a shop plugin that places orders through the library and shows what is left in
   stock. Its checkout is fuzzed with valid and invalid orders (``engage_testing.strategies``), and
   it is checked inside engage's order state machine (``engage_testing.machines.OrderStockMachine``,
   subclassed with invariants of the plugin's own) while Hypothesis places, cancels and moves
   orders and restocks products in any order.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import invariant, run_state_machine_as_test

from engage_core import InvalidSignature, ValidationFailed, verify_signature
from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import OrderFilter
from engage_core.commerce.products import ProductInput
from engage_core.contacts.model import ContactInput
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory
from engage_testing.events import Delivery, deliveries
from engage_testing.machines import OrderStockMachine
from engage_testing.strategies import order_inputs

SECRET = base64.b64encode(b"example secret, 48 bytes long, as engage's are..").decode()
SENT_AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)

# -- 1. a webhook consumer ---------------------------------------------------------------------------


class CrmSync:
    """Mirrors engage's contacts and counts its orders from webhook deliveries."""

    def __init__(self, secret: str, now: float | None = None) -> None:
        self.secret = secret
        self.now = now
        self.contacts: dict[int, str] = {}
        self.orders = 0
        self.seen: set[str] = set()

    def handle(self, headers: Mapping[str, str], body: bytes) -> int:
        """The HTTP status to answer a delivery with."""
        try:
            signature, timestamp = headers.get("X-Service-Signature-256"), headers.get("X-Service-Timestamp")
            verify_signature(self.secret, body, signature, timestamp, now=self.now)
        except InvalidSignature:
            return 401
        envelope: dict[str, Any] = json.loads(body)
        if envelope["delivery_id"] in self.seen:
            return 204  # at least once: a retry of a delivery already applied
        self.seen.add(envelope["delivery_id"])
        data = envelope["data"]
        if envelope["event"] in ("contact.created", "contact.updated"):
            self.contacts[data["id"]] = data["name"]
        elif envelope["event"] == "contact.deleted":
            self.contacts.pop(data["id"], None)
        elif envelope["event"] == "order.created":
            self.orders += 1
        return 204  # every other event is acknowledged, or engage would retry it


@settings(max_examples=60, deadline=None)
@given(deliveries(SECRET, sent_at=SENT_AT))
def test_the_consumer_accepts_every_event(delivery: Delivery) -> None:
    """Every event of the catalogue, as engage delivers it, is acknowledged."""
    assert CrmSync(SECRET, now=SENT_AT.timestamp()).handle(delivery.headers, delivery.body) == 204


@settings(max_examples=30, deadline=None)
@given(deliveries(SECRET, sent_at=SENT_AT), st.data())
def test_the_consumer_refuses_a_tampered_body(delivery: Delivery, data: st.DataObject) -> None:
    """A body changed by one byte fails the signature check."""
    at = data.draw(st.integers(0, len(delivery.body) - 1))
    tampered = delivery.body[:at] + bytes([delivery.body[at] ^ 1]) + delivery.body[at + 1 :]
    assert CrmSync(SECRET, now=SENT_AT.timestamp()).handle(delivery.headers, tampered) == 401


@settings(max_examples=30, deadline=None)
@given(deliveries(SECRET, ["contact.created", "order.created"], sent_at=SENT_AT))
def test_a_retried_delivery_is_applied_once(delivery: Delivery) -> None:
    """The same delivery twice changes the mirror once."""
    consumer = CrmSync(SECRET, now=SENT_AT.timestamp())
    consumer.handle(delivery.headers, delivery.body)
    after_once = (dict(consumer.contacts), consumer.orders)
    assert consumer.handle(delivery.headers, delivery.body) == 204
    assert (consumer.contacts, consumer.orders) == after_once


# -- 2. an order-placing client ----------------------------------------------------------------------


class Storefront:
    """A shop plugin over the library: checkout, and what it shows customers."""

    def __init__(self, services: Services, account_id: int) -> None:
        self.services = services
        self.account_id = account_id

    def checkout(self, order: OrderInput) -> int | dict[str, list[str]]:
        """The new order's id, or the problems to show the customer, field by field."""
        try:
            return self.services.orders.create(self.account_id, order).order.id
        except ValidationFailed as refused:
            return dict(refused.errors)

    def in_stock(self, product_id: int) -> int | None:
        """What the shop shows as left (None: not counted, always available)."""
        return self.services.products.get(self.account_id, product_id).stock_quantity

    def open_orders(self) -> list[int]:
        """Orders still to fulfil."""
        page = self.services.orders.find(self.account_id, OrderFilter(), PageRequest(per_page=1000))
        return [o.id for o in page.items if o.status in ("pending", "confirmed", "processing")]


def _shop() -> tuple[Storefront, list[int], list[int]]:
    """A workspace over the in-memory fakes with a priced catalogue and two contacts."""
    services = Services.build(InMemoryUnitOfWorkFactory(), FakeClock())
    account = services.accounts.create("Shop").account.id
    items = [ProductInput(f"Item {n}", price="4.20", stock_quantity=50) for n in range(3)]
    catalog = CatalogInput("Menu", products=items)
    products = [p.id for p in services.knowledge_base.create_catalog(account, catalog).products]
    contacts = [services.contacts.create(account, ContactInput(f"Customer {n}", "instagram")).id for n in range(2)]
    return Storefront(services, account), products, contacts


@settings(max_examples=40, deadline=None)
@given(st.data(), st.booleans())
def test_checkout_places_valid_orders_and_explains_invalid_ones(data: st.DataObject, invalid: bool) -> None:
    """A valid order is placed; an invalid one places nothing and tells the customer why."""
    shop, products, contacts = _shop()
    order = data.draw(order_inputs(products, contact_ids=contacts, invalid=invalid))
    outcome = shop.checkout(order)
    if invalid:
        assert isinstance(outcome, dict) and outcome and shop.open_orders() == []
    else:
        assert isinstance(outcome, int) and shop.open_orders() == [outcome]


class StorefrontMachine(OrderStockMachine):
    """engage's order and stock rules, with the storefront's own promises checked after every step."""

    @invariant()
    def the_shop_never_shows_negative_stock(self) -> None:
        shop = Storefront(self.services, self.account)
        assert all((shop.in_stock(p) or 0) >= 0 for p in self.initial)

    @invariant()
    def open_orders_are_the_models_unfinished_ones(self) -> None:
        shop = Storefront(self.services, self.account)
        unfinished = {i for i, o in self.model.items() if o.status in ("pending", "confirmed", "processing")}
        assert set(shop.open_orders()) == unfinished


def test_the_storefront_keeps_its_promises_under_engages_rules() -> None:
    """Whatever orders and restocks happen, the storefront agrees with engage."""
    run_state_machine_as_test(
        StorefrontMachine, settings=settings(max_examples=20, stateful_step_count=30, deadline=None)
    )


if __name__ == "__main__":
    for name, test in list(globals().items()):
        if name.startswith("test_") and callable(test):
            test()
            print(f"ok  {name}")
