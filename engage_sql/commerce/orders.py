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
from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    Select,
    bindparam,
    delete,
    exists,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from engage_core.commerce.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_sql.commerce.products import numeric_rows
from engage_sql.commerce.tables import order_items, orders
from engage_sql.driver import DriverStatement
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import Id

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

# The statements of the order-creation path and of reading one order are built once, at import,
# and run on the driver's cursor (`DriverStatement`): building and executing them through
# SQLAlchemy cost several times what the database takes to run them. On PostgreSQL the reads go
# through `numeric_rows` and the items through SQLAlchemy's batch (see `_add_items`).
_ACCOUNT = bindparam("account", type_=Id)
_ORDER = bindparam("order", type_=Id)


def _newest(*where: ColumnElement[bool]) -> Select[Any]:
    """The newest of the account's orders matching `where`."""
    return select(*_COLUMNS).where(orders.c.account_id == _ACCOUNT, *where).order_by(*_NEWEST_FIRST).limit(1)


_BY_ID = DriverStatement(_newest(orders.c.id == _ORDER))
_BY_ID_LOCKED = DriverStatement(_newest(orders.c.id == _ORDER).with_for_update())
_DUPLICATE = DriverStatement(
    _newest(
        orders.c.duplicate_key == bindparam("key", type_=orders.c.duplicate_key.type),
        orders.c.created_at > bindparam("since", type_=orders.c.created_at.type),
        orders.c.status != "cancelled",
    )
)
_BY_REFERENCE = DriverStatement(
    _newest(orders.c.external_reference == bindparam("reference", type_=orders.c.external_reference.type))
)
_ITEMS_OF_ONE = DriverStatement(
    select(*_ITEM_COLUMNS)
    .where(order_items.c.account_id == _ACCOUNT, order_items.c.order_id == _ORDER)
    .order_by(order_items.c.id)
)

_ADVISORY_LOCK = DriverStatement(select(func.pg_advisory_xact_lock(bindparam("key", type_=BigInteger()))))
"""PostgreSQL: wait for, then hold until the transaction ends, the lock named by a 64-bit key."""

DUPLICATE_LOCK = "order-duplicate"
REFERENCE_LOCK = "order-reference"

_INSERTED = (
    "account_id", "contact_id", "customer_name", "customer_phone", "customer_email", "status", "subtotal", "total",
    "currency", "shipping_address", "notes", "created_by", "external_reference", "duplicate_key", "cancelled_at",
    "cancellation_reason", "created_at", "updated_at",
)  # fmt: skip
"""Every column an order insert writes, each from the parameter of its own name."""


def _insert_order(insert: Any) -> DriverStatement:
    # ON CONFLICT instead of catching the error: the transaction stays usable on PostgreSQL.
    values = {name: bindparam(name, type_=orders.c[name].type) for name in _INSERTED}
    statement = (
        insert(orders).values(values).on_conflict_do_nothing(index_elements=["account_id", "external_reference"])
    )
    return DriverStatement(statement.returning(orders.c.id))


_INSERT = {"sqlite": _insert_order(sqlite.insert), "postgresql": _insert_order(postgresql.insert)}

_ITEM_INSERTED = (
    "account_id", "order_id", "product_id", "product_name", "product_sku", "quantity", "unit_price", "total_price",
)  # fmt: skip
_INSERT_ITEM = DriverStatement(
    insert(order_items)
    .values({name: bindparam(name, type_=order_items.c[name].type) for name in _ITEM_INSERTED})
    .returning(order_items.c.id)
)
"""One item, its id returned: SQLite does not say in which order a multi-row INSERT returns its rows."""
_INSERT_ITEMS = insert(order_items).returning(order_items.c.id, sort_by_parameter_order=True)
"""PostgreSQL: all the items in one batch, the ids matched to the rows by SQLAlchemy (a sentinel)."""


def advisory_lock_key(scope: str, account_id: int, value: str) -> int:
    """The signed 64-bit advisory lock key of `value` in `scope` for one account: the first eight
    bytes of a SHA-256, the same in every process and on every server version."""
    digest = hashlib.sha256(f"{scope}:{account_id}:{value}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def item_from_row(row: Sequence[Any]) -> OrderItem:
    """An item from a row of `_ITEM_COLUMNS` (by position; the order id is skipped)."""
    id, _, product_id, product_name, product_sku, quantity, unit_price, total_price = row
    return OrderItem(
        id=id,
        product_id=product_id,
        product_name=product_name,
        product_sku=product_sku,
        quantity=quantity,
        unit_price=unit_price,
        total_price=total_price,
    )


def order_from_row(row: Sequence[Any], items: Sequence[OrderItem]) -> Order:
    """An order from a row of `_COLUMNS` (by position), with its items."""
    id, contact_id, customer_name, customer_phone, customer_email, status, subtotal, total, currency = row[:9]
    shipping_address, notes, created_by, cancelled_at, cancellation_reason, created_at, updated_at = row[9:16]
    external_reference, duplicate_key = row[16:18]
    return Order(
        id=id,
        contact_id=contact_id,
        customer_name=customer_name,
        customer_phone=customer_phone,
        customer_email=customer_email,
        status=status,
        subtotal=subtotal,
        total=total,
        currency=currency,
        shipping_address=shipping_address,
        notes=notes,
        created_by=created_by,
        items=tuple(items),
        cancelled_at=cancelled_at,
        cancellation_reason=cancellation_reason,
        created_at=created_at,
        updated_at=updated_at,
        external_reference=external_reference,
        duplicate_key=duplicate_key,
    )


def _reference_taken() -> ValidationFailed:
    return ValidationFailed.on("external_reference", "An order with this external reference already exists.")


class SqlOrderRepository(WorkspaceRepository):
    def __init__(self, connection: Connection, account_id: int, *, lock_reads: bool) -> None:
        """`lock_reads`: the unit of work writes, so `get` locks the order it reads (PostgreSQL)."""
        super().__init__(connection, account_id)
        self._postgresql = connection.dialect.name == "postgresql"
        self._by_id = _BY_ID_LOCKED if lock_reads and self._postgresql else _BY_ID

    def add(self, draft: OrderDraft, now: datetime) -> Order:
        """Raises ValidationFailed when the account already has an order with the draft's
        `external_reference`."""
        params = {"account_id": self._account_id, "created_at": now, **self._scalars(draft, now)}
        row = _INSERT[self._conn.dialect.name].first(self._conn, params)
        if row is None:
            raise _reference_taken()
        order_id = row[0]
        # Everything else is what was written: no need to read it back.
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
        return self._first(self._by_id, {"order": order_id})

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
        return self._first(_DUPLICATE, {"key": key, "since": since})

    def by_external_reference(self, reference: str) -> Order | None:
        """The store order with this reference; on PostgreSQL after taking the reference's advisory lock."""
        self._lock(REFERENCE_LOCK, reference)
        return self._first(_BY_REFERENCE, {"reference": reference})

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

    def _first(self, statement: DriverStatement, params: dict[str, Any]) -> Order | None:
        """The order a `_newest` statement finds for this account, with its items, or None."""
        rows = numeric_rows(self._conn, statement, {"account": self._account_id, **params})
        if not rows:
            return None
        items = numeric_rows(self._conn, _ITEMS_OF_ONE, {"account": self._account_id, "order": rows[0][0]})
        return order_from_row(rows[0], [item_from_row(item) for item in items])

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
        """Insert `items`; their ids ascend in the order given."""
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
        ids: Iterable[int]
        if self._postgresql:
            ids = self._conn.execute(_INSERT_ITEMS, rows).scalars()
        else:  # one statement per item, each returning its own id: no doubt about which row is whose
            ids = [_only(_INSERT_ITEM.first(self._conn, row)) for row in rows]
        return tuple(
            OrderItem(item_id, i.product_id, i.product_name, i.product_sku, i.quantity, i.unit_price, i.total_price)
            for item_id, i in zip(ids, items, strict=True)
        )

    def _lock(self, scope: str, value: str) -> None:
        """Serialise the transactions that look up `value` in `scope`: the advisory lock on
        PostgreSQL; nothing on SQLite, whose writers already run one at a time."""
        if self._postgresql:
            _ADVISORY_LOCK.rows(self._conn, {"key": advisory_lock_key(scope, self._account_id, value)})

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


def _only(row: Sequence[Any] | None) -> Any:
    """The one value of the one row an INSERT ... RETURNING gave."""
    assert row is not None
    return row[0]


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
