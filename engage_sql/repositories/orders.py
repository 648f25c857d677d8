"""Orders of one account with their items.

Identical creates racing each other must produce one order (`OrderRepository.find_duplicate`), and
racing imports of one store order one row (`by_external_reference`). On SQLite the write units of
work already run one at a time (`BEGIN IMMEDIATE`, and the group commit's turns within a process),
so a look-up sees every order committed before it and none can be committed until it ends. On
PostgreSQL, transactions run at once: each look-up first takes a transaction-level advisory lock
on its key, held until commit or rollback, so the second of two racing creates waits for the first
to finish and then (READ COMMITTED: each statement reads what is committed when it starts) finds
its order.

Changes of one order are serialised the same way: in a write unit of work, `get` on PostgreSQL
reads the order `FOR UPDATE`, so of two transactions changing it (two cancellations, a cancellation
and an item replacement) the second reads the order only once the first has ended, and sees its
result; without the lock both would move its stock.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Connection, bindparam, delete, exists, func, insert, select, update

from engage_core.errors import ValidationFailed
from engage_core.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft
from engage_core.pagination import Page, PageRequest
from engage_sql.repositories.base import WorkspaceRepository
from engage_sql.statements import insert_or_ignore
from engage_sql.tables import order_items, orders
from engage_sql.types import AnyRow

_COLUMNS = (
    orders.c.id,
    orders.c.contact_id,
    orders.c.customer_name,
    orders.c.customer_phone,
    orders.c.customer_email,
    orders.c.status,
    orders.c.subtotal,
    orders.c.total,
    orders.c.currency,
    orders.c.shipping_address,
    orders.c.notes,
    orders.c.created_by,
    orders.c.cancelled_at,
    orders.c.cancellation_reason,
    orders.c.created_at,
    orders.c.updated_at,
    orders.c.external_reference,
    orders.c.duplicate_key,
)
_ITEM_COLUMNS = (
    order_items.c.id,
    order_items.c.order_id,
    order_items.c.product_id,
    order_items.c.product_name,
    order_items.c.product_sku,
    order_items.c.quantity,
    order_items.c.unit_price,
    order_items.c.total_price,
)
_NEWEST_FIRST = (orders.c.created_at.desc(), orders.c.id.desc())

_ADVISORY_LOCK = select(func.pg_advisory_xact_lock(bindparam("key")))
"""PostgreSQL: wait for, then hold until the transaction ends, the lock named by a 64-bit key."""

DUPLICATE_LOCK = "order-duplicate"
REFERENCE_LOCK = "order-reference"


def advisory_lock_key(scope: str, account_id: int, value: str) -> int:
    """The signed 64-bit advisory lock key of `value` in `scope` for one account: the first eight
    bytes of a SHA-256, the same in every process and on every server version."""
    digest = hashlib.sha256(f"{scope}:{account_id}:{value}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def item_from_row(row: AnyRow) -> OrderItem:
    return OrderItem(
        id=row.id,
        product_id=row.product_id,
        product_name=row.product_name,
        product_sku=row.product_sku,
        quantity=row.quantity,
        unit_price=row.unit_price,
        total_price=row.total_price,
    )


def order_from_row(row: AnyRow, items: Sequence[OrderItem]) -> Order:
    return Order(
        id=row.id,
        contact_id=row.contact_id,
        customer_name=row.customer_name,
        customer_phone=row.customer_phone,
        customer_email=row.customer_email,
        status=row.status,
        subtotal=row.subtotal,
        total=row.total,
        currency=row.currency,
        shipping_address=row.shipping_address,
        notes=row.notes,
        created_by=row.created_by,
        items=tuple(items),
        cancelled_at=row.cancelled_at,
        cancellation_reason=row.cancellation_reason,
        created_at=row.created_at,
        updated_at=row.updated_at,
        external_reference=row.external_reference,
        duplicate_key=row.duplicate_key,
    )


def _reference_taken() -> ValidationFailed:
    return ValidationFailed.on("external_reference", "An order with this external reference already exists.")


class SqlOrderRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` locks the order it reads (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._lock_reads = lock_reads and connection.dialect.name == "postgresql"

    def add(self, draft: OrderDraft, now: datetime) -> Order:
        """Raises ValidationFailed when the account already has an order with the draft's
        `external_reference`."""
        # ON CONFLICT instead of catching the error: the transaction stays usable on PostgreSQL.
        order_id = self._conn.execute(
            insert_or_ignore(self._conn, orders, ("account_id", "external_reference"))
            .values(account_id=self._account_id, created_at=now, **self._scalars(draft, now))
            .returning(orders.c.id)
        ).scalar()
        if order_id is None:
            raise _reference_taken()
        return Order(
            id=order_id,
            contact_id=draft.contact_id,
            customer_name=draft.customer_name,
            customer_phone=draft.customer_phone,
            customer_email=draft.customer_email,
            status=draft.status,
            subtotal=draft.subtotal,
            total=draft.total,
            currency=draft.currency,
            shipping_address=draft.shipping_address,
            notes=draft.notes,
            created_by=draft.created_by,
            items=self._add_items(order_id, draft.items),
            cancelled_at=draft.cancelled_at,
            cancellation_reason=draft.cancellation_reason,
            created_at=now,
            updated_at=now,
            external_reference=draft.external_reference,
            duplicate_key=draft.duplicate_key,
        )

    def get(self, order_id: int) -> Order | None:
        """The order with its items; in a write unit of work on PostgreSQL, locked until the
        transaction ends (concurrent changes of the order wait here, then read the new state)."""
        return self._first(orders.c.id == order_id, for_update=self._lock_reads)

    def find(self, filters: OrderFilter, page: PageRequest) -> Page[Order]:
        """Newest first (`created_at`, then `id`, descending)."""
        where = [self.owned(orders), *_filters(filters)]
        total = self._conn.execute(select(func.count()).select_from(orders).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*_COLUMNS).where(*where).order_by(*_NEWEST_FIRST).limit(page.per_page).offset(page.offset)
        ).all()
        items = self._items_of([row.id for row in rows])
        return Page(items=[order_from_row(row, items[row.id]) for row in rows], request=page, total=total)

    def find_duplicate(self, key: str, since: datetime) -> Order | None:
        """The newest order with `duplicate_key` = `key` created after `since`, not cancelled. On
        PostgreSQL the key's advisory lock is taken first and held to the end of the transaction."""
        self._lock(DUPLICATE_LOCK, key)
        return self._first(orders.c.duplicate_key == key, orders.c.created_at > since, orders.c.status != "cancelled")

    def by_external_reference(self, reference: str) -> Order | None:
        """The store order with this reference; on PostgreSQL after taking the reference's advisory lock."""
        self._lock(REFERENCE_LOCK, reference)
        return self._first(orders.c.external_reference == reference)

    def update(self, order: Order) -> None:
        """Store every scalar field of `order`; its items change only through `replace_items`."""
        self._conn.execute(
            update(orders)
            .where(self.owned(orders), orders.c.id == order.id)
            .values(created_at=order.created_at, **self._scalars(order, order.updated_at))
        )

    def replace_items(self, order_id: int, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        """Delete the order's items and store `items` (new ids, ascending in the order given).
        Nothing happens, and nothing is returned, when the order is not this account's."""
        owned = select(exists().where(self.owned(orders), orders.c.id == order_id))
        if not self._conn.execute(owned).scalar_one():
            return ()
        self._conn.execute(delete(order_items).where(self.owned(order_items), order_items.c.order_id == order_id))
        return self._add_items(order_id, items)

    # -- helpers ---------------------------------------------------------------------------------

    def _first(self, *where: ColumnElement[bool], for_update: bool = False) -> Order | None:
        """The newest of this account's orders matching `where`, with its items, or None."""
        query = select(*_COLUMNS).where(self.owned(orders), *where).order_by(*_NEWEST_FIRST).limit(1)
        row = self._conn.execute(query.with_for_update() if for_update else query).first()
        return None if row is None else order_from_row(row, self._items_of([row.id])[row.id])

    def _items_of(self, order_ids: Collection[int]) -> Mapping[int, tuple[OrderItem, ...]]:
        """The items of each of `order_ids` (one query), ascending id; every id gets an entry."""
        found: dict[int, list[OrderItem]] = defaultdict(list)
        if order_ids:
            rows = self._conn.execute(
                select(*_ITEM_COLUMNS)
                .where(self.owned(order_items), order_items.c.order_id.in_(list(order_ids)))
                .order_by(order_items.c.order_id, order_items.c.id)
            )
            for row in rows:
                found[row.order_id].append(item_from_row(row))
        return {order_id: tuple(found[order_id]) for order_id in order_ids}

    def _add_items(self, order_id: int, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        if not items:
            return ()
        rows = [
            {
                "account_id": self._account_id,
                "order_id": order_id,
                "product_id": item.product_id,
                "product_name": item.product_name,
                "product_sku": item.product_sku,
                "quantity": item.quantity,
                "unit_price": item.unit_price,
                "total_price": item.total_price,
            }
            for item in items
        ]
        ids = self._conn.execute(insert(order_items).returning(order_items.c.id, sort_by_parameter_order=True), rows)
        return tuple(
            OrderItem(item_id, i.product_id, i.product_name, i.product_sku, i.quantity, i.unit_price, i.total_price)
            for item_id, i in zip(ids.scalars(), items, strict=True)
        )

    def _lock(self, scope: str, value: str) -> None:
        """Serialise the transactions that look up `value` in `scope`: the advisory lock on
        PostgreSQL; nothing on SQLite, whose writers already run one at a time."""
        if self._conn.dialect.name == "postgresql":
            self._conn.execute(_ADVISORY_LOCK, {"key": advisory_lock_key(scope, self._account_id, value)})

    @staticmethod
    def _scalars(order: Order | OrderDraft, updated_at: datetime) -> dict[str, Any]:
        """The columns an order and a draft share (everything but id, items and created_at)."""
        return {
            "contact_id": order.contact_id,
            "customer_name": order.customer_name,
            "customer_phone": order.customer_phone,
            "customer_email": order.customer_email,
            "status": order.status,
            "subtotal": order.subtotal,
            "total": order.total,
            "currency": order.currency,
            "shipping_address": order.shipping_address,
            "notes": order.notes,
            "created_by": order.created_by,
            "external_reference": order.external_reference,
            "duplicate_key": order.duplicate_key,
            "cancelled_at": order.cancelled_at,
            "cancellation_reason": order.cancellation_reason,
            "updated_at": updated_at,
        }


def _filters(filters: OrderFilter) -> list[ColumnElement[bool]]:
    """`OrderFilter.matches` in SQL. The dates are whole UTC days: `date_to` includes its last microsecond."""
    where: list[ColumnElement[bool]] = []
    if filters.status is not None:
        where.append(orders.c.status == filters.status)
    if filters.contact_id is not None:
        where.append(orders.c.contact_id == filters.contact_id)
    if filters.created_by is not None:
        where.append(orders.c.created_by == filters.created_by)
    if filters.date_from is not None:
        where.append(orders.c.created_at >= _midnight(filters.date_from))
    if filters.date_to is not None and filters.date_to < date.max:
        where.append(orders.c.created_at < _midnight(filters.date_to + timedelta(days=1)))
    return where


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, UTC)
