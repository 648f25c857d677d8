"""Orders and stock as a state machine (SPEC 3 Order, SPEC 4 Orders), driven by Hypothesis.

Rules add products (tracked stock or untracked), restock them, let a fake clock run, place orders
(identical ones inside and outside the five-minute window among them), cancel them, move them with
PUT (valid and invalid moves, with and without a reason) and replace their items, all through the
real `Services` over the storage :meth:`~engage_testing.machines.base.EngageMachine.make_backend` gives
(the in-memory fakes by default). A plain model predicts each outcome.

After every step:

- no tracked stock is negative;
- stock is conserved: for each tracked product, what is on hand plus the quantities held by orders
  that still hold stock (every order not cancelled, and orders cancelled from `processing`, which
  SPEC 3 does not restock) equals the initial stock plus the restocks;
- a terminal order (`delivered`, `cancelled`) has no outgoing move;
- the duplicate rule held: every create the model judged new made exactly one order, and every
  duplicate made none (each create also checks the order it got back);
- orders, statuses and stock agree with the model, and the outbox has one `order.created` per order
  and one `order.cancelled` per cancelled order.

Subclass it to add invariants of your own (a shop plugin's view of the orders agreeing with engage's,
say); the machine's `services` and `account` are the workspace, `model` its predictions.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import attrs
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, initialize, invariant, multiple, rule

from engage_core.commerce.order_service import OrderInput, OrderPatch
from engage_core.commerce.orders import ItemRequest, Order, OrderFilter, transition
from engage_core.commerce.products import ProductInput
from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.service import CatalogInput
from engage_core.services import Services
from engage_core.testing import FakeClock, FakeStorePlatform

from .base import START, EngageMachine, refused

STATUSES = ("pending", "confirmed", "processing", "shipped", "delivered", "cancelled")
MOVES = {
    "pending": {"confirmed", "cancelled"},
    "confirmed": {"processing", "cancelled"},
    "processing": {"shipped", "cancelled"},
    "shipped": {"delivered"},
    "delivered": set(),
    "cancelled": set(),
}
"""SPEC 3, written out here rather than imported, so the machine checks the code against the spec."""
RESTOCKED_ON_CANCEL = {"pending", "confirmed"}
WINDOW = timedelta(minutes=5)
EVERY = PageRequest(per_page=10_000)

Lines = dict[int, int]


@attrs.define
class ModelOrder:
    id: int
    contact: int | None
    quantities: Lines
    created_at: datetime
    status: str = "pending"
    holds_stock: bool = True


def lines_strategy(products: Bundle[int]) -> st.SearchStrategy[Lines]:
    return st.lists(st.tuples(products, st.integers(1, 3)), min_size=1, max_size=3, unique_by=lambda t: t[0]).map(dict)


class OrderStockMachine(EngageMachine):
    products: Bundle[int] = Bundle("products")
    orders: Bundle[int] = Bundle("orders")

    @initialize(target=products)
    def start(self) -> Any:
        self.clock = FakeClock(START)
        self.backend = self.make_backend()
        self.services = Services.build(self.backend.uow, self.clock, store=FakeStorePlatform())
        self.account = self.services.accounts.create("Acme").account.id
        self.contacts = [
            self.services.contacts.create(self.account, ContactInput(name=name, type="instagram")).id
            for name in ("Ada", "Bob")
        ]
        self.initial: dict[int, int | None] = {}
        self.restocked: Counter[int] = Counter()
        self.stock: dict[int, int] = {}
        self.model: dict[int, ModelOrder] = {}
        return multiple(self._product(3), self._product(None))

    def _product(self, stock: int | None) -> int:
        data = CatalogInput(title="Menu", products=[ProductInput("Item", price="1.25", stock_quantity=stock)])
        product = self.services.knowledge_base.create_catalog(self.account, data).products[0]
        self.initial[product.id] = stock
        if stock is not None:
            self.stock[product.id] = stock
        return product.id

    def _short(self, wanted: Lines, held: Lines) -> bool:
        """Whether the model says some tracked product lacks the stock for `wanted` (beyond `held`)."""
        return any(pid in self.stock and q - held.get(pid, 0) > self.stock[pid] for pid, q in wanted.items())

    def _move_stock(self, before: Lines, after: Lines) -> None:
        for pid in set(before) | set(after):
            if pid in self.stock:
                self.stock[pid] += before.get(pid, 0) - after.get(pid, 0)

    # -- rules -------------------------------------------------------------------------------------

    @rule(target=products, stock=st.none() | st.integers(0, 6))
    def add_product(self, stock: int | None) -> int:
        return self._product(stock)

    @rule(product=products, quantity=st.integers(1, 4))
    def restock(self, product: int, quantity: int) -> None:
        if self.initial[product] is None:
            with refused(ValidationFailed):
                self.services.products.restock(self.account, product, quantity)
            return
        self.services.products.restock(self.account, product, quantity)
        self.restocked[product] += quantity
        self.stock[product] += quantity

    @rule(minutes=st.sampled_from([0.5, 1, 2, 4, 4.99, 5, 6]))
    def time_passes(self, minutes: float) -> None:
        self.clock.advance(minutes=minutes)

    @rule(target=orders, who=st.sampled_from([0, 1, None]), lines=lines_strategy(products))
    def place(self, who: int | None, lines: Lines) -> Any:
        return self._place(None if who is None else self.contacts[who], lines)

    def _place(self, contact: int | None, lines: Lines) -> Any:
        data = OrderInput(
            [ItemRequest(pid, q) for pid, q in lines.items()], customer_name=None if contact else "Walk-in",
            contact_id=contact,
        )  # fmt: skip
        now = self.clock.now()
        duplicates = [
            o
            for o in self.model.values()
            if contact is not None
            and o.contact == contact
            and o.quantities == lines
            and o.status != "cancelled"
            and now - o.created_at < WINDOW
        ]
        if duplicates:
            placed = self.services.orders.create(self.account, data)
            newest = max(duplicates, key=lambda o: (o.created_at, o.id))
            assert (placed.is_duplicate, placed.order.id) == (True, newest.id)
            event("duplicate returned")
            return multiple()
        if self._short(lines, {}):
            with refused(ValidationFailed):
                self.services.orders.create(self.account, data)
            event("refused: short of stock")
            return multiple()
        placed = self.services.orders.create(self.account, data)
        assert not placed.is_duplicate
        self.model[placed.order.id] = ModelOrder(placed.order.id, contact, dict(lines), now)
        self._move_stock({}, lines)
        return placed.order.id

    @rule(order=orders, reason=st.sampled_from([None, "Changed mind"]))
    def cancel(self, order: int, reason: str | None) -> None:
        model = self.model[order]
        if model.status not in ("pending", "confirmed"):
            with refused(ValidationFailed):
                self.services.orders.cancel(self.account, order, reason)
            return
        assert self.services.orders.cancel(self.account, order, reason).status == "cancelled"
        model.status, model.holds_stock = "cancelled", False
        self._move_stock(model.quantities, {})

    @rule(order=orders, to=st.sampled_from(STATUSES), reason=st.sampled_from([None, "Asked"]))
    def put_status(self, order: int, to: str, reason: str | None) -> None:
        model = self.model[order]
        patch = OrderPatch(status=to, cancellation_reason=reason)
        if to == model.status:
            self.services.orders.update(self.account, order, patch)
            return
        if to not in MOVES[model.status] or (to == "cancelled" and reason is None):
            with refused(ValidationFailed):
                self.services.orders.update(self.account, order, patch)
            event("refused: invalid move")
            return
        assert self.services.orders.update(self.account, order, patch).status == to
        if to == "cancelled" and model.status in RESTOCKED_ON_CANCEL:
            model.holds_stock = False
            self._move_stock(model.quantities, {})
        event(f"moved {model.status} -> {to}")
        model.status = to

    @rule(order=orders, steps=st.integers(1, 4), data=st.data())
    def put_valid_moves(self, order: int, steps: int, data: st.DataObject) -> None:
        """Move the order on along SPEC 3 for a few steps, so that deep states are reached often."""
        for _ in range(steps):
            moves = sorted(MOVES[self.model[order].status], key=lambda to: to == "cancelled")
            if not moves:
                return
            forward_first = moves[:1] * 3 + moves[1:]  # onward three times as often as cancelled
            self.put_status(order, data.draw(st.sampled_from(forward_first)), "Asked")

    @rule(order=orders, data=st.data())
    def put_an_invalid_move(self, order: int, data: st.DataObject) -> None:
        """Try a move SPEC 3 does not have, from whatever state the order is in."""
        status = self.model[order].status
        self.put_status(order, data.draw(st.sampled_from(sorted(set(STATUSES) - MOVES[status] - {status}))), "Asked")

    @rule(target=orders, order=orders)
    def place_the_same_again(self, order: int) -> Any:
        """A client resends an earlier order (as it stands now): a duplicate while the window is open."""
        model = self.model[order]
        return self._place(model.contact, dict(model.quantities))

    @rule(order=orders, past=st.sampled_from([timedelta(0), timedelta(microseconds=1)]))
    def time_passes_to_the_window_edge(self, order: int, past: timedelta) -> None:
        """Exactly five minutes after the order was placed (or a microsecond later), if that is ahead."""
        edge = self.model[order].created_at + WINDOW + past
        if edge > self.clock.now():
            self.clock.set(edge)

    @rule(order=orders, lines=lines_strategy(products))
    def replace_items(self, order: int, lines: Lines) -> None:
        model = self.model[order]
        items = [ItemRequest(pid, q) for pid, q in lines.items()]
        if model.status != "pending" or self._short(lines, model.quantities):
            with refused(ValidationFailed):
                self.services.orders.replace_items(self.account, order, items)
            return
        self.services.orders.replace_items(self.account, order, items)
        event("items replaced")
        self._move_stock(model.quantities, lines)
        model.quantities = dict(lines)

    # -- invariants --------------------------------------------------------------------------------

    def _orders(self) -> list[Order]:
        """The committed orders of the account, as the services read them."""
        return list(self.services.orders.find(self.account, OrderFilter(), EVERY).items)

    def _stock(self) -> dict[int, int | None]:
        return {pid: self.services.products.get(self.account, pid).stock_quantity for pid in self.initial}

    @invariant()
    def stock_is_never_negative(self) -> None:
        assert all(q is None or q >= 0 for q in self._stock().values())

    @invariant()
    def stock_is_conserved(self) -> None:
        held: Counter[int] = Counter()
        for order in self._orders():
            if order.status != "cancelled" or self.model[order.id].holds_stock:
                for item in order.items:
                    assert item.product_id is not None
                    held[item.product_id] += item.quantity
        for pid, on_hand in self._stock().items():
            initial = self.initial[pid]
            if initial is None:
                assert on_hand is None
            else:
                assert on_hand is not None and on_hand + held[pid] == initial + self.restocked[pid], pid

    @invariant()
    def terminal_states_have_no_outgoing_move(self) -> None:
        for order in self._orders():
            if order.status in ("delivered", "cancelled"):
                for to in STATUSES:
                    with refused(ValidationFailed):
                        transition(order, to, self.clock.now(), "Asked")

    @invariant()
    def the_duplicate_rule_held(self) -> None:
        assert sorted(o.id for o in self._orders()) == sorted(self.model)

    @invariant()
    def orders_and_stock_agree_with_the_model(self) -> None:
        for order in self._orders():
            model = self.model[order.id]
            assert order.status == model.status
            assert {i.product_id: i.quantity for i in order.items} == model.quantities
        assert {pid: q for pid, q in self._stock().items() if q is not None} == self.stock

    @invariant()
    def the_outbox_tells_every_creation_and_cancellation(self) -> None:
        names = Counter(e.name for e in self.backend.events(self.account))
        assert names["order.created"] == len(self.model)
        assert names["order.cancelled"] == sum(1 for o in self.model.values() if o.status == "cancelled")
