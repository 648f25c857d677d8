"""Commerce in SQL: products with race-free stock, and orders with their items."""

from __future__ import annotations

from engage_sql.commerce.orders import SqlOrderRepository
from engage_sql.commerce.products import SqlProductRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "products": lambda s: SqlProductRepository(s.connection, s.account_id),
        "orders": lambda s: SqlOrderRepository(s.connection, s.account_id, lock_reads=s.writes),
    },
)
