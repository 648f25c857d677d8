"""Orders on SQL only: the webhook attempts their events queue, read from the table (the rest is in
tests/contract/test_contract_commerce.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import select

from engage_core.commerce.order_service import OrderInput, PlacedOrder
from engage_core.commerce.orders import ItemRequest
from engage_core.commerce.products import Product, ProductInput
from engage_core.kernel.errors import ValidationFailed
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, FakeStorePlatform
from engage_core.webhooks.service import WebhookInput
from engage_sql import Database
from engage_sql.webhooks.tables import webhook_attempts

ORDER_EVENTS = ("order.created", "order.updated", "order.cancelled", "order.delivered")


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    """The services with a store platform and webhooks configured."""
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), store=FakeStorePlatform())


@pytest.fixture
def make_product(services: Services, account: int) -> Callable[..., Product]:
    """`make_product(name="Tea", price="3.50", stock_quantity=10, account_id=account) -> Product`."""

    def make(
        name: str = "Tea", price: Any = "3.50", stock_quantity: Any = 10, account_id: int | None = None
    ) -> Product:
        data = CatalogInput(
            f"{name} catalog", products=[ProductInput(name, price=price, stock_quantity=stock_quantity)]
        )
        return services.knowledge_base.create_catalog(account if account_id is None else account_id, data).products[0]

    return make


def _place(services: Services, account: int, *lines: tuple[Product, int], **fields: Any) -> PlacedOrder:
    data = OrderInput(items=[ItemRequest(p.id, q) for p, q in lines], **({"customer_name": "Ada"} | fields))
    return services.orders.create(account, data)


def test_order_events_queue_webhook_deliveries_with_the_change(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """A subscription to order events gets one attempt per committed event; a refused change none."""
    services.webhooks.create(account, WebhookInput("Orders", "https://hooks.example.com/o", list(ORDER_EVENTS)))
    tea = make_product("Tea", stock_quantity=1)
    order = _place(services, account, (tea, 1)).order
    with pytest.raises(ValidationFailed):
        _place(services, account, (tea, 1))  # out of stock: rolled back
    services.orders.cancel(account, order.id)

    with database.engine.connect() as connection:
        queued = connection.execute(select(webhook_attempts.c.event_type).order_by(webhook_attempts.c.id)).scalars()
        assert list(queued) == ["order.created", "order.updated", "order.cancelled"]
