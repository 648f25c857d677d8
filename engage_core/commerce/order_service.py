"""Orders: place, read, change status, cancel, replace items, and import from a store platform.

The rules are in `engage_core.commerce.orders`; this module runs them inside units of work and moves the
stock. A store-sourced order's status change is pushed to the store first, outside any database
transaction (a store call must never hold the workspace's write lock); the change is then applied
in a transaction of its own, which refuses with a conflict if the order moved in between.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from decimal import Decimal

import attrs

from engage_core.commerce.orders import (
    ADDRESS_MAX,
    CREATED_BY,
    EDITABLE_ITEMS,
    ITEMS_MAX,
    NAME_MAX,
    NOTES_MAX,
    ORDER_STATUSES,
    QUANTITY_MAX,
    RESTORES_STOCK,
    STORE_SLUGS,
    ItemRequest,
    Order,
    OrderDraft,
    OrderFilter,
    OrderItem,
    OrderItemDraft,
    StoreRejected,
    cancel,
    check_item_requests,
    duplicate_key,
    duplicate_since,
    insufficient_stock,
    parse_reference,
    price_items,
    transition,
)
from engage_core.commerce.ports import StorePlatform
from engage_core.commerce.products import stock_over_maximum
from engage_core.contacts.model import Contact
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import Conflict, NotFound, ValidationFailed
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.money import TOTAL_MAX, parse_currency, parse_price
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.kernel.phones import to_e164
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, one_of, optional_email, optional_text, required_text
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

LOCAL_SOURCES = tuple(s for s in CREATED_BY if s != "store_platform")
"""`created_by` values of orders placed through `OrderService.create`."""

_Move = Callable[[Order], tuple[Order, list[DomainEvent]]]
"""A pure status move of an order (a patch with a status, or a cancellation)."""


@attrs.frozen
class OrderInput:
    """Fields of `POST /orders`. `customer_name` may be left out when `contact_id` is given: the
    customer fields left out are then taken from the contact."""

    items: Sequence[ItemRequest]
    customer_name: str | None = None
    contact_id: int | None = None
    customer_phone: str | None = None
    customer_email: str | None = None
    shipping_address: str | None = None
    notes: str | None = None


@attrs.frozen
class OrderPatch:
    """Fields of `PUT /orders/{id}`: any subset; `UNSET` leaves a field alone. `cancellation_reason`
    is read only when `status` moves to `cancelled` (and is then required)."""

    status: str | Unset = UNSET
    notes: str | Unset | None = UNSET
    shipping_address: str | Unset | None = UNSET
    cancellation_reason: str | None = None


@attrs.frozen
class PlacedOrder:
    """The answer to a create: the order, and whether it is an earlier identical order returned
    instead of a new one (`is_duplicate`, SPEC 4)."""

    order: Order
    is_duplicate: bool = False


@attrs.frozen
class StoreOrderItemInput:
    """A line as the store reports it. `product_id` links it to a local product when known."""

    product_name: str
    quantity: int
    unit_price: Decimal | int | float | str
    product_sku: str | None = None
    product_id: int | None = None


@attrs.frozen
class StoreOrderInput:
    """An order synced from the connected store. `external_reference` is the store's order id."""

    external_reference: str
    customer_name: str
    items: Sequence[StoreOrderItemInput]
    currency: str = "USD"
    status: str = "pending"
    contact_id: int | None = None
    customer_phone: str | None = None
    customer_email: str | None = None
    shipping_address: str | None = None
    notes: str | None = None


@attrs.frozen
class _Customer:
    name: str | None
    phone: str | None
    email: str | None
    shipping_address: str | None
    notes: str | None

    def filled_from(self, contact: Contact | None) -> _Customer:
        if contact is None:
            return self
        return attrs.evolve(
            self, name=self.name or contact.name, phone=self.phone or contact.phone, email=self.email or contact.email
        )


class OrderService:
    """Orders: placing them (taking stock), importing them from the connected store, and changing them
    through the order state machine (:mod:`engage_core.commerce.orders`).

    Methods that name an order raise :class:`.NotFound` when it is not in the account. Invalid input,
    too little stock and a status move the state machine does not have raise :class:`.ValidationFailed`
    naming the field, and nothing changes. A status change of a store-sourced order is pushed to the
    store first: a refusal is a :class:`.ValidationFailed` on `status`, and an order that moved
    meanwhile a :class:`.Conflict`. Changes emit `order.created`, `order.updated`, and also
    `order.cancelled` or `order.delivered` for those moves."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, store: StorePlatform) -> None:
        self._uow = uow
        self._clock = clock
        self._store = store

    # -- reading ------------------------------------------------------------------------------

    def find(self, account_id: int, filters: OrderFilter, page: PageRequest) -> Page[Order]:
        """`GET /orders`, newest first.

        Raises :class:`.ValidationFailed` for an unknown status or source, or `date_to` before
        `date_from`."""
        errors = ErrorCollector()
        if filters.status is not None:
            errors.run(lambda: one_of("status", filters.status or "", ORDER_STATUSES))
        if filters.created_by is not None:
            errors.run(lambda: one_of("created_by", filters.created_by or "", CREATED_BY))
        if filters.date_from is not None and filters.date_to is not None and filters.date_to < filters.date_from:
            errors.errors["date_to"] = ["The date to must be a date after or equal to date from."]
        errors.raise_if_any()
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.orders.find(filters, page)

    def get(self, account_id: int, order_id: int) -> Order:
        """The order `order_id`, with its items.

        Raises :class:`.NotFound` when it is not in the account."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return _order(uow, order_id)

    # -- placing ------------------------------------------------------------------------------

    def create(self, account_id: int, data: OrderInput, *, created_by: str = "api") -> PlacedOrder:
        """Place an order (`pending`), taking its stock; emits `order.created`.

        An identical order of the same contact placed less than five minutes ago (and not cancelled)
        is returned instead, with `is_duplicate` true: nothing is written and no stock is taken.
        Anything wrong (an unknown, unavailable or unpriced product, mixed currencies, too little
        stock) is a 422 and nothing is written."""
        if created_by not in LOCAL_SOURCES:
            raise ValidationFailed.on("created_by", "The created by must be one of: " + ", ".join(LOCAL_SOURCES) + ".")
        errors = ErrorCollector()
        errors.run(lambda: check_item_requests(data.items))
        customer = errors.run(lambda: _customer(data))
        errors.raise_if_any()
        assert customer is not None
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            contact = None if data.contact_id is None else _contact_field(uow, data.contact_id)
            customer = customer.filled_from(contact)
            key = duplicate_key(data.contact_id, data.items)
            if key is not None:
                existing = uow.orders.find_duplicate(key, duplicate_since(now))
                if existing is not None:
                    return PlacedOrder(existing, is_duplicate=True)  # leaving uncommitted writes nothing
            products = uow.products.get_many([item.product_id for item in data.items])
            priced = price_items(data.items, products)
            _move_stock(uow, data.items, take={item.product_id: item.quantity for item in data.items})
            assert customer.name is not None
            draft = OrderDraft(
                contact_id=data.contact_id,
                customer_name=customer.name,
                customer_phone=customer.phone,
                customer_email=customer.email,
                currency=priced.currency,
                items=priced.items,
                subtotal=priced.subtotal,
                total=priced.subtotal,
                created_by=created_by,
                shipping_address=customer.shipping_address,
                notes=customer.notes,
                duplicate_key=key,
            )
            order = uow.orders.add(draft, now)
            uow.emit(DomainEvent("order.created", order.event_payload(), now))
            uow.commit()
        return PlacedOrder(order)

    def import_store_order(self, account_id: int, data: StoreOrderInput) -> PlacedOrder:
        """Record an order synced from the connected store (`created_by` `store_platform`), at the
        store's prices; emits `order.created`. Idempotent on `external_reference`: importing it again
        returns the stored order with `is_duplicate` true and changes nothing. Local stock is not
        touched: the store keeps its own inventory."""
        draft = _store_draft(data)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            existing = uow.orders.by_external_reference(data.external_reference.strip())
            if existing is not None:
                return PlacedOrder(existing, is_duplicate=True)
            if draft.contact_id is not None:
                contact = _contact_field(uow, draft.contact_id)
                draft = attrs.evolve(
                    draft,
                    customer_phone=draft.customer_phone or contact.phone,
                    customer_email=draft.customer_email or contact.email,
                )
            linked = {i: line.product_id for i, line in enumerate(draft.items) if line.product_id is not None}
            known = uow.products.get_many(list(linked.values()))
            missing = {i for i, product_id in linked.items() if product_id not in known}
            if missing:
                raise ValidationFailed(
                    {f"items.{i}.product_id": ["The selected product does not exist."] for i in missing}
                )
            draft = attrs.evolve(draft, cancelled_at=now if draft.status == "cancelled" else None)
            order = uow.orders.add(draft, now)
            uow.emit(DomainEvent("order.created", order.event_payload(), now))
            uow.commit()
        return PlacedOrder(order)

    # -- changing -----------------------------------------------------------------------------

    def update(self, account_id: int, order_id: int, patch: OrderPatch) -> Order:
        """`PUT /orders/{id}`: notes, shipping address, and a status move of SPEC 3 (see
        `orders.transition`). Setting the status it already has is no move. Cancelling from pending
        or confirmed restores the stock. A store-sourced order's move is pushed to the store first."""
        fields = _patch_fields(patch)
        now = self._clock.now()
        return self._change(account_id, order_id, lambda current: _patched(current, fields, now))

    def cancel(self, account_id: int, order_id: int, reason: str | None = None) -> Order:
        """`POST /orders/{id}/cancel`: pending or confirmed orders only; restores the stock. A
        store-sourced order is cancelled at the store first (slug `canceled`)."""
        now = self._clock.now()
        return self._change(account_id, order_id, lambda current: cancel(current, now, reason))

    def replace_items(self, account_id: int, order_id: int, items: Sequence[ItemRequest]) -> Order:
        """`PUT /orders/{id}/items`: replace every item of a pending order, priced now. The stock
        moves by the difference per product; too little stock is a 422 and nothing changes."""
        check_item_requests(items)
        now = self._clock.now()
        with self._uow.workspace(account_id) as uow:
            current = _order(uow, order_id)
            if current.is_store_order:
                raise ValidationFailed.on(
                    "items", "The items of an order from a store platform cannot be edited; change them in the store."
                )
            if current.status not in EDITABLE_ITEMS:
                raise ValidationFailed.on(
                    "items", f"Items can be replaced only while the order is pending; this order is {current.status}."
                )
            held = _quantities(current.items)
            products = uow.products.get_many([item.product_id for item in items])
            priced = price_items(items, products, held)
            wanted = {item.product_id: item.quantity for item in items}
            _move_stock(
                uow,
                items,
                take={pid: q - held.get(pid, 0) for pid, q in wanted.items() if q > held.get(pid, 0)},
                restore={pid: q - wanted.get(pid, 0) for pid, q in held.items() if q > wanted.get(pid, 0)},
            )
            stored = uow.orders.replace_items(order_id, priced.items)
            changed = attrs.evolve(
                current,
                items=stored,
                currency=priced.currency,
                subtotal=priced.subtotal,
                total=priced.subtotal,
                duplicate_key=duplicate_key(current.contact_id, items),
                updated_at=now,
            )
            uow.orders.update(changed)
            uow.emit(DomainEvent("order.updated", changed.event_payload(), now))
            uow.commit()
        return changed

    def _change(self, account_id: int, order_id: int, move: _Move) -> Order:
        """Apply `move` to the order in one transaction. A store-sourced order whose status it
        changes is first pushed to the store, outside any transaction: the first transaction only
        checks the move and is abandoned, the push happens, and a second transaction applies the
        move, refusing with a conflict if the order moved meanwhile."""
        outcome = self._apply(account_id, order_id, move, pushed_from=None)
        if isinstance(outcome, Order):
            return outcome
        try:
            self._store.push_status(account_id, outcome.order, STORE_SLUGS[outcome.to])
        except StoreRejected as exc:
            raise ValidationFailed({"status": [exc.message]}, exc.message) from exc
        applied = self._apply(account_id, order_id, move, pushed_from=outcome.order.status)
        assert isinstance(applied, Order)
        return applied

    def _apply(self, account_id: int, order_id: int, move: _Move, *, pushed_from: str | None) -> Order | _PushFirst:
        with self._uow.workspace(account_id) as uow:
            current = _order(uow, order_id)
            if pushed_from is not None and current.status != pushed_from:
                raise Conflict(
                    f"The order moved from {pushed_from} to {current.status} while the store was being updated; "
                    "read it again and retry."
                )
            changed, events = move(current)  # raises for a move SPEC 3 does not allow: nothing is pushed
            if current.is_store_order and changed.status != current.status and pushed_from is None:
                return _PushFirst(current, changed.status)  # leaving uncommitted writes nothing
            if not events:
                return current  # nothing changed: no write, no event
            if changed.status == "cancelled" and current.status in RESTORES_STOCK and not current.is_store_order:
                _move_stock(uow, (), restore=_quantities(current.items), field="status")
            uow.orders.update(changed)
            for event in events:
                uow.emit(event)
            uow.commit()
        return changed


@attrs.frozen
class _PushFirst:
    """A status move of a store-sourced order, checked but not applied: push it to the store first."""

    order: Order
    to: str


# -- helpers -----------------------------------------------------------------------------------


def _patch_fields(patch: OrderPatch) -> OrderPatch:
    """The patch with its text fields trimmed and checked (blank is None), and its status known."""
    errors = ErrorCollector()
    notes: str | Unset | None = UNSET
    address: str | Unset | None = UNSET
    if patch.notes is not UNSET:
        checked_notes: str | None = errors.run(lambda: _optional("notes", patch.notes, NOTES_MAX))
        notes = checked_notes
    if patch.shipping_address is not UNSET:
        checked_address: str | None = errors.run(
            lambda: _optional("shipping_address", patch.shipping_address, ADDRESS_MAX)
        )
        address = checked_address
    if patch.status is not UNSET and patch.status not in ORDER_STATUSES:
        errors.errors["status"] = ["The status must be one of: " + ", ".join(ORDER_STATUSES) + "."]
    errors.raise_if_any()
    return attrs.evolve(patch, notes=notes, shipping_address=address)


def _optional(field: str, value: str | Unset | None, max_length: int) -> str | None:
    return None if value is UNSET else optional_text(field, value, max_length=max_length)


def _patched(current: Order, fields: OrderPatch, now: datetime) -> tuple[Order, list[DomainEvent]]:
    """The order after the patch, and its events (none when nothing changes)."""
    changed = current
    if fields.notes is not UNSET:
        changed = attrs.evolve(changed, notes=fields.notes)
    if fields.shipping_address is not UNSET:
        changed = attrs.evolve(changed, shipping_address=fields.shipping_address)
    if fields.status is not UNSET and fields.status != current.status:
        return transition(changed, fields.status, now, fields.cancellation_reason)
    if changed == current:
        return current, []
    changed = attrs.evolve(changed, updated_at=now)
    return changed, [DomainEvent("order.updated", changed.event_payload(), now)]


def _quantities(items: Sequence[OrderItem]) -> dict[int, int]:
    """Quantity per local product of an order's items."""
    counts: Counter[int] = Counter()
    for item in items:
        if item.product_id is not None:
            counts[item.product_id] += item.quantity
    return dict(counts)


def _move_stock(
    uow: WorkspaceUnitOfWork,
    items: Sequence[ItemRequest],
    *,
    take: Mapping[int, int] | None = None,
    restore: Mapping[int, int] | None = None,
    field: str = "items",
) -> None:
    """Take `take[product_id]` units of each product and put back `restore[product_id]`, in
    ascending product id: a database that locks each changed row until commit (PostgreSQL) then
    sees every transaction lock products in the same order, so concurrent orders never deadlock.
    The first refused take (another order took the stock since it was checked) is a 422 on that
    line of `items`, and the transaction is abandoned; so is the first refused put-back (it would
    pass `STOCK_MAX`), on its line or, for a product no line names, on `field`. A product deleted
    since the order took it has nowhere to go back to: nothing is put back."""
    take, restore = take or {}, restore or {}
    lines = {item.product_id: index for index, item in enumerate(items)}
    for product_id in sorted(take.keys() | restore.keys()):
        if take.get(product_id) and not uow.products.take_stock(product_id, take[product_id]):
            product = uow.products.get(product_id)
            available = 0 if product is None else product.stock_quantity or 0
            message = (
                "The selected product does not exist." if product is None else insufficient_stock(product, available)
            )
            raise ValidationFailed.on(f"items.{lines[product_id]}.quantity", message)
        if restore.get(product_id) and not uow.products.restore_stock(product_id, restore[product_id]):
            product = uow.products.get(product_id)
            if product is not None:
                path = f"items.{lines[product_id]}.quantity" if product_id in lines else field
                raise ValidationFailed.on(path, stock_over_maximum(product))


def _order(uow: WorkspaceUnitOfWork, order_id: int) -> Order:
    order = uow.orders.get(order_id)
    if order is None:
        raise NotFound("Order")
    return order


def _contact_field(uow: WorkspaceUnitOfWork, contact_id: int) -> Contact:
    """The contact named by a request field: an unknown one is a 422 on `contact_id`, not a 404."""
    contact = uow.contacts.get(contact_id)
    if contact is None:
        raise ValidationFailed.on("contact_id", "The selected contact does not exist.")
    return contact


def _customer(data: OrderInput) -> _Customer:
    errors = ErrorCollector()
    name = errors.run(lambda: optional_text("customer_name", data.customer_name, max_length=NAME_MAX))
    phone = errors.run(lambda: _phone(data.customer_phone))
    email = errors.run(lambda: optional_email("customer_email", data.customer_email))
    address = errors.run(lambda: optional_text("shipping_address", data.shipping_address, max_length=ADDRESS_MAX))
    notes = errors.run(lambda: optional_text("notes", data.notes, max_length=NOTES_MAX))
    if data.contact_id is not None and (isinstance(data.contact_id, bool) or data.contact_id < 1):
        errors.errors["contact_id"] = ["The contact id must be a positive whole number."]
    if name is None and data.contact_id is None and "customer_name" not in errors.errors:
        errors.errors["customer_name"] = ["The customer name field is required when contact id is not given."]
    errors.raise_if_any()
    return _Customer(name, phone, email, address, notes)


def _phone(raw: str | None) -> str | None:
    if raw is None or not raw.strip():
        return None
    try:
        return to_e164(raw)
    except ValueError as exc:
        raise ValidationFailed.on("customer_phone", str(exc).replace("The phone", "The customer phone")) from exc


def _store_draft(data: StoreOrderInput) -> OrderDraft:
    """Check every field of a store order at once and price it at the store's prices."""
    errors = ErrorCollector()
    reference = errors.run(lambda: parse_reference("external_reference", data.external_reference))
    name = errors.run(lambda: required_text("customer_name", data.customer_name, max_length=NAME_MAX))
    phone = errors.run(lambda: _phone(data.customer_phone))
    email = errors.run(lambda: optional_email("customer_email", data.customer_email))
    address = errors.run(lambda: optional_text("shipping_address", data.shipping_address, max_length=ADDRESS_MAX))
    notes = errors.run(lambda: optional_text("notes", data.notes, max_length=NOTES_MAX))
    currency = errors.run(lambda: parse_currency("currency", data.currency))
    status = errors.run(lambda: one_of("status", data.status, ORDER_STATUSES))
    if not data.items:
        errors.errors["items"] = ["The items field is required: an order needs at least one item."]
    elif len(data.items) > ITEMS_MAX:
        errors.errors["items"] = [f"An order may have at most {ITEMS_MAX} items."]
    lines: list[OrderItemDraft] = []
    for index, item in enumerate(data.items[:ITEMS_MAX]):
        try:
            lines.append(_store_line(index, item))
        except ValidationFailed as exc:
            errors.errors.update(exc.errors)
    errors.raise_if_any()
    assert reference is not None and name is not None and currency is not None and status is not None
    subtotal = sum((line.total_price for line in lines), Decimal("0.00"))
    if subtotal > TOTAL_MAX:
        raise ValidationFailed.on("items", f"The order total may not be greater than {TOTAL_MAX}.")
    return OrderDraft(
        contact_id=data.contact_id,
        customer_name=name,
        customer_phone=phone,
        customer_email=email,
        currency=currency,
        items=tuple(lines),
        subtotal=subtotal,
        total=subtotal,
        created_by="store_platform",
        status=status,
        shipping_address=address,
        notes=notes,
        external_reference=reference,
    )


def _store_line(index: int, item: StoreOrderItemInput) -> OrderItemDraft:
    path = f"items.{index}"
    errors = ErrorCollector()
    name = errors.run(lambda: required_text(f"{path}.product_name", item.product_name, max_length=NAME_MAX))
    sku = errors.run(lambda: optional_text(f"{path}.product_sku", item.product_sku, max_length=100))
    price = errors.run(lambda: parse_price(f"{path}.unit_price", item.unit_price))
    quantity = item.quantity
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= QUANTITY_MAX:
        errors.errors[f"{path}.quantity"] = [f"The quantity must be a whole number from 1 to {QUANTITY_MAX}."]
    errors.raise_if_any()
    assert name is not None and price is not None
    return OrderItemDraft(item.product_id, name, sku, quantity, price)
