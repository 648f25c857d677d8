"""Orders through the SQL order repository and OrderService (reference: engage_core.testing)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

import attrs
import pytest
from sqlalchemy import select

from engage_core.commerce.order_service import OrderInput, OrderPatch, PlacedOrder, StoreOrderInput, StoreOrderItemInput
from engage_core.commerce.orders import ItemRequest, Order, OrderDraft, OrderFilter, OrderItemDraft, duplicate_key
from engage_core.commerce.products import Product, ProductInput
from engage_core.contacts.model import Contact
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.money import PRICE_MAX, TOTAL_MAX
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher, FakeClock, FakeStorePlatform
from engage_core.webhooks.service import WebhookInput
from engage_sql import Database
from engage_sql.webhooks.tables import webhook_attempts

from .conftest import START

MakeContact = Callable[..., Contact]
ORDER_EVENTS = ("order.created", "order.updated", "order.cancelled", "order.delivered")


@pytest.fixture
def services(database: Database, clock: FakeClock) -> Services:
    """The services with a store platform and webhooks configured."""
    return Services.build(database.uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), store=FakeStorePlatform())


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


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


def _stock(services: Services, account: int, product: Product) -> int | None:
    return services.products.get(account, product.id).stock_quantity


def _line(name: str = "Tea", quantity: int = 1, price: str = "3.50", product_id: int | None = None) -> OrderItemDraft:
    return OrderItemDraft(product_id, name, f"SKU-{name}", quantity, Decimal(price))


def _draft(*items: OrderItemDraft, **fields: Any) -> OrderDraft:
    lines = items or (_line(),)
    subtotal = sum((i.total_price for i in lines), Decimal("0.00"))
    defaults: dict[str, Any] = {
        "contact_id": None,
        "customer_name": "Ada",
        "customer_phone": None,
        "customer_email": None,
        "currency": "USD",
        "items": lines,
        "subtotal": subtotal,
        "total": subtotal,
        "created_by": "api",
    }
    return OrderDraft(**(defaults | fields))


def _add(database: Database, account: int, draft: OrderDraft, now: datetime = START) -> Order:
    with database.uow.workspace(account) as uow:
        order = uow.orders.add(draft, now)
        uow.commit()
    return order


def _get(database: Database, account: int, order_id: int) -> Order | None:
    with database.uow.workspace(account, readonly=True) as uow:
        return uow.orders.get(order_id)


def _names(database: Database, account: int, filters: OrderFilter, page: PageRequest | None = None) -> list[str]:
    with database.uow.workspace(account, readonly=True) as uow:
        return [o.customer_name for o in uow.orders.find(filters, page or PageRequest(per_page=100)).items]


def _order_events(database: Database, account: int) -> list[tuple[str, Any]]:
    return [(e.name, e.payload) for e in database.outbox_events(account) if e.name.startswith("order.")]


# -- the repository: storing and reading -----------------------------------------------------------


def test_added_order_reads_back_equal(database: Database, account: int) -> None:
    """Every field of an order and its items survives the round trip, amounts exact."""
    draft = _draft(
        _line("Tea", 3, "3.35", product_id=41),
        _line("Store-only mug", 1, "12.00"),
        contact_id=77,
        customer_name="Ada Lovelace",
        customer_phone="+966501234567",
        customer_email="ada@example.com",
        currency="SAR",
        created_by="store_platform",
        status="cancelled",
        shipping_address="12 St James's Square",
        notes="Leave at the door",
        cancelled_at=START,
        cancellation_reason="Changed her mind",
        external_reference="shop-1001",
        duplicate_key="d" * 64,
    )

    added = _add(database, account, draft)

    assert _get(database, account, added.id) == added
    assert (added.subtotal, [i.total_price for i in added.items]) == (
        Decimal("22.05"),
        [Decimal("10.05"), Decimal("12.00")],
    )
    assert attrs.evolve(added, id=0, items=()) == Order(
        0, 77, "Ada Lovelace", "+966501234567", "ada@example.com", "cancelled", Decimal("22.05"), Decimal("22.05"),
        "SAR", "12 St James's Square", "Leave at the door", "store_platform", (), START, "Changed her mind", START,
        START, "shop-1001", "d" * 64,
    )  # fmt: skip


def test_largest_amounts_are_exact(database: Database, account: int) -> None:
    """The largest unit price and order total read back to the cent."""
    line = OrderItemDraft(None, "Yacht", None, 1, PRICE_MAX)
    draft = _draft(line, subtotal=TOTAL_MAX, total=TOTAL_MAX)

    found = _get(database, account, _add(database, account, draft).id)

    assert found is not None
    assert (found.items[0].unit_price, found.subtotal, found.total) == (PRICE_MAX, TOTAL_MAX, TOTAL_MAX)


def test_item_ids_ascend_in_the_order_given(database: Database, account: int) -> None:
    """Items come back in the order given, with ascending ids."""
    names = [f"Line {n}" for n in range(12)]

    order = _add(database, account, _draft(*(_line(name) for name in names)))

    found = _get(database, account, order.id)
    assert found is not None and [i.product_name for i in found.items] == names
    assert [i.id for i in found.items] == sorted(i.id for i in found.items)


def test_missing_and_foreign_orders_are_none(database: Database, account: int, other: int) -> None:
    """An unknown id and another account's order both read as None."""
    theirs = _add(database, other, _draft())

    assert (_get(database, account, theirs.id), _get(database, account, 987654)) == (None, None)


def test_update_stores_the_scalar_fields_and_keeps_the_items(database: Database, account: int) -> None:
    """update() writes every scalar field; items change only through replace_items."""
    order = _add(database, account, _draft(_line("Tea", 2)))
    later = START + timedelta(hours=2)
    changed = attrs.evolve(
        order,
        status="cancelled",
        notes="Out of town",
        shipping_address="Elsewhere 1",
        cancelled_at=later,
        cancellation_reason="Too late",
        subtotal=Decimal("1.10"),
        total=Decimal("1.10"),
        duplicate_key="e" * 64,
        updated_at=later,
        items=(),
    )

    with database.uow.workspace(account) as uow:
        uow.orders.update(changed)
        uow.commit()

    assert _get(database, account, order.id) == attrs.evolve(changed, items=order.items)


def test_updating_another_accounts_order_does_nothing(database: Database, account: int, other: int) -> None:
    """update() with another account's order id leaves their order alone."""
    theirs = _add(database, other, _draft())

    with database.uow.workspace(account) as uow:
        uow.orders.update(attrs.evolve(theirs, status="cancelled", notes="mine now"))
        uow.commit()

    assert _get(database, other, theirs.id) == theirs


def test_replace_items_stores_new_rows(database: Database, account: int) -> None:
    """replace_items drops the old rows and stores the new ones with new, ascending ids."""
    order = _add(database, account, _draft(_line("Old A"), _line("Old B")))

    with database.uow.workspace(account) as uow:
        stored = uow.orders.replace_items(order.id, [_line("New A", 2), _line("New B"), _line("New C")])
        uow.commit()

    found = _get(database, account, order.id)
    assert found is not None and found.items == stored
    assert [i.product_name for i in stored] == ["New A", "New B", "New C"]
    assert min(i.id for i in stored) > max(i.id for i in order.items)
    assert [i.id for i in stored] == sorted(i.id for i in stored)


def test_replace_items_of_another_accounts_order_does_nothing(database: Database, account: int, other: int) -> None:
    """replace_items returns nothing for another account's order and leaves its items alone."""
    theirs = _add(database, other, _draft(_line("Theirs")))

    with database.uow.workspace(account) as uow:
        stored = uow.orders.replace_items(theirs.id, [_line("Mine")])
        uow.commit()

    assert (stored, _get(database, other, theirs.id)) == ((), theirs)


def test_items_keep_their_snapshot_when_the_product_is_deleted(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """Deleting a product leaves the order's line, product_id included, as it was."""
    product = make_product("Tea")
    order = _place(services, account, (product, 2)).order

    services.knowledge_base.delete_product(account, product.knowledge_base_id, product.id)

    assert services.orders.get(account, order.id) == order


# -- the repository: store references and the duplicate window -------------------------------------


def test_by_external_reference_finds_the_store_order(database: Database, account: int, other: int) -> None:
    """The reference finds the account's own store order only."""
    mine = _add(database, account, _draft(external_reference="shop-7", created_by="store_platform"))
    _add(database, other, _draft(external_reference="shop-8", created_by="store_platform"))

    with database.uow.workspace(account, readonly=True) as uow:
        found = (uow.orders.by_external_reference("shop-7"), uow.orders.by_external_reference("shop-8"))

    assert found == (mine, None)


def test_a_reference_is_unique_per_account(database: Database, account: int) -> None:
    """A second order with a taken reference is refused, and the transaction remains usable."""
    _add(database, account, _draft(external_reference="shop-7", created_by="store_platform"))

    with database.uow.workspace(account) as uow:
        with pytest.raises(ValidationFailed) as refused:
            uow.orders.add(_draft(external_reference="shop-7", created_by="store_platform"), START)
        kept = uow.orders.add(_draft(customer_name="After"), START)
        uow.commit()

    assert list(refused.value.errors) == ["external_reference"]
    assert _get(database, account, kept.id) == kept


def test_the_same_reference_in_two_accounts_is_two_orders(database: Database, account: int, other: int) -> None:
    """Store references are unique within an account only."""
    mine = _add(database, account, _draft(external_reference="shop-7", created_by="store_platform"))
    theirs = _add(database, other, _draft(external_reference="shop-7", created_by="store_platform"))

    assert mine.id != theirs.id


def _duplicate(database: Database, account: int, key: str, since: datetime) -> Order | None:
    with database.uow.workspace(account) as uow:
        return uow.orders.find_duplicate(key, since)


def test_find_duplicate_returns_the_newest_inside_the_window(database: Database, account: int) -> None:
    """The newest order with the key created strictly after `since` is the duplicate."""
    key = "k" * 64
    _add(database, account, _draft(customer_name="At the edge", duplicate_key=key), START)
    newest = _add(database, account, _draft(customer_name="Newest", duplicate_key=key), START + timedelta(seconds=2))
    _add(database, account, _draft(customer_name="Older", duplicate_key=key), START + timedelta(seconds=1))

    assert _duplicate(database, account, key, START) == newest
    assert _duplicate(database, account, key, START + timedelta(seconds=2)) is None


def test_find_duplicate_ignores_cancelled_orders_other_keys_and_accounts(
    database: Database, account: int, other: int
) -> None:
    """Cancelled orders, orders with another key and another account's orders are never duplicates."""
    key = "k" * 64
    _add(database, account, _draft(duplicate_key=key, status="cancelled", cancelled_at=START))
    _add(database, account, _draft(duplicate_key="x" * 64))
    _add(database, other, _draft(duplicate_key=key))

    assert _duplicate(database, account, key, START - timedelta(minutes=5)) is None


# -- the repository: listing -----------------------------------------------------------------------


def test_find_lists_newest_first(database: Database, account: int) -> None:
    """Orders come newest first; orders of the same instant, highest id first."""
    _add(database, account, _draft(customer_name="old"), START)
    _add(database, account, _draft(customer_name="tie 1"), START + timedelta(seconds=1))
    _add(database, account, _draft(customer_name="tie 2"), START + timedelta(seconds=1))
    _add(database, account, _draft(customer_name="new"), START + timedelta(seconds=1, microseconds=1))

    assert _names(database, account, OrderFilter()) == ["new", "tie 2", "tie 1", "old"]


@pytest.fixture
def ledger(database: Database, account: int) -> None:
    """Orders differing in status, contact and source."""
    _add(database, account, _draft(customer_name="pending api"))
    _add(database, account, _draft(customer_name="shipped manual", status="shipped", created_by="manual"))
    _add(database, account, _draft(customer_name="pending contact 5", contact_id=5, created_by="ai_agent"))
    _add(database, account, _draft(customer_name="shipped contact 5", contact_id=5, status="shipped"))


@pytest.mark.usefixtures("ledger")
@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (OrderFilter(status="shipped"), ["shipped contact 5", "shipped manual"]),
        (OrderFilter(contact_id=5), ["shipped contact 5", "pending contact 5"]),
        (OrderFilter(created_by="manual"), ["shipped manual"]),
        (OrderFilter(status="pending", contact_id=5), ["pending contact 5"]),
        (OrderFilter(status="delivered"), []),
    ],
)
def test_find_filters_by_status_contact_and_source(
    database: Database, account: int, filters: OrderFilter, expected: list[str]
) -> None:
    """Each filter narrows the list as `OrderFilter.matches` does; filters combine."""
    assert _names(database, account, filters) == expected


def test_date_filters_are_whole_utc_days(database: Database, account: int) -> None:
    """date_from and date_to include the whole of their UTC day, to the last microsecond."""
    midnight = datetime(2026, 3, 2, tzinfo=UTC)
    _add(database, account, _draft(customer_name="last of 1st"), midnight - timedelta(microseconds=1))
    _add(database, account, _draft(customer_name="first of 2nd"), midnight)
    _add(database, account, _draft(customer_name="last of 2nd"), midnight + timedelta(days=1, microseconds=-1))
    _add(database, account, _draft(customer_name="first of 3rd"), midnight + timedelta(days=1))

    assert _names(database, account, OrderFilter(date_from=date(2026, 3, 2), date_to=date(2026, 3, 2))) == [
        "last of 2nd",
        "first of 2nd",
    ]
    assert _names(database, account, OrderFilter(date_to=date(2026, 3, 1))) == ["last of 1st"]
    assert _names(database, account, OrderFilter(date_from=date(2026, 3, 3))) == ["first of 3rd"]


def test_date_filters_accept_the_extreme_days(database: Database, account: int) -> None:
    """The first and last representable days are valid bounds, not overflows."""
    _add(database, account, _draft(customer_name="any"))

    assert _names(database, account, OrderFilter(date_from=date.min, date_to=date.max)) == ["any"]


def test_find_pages_newest_first(database: Database, account: int) -> None:
    """Pages slice the newest-first order; the total counts every match; past the end is empty."""
    for n in range(7):
        _add(database, account, _draft(customer_name=f"O{n}"), START + timedelta(seconds=n))

    with database.uow.workspace(account, readonly=True) as uow:
        second = uow.orders.find(OrderFilter(), PageRequest(page=2, per_page=3))
        beyond = uow.orders.find(OrderFilter(), PageRequest(page=4, per_page=3))

    assert ([o.customer_name for o in second.items], second.total) == (["O3", "O2", "O1"], 7)
    assert (list(beyond.items), beyond.total) == ([], 7)


def test_found_orders_carry_their_items(database: Database, account: int) -> None:
    """Each listed order has its own items, in order."""
    first = _add(database, account, _draft(_line("A"), _line("B")), START)
    second = _add(database, account, _draft(_line("C")), START + timedelta(seconds=1))

    with database.uow.workspace(account, readonly=True) as uow:
        assert list(uow.orders.find(OrderFilter(), PageRequest()).items) == [second, first]


def test_find_sees_only_the_accounts_orders(database: Database, account: int, other: int) -> None:
    """Listing orders never shows another account's."""
    _add(database, other, _draft(customer_name="theirs", contact_id=5))
    _add(database, account, _draft(customer_name="mine", contact_id=5))

    assert _names(database, account, OrderFilter(contact_id=5)) == ["mine"]


# -- the service over SQL: stock, duplicates and events --------------------------------------------


def test_placing_takes_stock_and_records_order_created(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """An order takes its stock and commits `order.created` with the order's payload."""
    tea, cake = make_product("Tea", stock_quantity=5), make_product("Cake", price="2.25", stock_quantity=None)

    order = _place(services, account, (tea, 2), (cake, 3)).order

    assert services.orders.get(account, order.id) == order
    assert (_stock(services, account, tea), _stock(services, account, cake), order.subtotal) == (
        3,
        None,
        Decimal("13.75"),
    )
    assert _order_events(database, account) == [("order.created", order.event_payload())]


def test_a_refused_order_writes_nothing(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """Too little stock of one line: no order, no stock taken from the others, no event."""
    tea, cake = make_product("Tea", stock_quantity=5), make_product("Cake", stock_quantity=1)

    with pytest.raises(ValidationFailed) as refused:
        _place(services, account, (tea, 2), (cake, 2))

    assert list(refused.value.errors) == ["items.1.quantity"]
    assert (_stock(services, account, tea), _stock(services, account, cake)) == (5, 1)
    assert services.orders.find(account, OrderFilter(), PageRequest()).total == 0
    assert _order_events(database, account) == []


def test_an_identical_order_is_the_same_order(
    services: Services, account: int, make_product: Callable[..., Product], make_contact: MakeContact
) -> None:
    """The same contact, products and quantities within five minutes return the first order, taking no stock."""
    tea, cake = make_product("Tea"), make_product("Cake")
    contact = make_contact()
    first = _place(services, account, (tea, 1), (cake, 2), contact_id=contact.id)

    again = _place(services, account, (cake, 2), (tea, 1), contact_id=contact.id)

    assert (again.order, again.is_duplicate) == (first.order, True)
    assert (_stock(services, account, tea), _stock(services, account, cake)) == (9, 8)


def test_five_minutes_later_it_is_a_new_order(
    services: Services,
    account: int,
    clock: FakeClock,
    make_product: Callable[..., Product],
    make_contact: MakeContact,
) -> None:
    """The window is open for less than five minutes: at five minutes the same order is new."""
    tea = make_product("Tea")
    contact = make_contact()
    first = _place(services, account, (tea, 1), contact_id=contact.id)

    clock.advance(minutes=5)
    again = _place(services, account, (tea, 1), contact_id=contact.id)

    assert (again.is_duplicate, again.order.id != first.order.id) == (False, True)


def test_a_cancelled_order_has_no_duplicate(
    services: Services, account: int, make_product: Callable[..., Product], make_contact: MakeContact
) -> None:
    """Once cancelled, the same order can be placed again at once."""
    tea = make_product("Tea")
    contact = make_contact()
    first = _place(services, account, (tea, 1), contact_id=contact.id).order
    services.orders.cancel(account, first.id)

    assert _place(services, account, (tea, 1), contact_id=contact.id).is_duplicate is False


def test_the_stored_duplicate_key_is_the_cores(
    services: Services, account: int, make_product: Callable[..., Product], make_contact: MakeContact
) -> None:
    """The order stores `duplicate_key(contact, items)`, the value the window looks up."""
    tea = make_product("Tea")
    contact = make_contact()

    order = _place(services, account, (tea, 2), contact_id=contact.id).order

    assert order.duplicate_key == duplicate_key(contact.id, [ItemRequest(tea.id, 2)])
    assert services.orders.get(account, order.id).duplicate_key == order.duplicate_key


def test_cancel_restores_stock_and_records_both_events(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """Cancelling a pending order puts its stock back and commits order.updated then order.cancelled."""
    tea = make_product("Tea", stock_quantity=5)
    order = _place(services, account, (tea, 3)).order

    cancelled = services.orders.cancel(account, order.id, "Changed my mind")

    assert (_stock(services, account, tea), services.orders.get(account, order.id)) == (5, cancelled)
    assert _order_events(database, account)[1:] == [
        ("order.updated", cancelled.event_payload()),
        ("order.cancelled", cancelled.cancelled_payload()),
    ]


def test_cancelling_a_processing_order_keeps_the_stock_out(
    services: Services, account: int, make_product: Callable[..., Product]
) -> None:
    """A cancellation from processing restores nothing (the goods may be picked already)."""
    tea = make_product("Tea", stock_quantity=5)
    order = _place(services, account, (tea, 3)).order
    services.orders.update(account, order.id, OrderPatch(status="confirmed"))
    services.orders.update(account, order.id, OrderPatch(status="processing"))

    services.orders.update(account, order.id, OrderPatch(status="cancelled", cancellation_reason="Lost parcel"))

    assert _stock(services, account, tea) == 2


def test_replacing_items_moves_stock_by_the_difference(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """More of a product takes the extra, less or none gives back the rest, a new one takes its own."""
    tea, cake, jam = (make_product(name, stock_quantity=10) for name in ("Tea", "Cake", "Jam"))
    order = _place(services, account, (tea, 3), (cake, 4)).order

    changed = services.orders.replace_items(account, order.id, [ItemRequest(tea.id, 5), ItemRequest(jam.id, 2)])

    assert [_stock(services, account, p) for p in (tea, cake, jam)] == [5, 10, 8]
    assert services.orders.get(account, order.id) == changed
    assert _order_events(database, account)[-1] == ("order.updated", changed.event_payload())


def test_replacing_beyond_the_stock_changes_nothing(
    services: Services, account: int, make_product: Callable[..., Product]
) -> None:
    """Asking for more than is on hand plus what the order holds is refused; nothing moves."""
    tea = make_product("Tea", stock_quantity=4)
    order = _place(services, account, (tea, 3)).order

    with pytest.raises(ValidationFailed):
        services.orders.replace_items(account, order.id, [ItemRequest(tea.id, 5)])

    assert (_stock(services, account, tea), services.orders.get(account, order.id)) == (1, order)


def test_status_moves_record_their_events(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """Each move commits order.updated; delivery adds order.delivered."""
    order = _place(services, account, (make_product(), 1)).order
    for status in ("confirmed", "processing", "shipped", "delivered"):
        services.orders.update(account, order.id, OrderPatch(status=status))

    assert [name for name, _ in _order_events(database, account)] == [
        "order.created",
        "order.updated",
        "order.updated",
        "order.updated",
        "order.updated",
        "order.delivered",
    ]


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


def test_store_orders_are_imported_once(
    services: Services, database: Database, account: int, make_product: Callable[..., Product]
) -> None:
    """Importing a store reference again returns the stored order; local stock never moves."""
    tea = make_product("Tea", stock_quantity=5)
    data = StoreOrderInput(
        "shop-1001", "Ada", [StoreOrderItemInput("Tea", 2, "4.10", product_id=tea.id)], currency="eur"
    )

    first = services.orders.import_store_order(account, data)
    again = services.orders.import_store_order(account, data)

    assert (again.order, again.is_duplicate, first.is_duplicate) == (first.order, True, False)
    assert (first.order.external_reference, first.order.subtotal, _stock(services, account, tea)) == (
        "shop-1001",
        Decimal("8.20"),
        5,
    )
    assert [name for name, _ in _order_events(database, account)] == ["order.created"]


def test_another_accounts_order_is_not_found_through_the_service(
    services: Services, account: int, other: int, make_product: Callable[..., Product]
) -> None:
    """Reading, changing, cancelling or re-itemising another account's order is 404."""
    theirs_product = make_product("Theirs", account_id=other)
    theirs = _place(services, other, (theirs_product, 1)).order

    attempts: Sequence[Callable[[], object]] = (
        lambda: services.orders.get(account, theirs.id),
        lambda: services.orders.update(account, theirs.id, OrderPatch(notes="mine")),
        lambda: services.orders.cancel(account, theirs.id),
        lambda: services.orders.replace_items(account, theirs.id, [ItemRequest(theirs_product.id, 1)]),
    )
    for attempt in attempts:
        with pytest.raises(NotFound):
            attempt()
    assert services.orders.get(other, theirs.id) == theirs


def test_another_accounts_product_cannot_be_ordered(
    services: Services, account: int, other: int, make_product: Callable[..., Product]
) -> None:
    """A product id of another account is an unknown product, and its stock does not move."""
    theirs = make_product("Theirs", stock_quantity=3, account_id=other)

    with pytest.raises(ValidationFailed) as refused:
        _place(services, account, (theirs, 1))

    assert list(refused.value.errors) == ["items.0.product_id"]
    assert _stock(services, other, theirs) == 3
