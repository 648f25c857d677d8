"""A write that is its unit of work's whole work: on PostgreSQL, committed by itself in one round trip.

psycopg opens a transaction with a `BEGIN` of its own before the first statement, and the unit of
work ends it with `COMMIT`: one `UPDATE` costs three round trips. When nothing has been sent in
the connection's transaction yet, `execute_alone` runs the statement in autocommit instead: one
round trip, with the same atomicity and durability (PostgreSQL commits a lone statement as a
transaction of its own), and the unit of work's commit then has nothing to send (psycopg sends
no `COMMIT` for a connection that is idle). Only for a port method whose contract says it is
committed alone and at once: a rollback after it would not undo it. Elsewhere (SQLite, or after
another statement) it is an ordinary statement of the transaction.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, CursorResult, Executable


def execute_alone(connection: Connection, statement: Executable, params: Mapping[str, Any]) -> CursorResult[Any]:
    """Execute `statement`, as a transaction of its own when it would be the first of its transaction."""
    if connection.dialect.name != "postgresql":
        return connection.execute(statement, params)
    from psycopg.pq import TransactionStatus  # an optional dependency, there with PostgreSQL

    driver = connection.connection.driver_connection
    if driver.autocommit or driver.info.transaction_status != TransactionStatus.IDLE:  # type: ignore[union-attr]
        return connection.execute(statement, params)
    driver.autocommit = True  # type: ignore[union-attr]  # client-side: nothing is sent
    try:
        return connection.execute(statement, params)
    finally:
        driver.autocommit = False  # type: ignore[union-attr]
