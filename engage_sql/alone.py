"""A write that is its unit of work's whole work: on PostgreSQL, committed by itself in one round trip.

psycopg opens a transaction with a `BEGIN` of its own before the first statement, and the unit of
work ends it with `COMMIT`: one `UPDATE` costs three round trips. When nothing has been sent in
the connection's transaction yet, `alone` runs what its block executes in autocommit instead: for
one statement, one round trip, with the same atomicity and durability (PostgreSQL commits a lone
statement as a transaction of its own), and the unit of work's commit then has nothing to send
(psycopg sends no `COMMIT` for a connection that is idle). Only for a port method whose contract
says it is committed alone and at once, and only around one statement: a rollback after it would
not undo it. Elsewhere (SQLite, or after another statement) the block runs in the transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection


@contextmanager
def alone(connection: Connection) -> Iterator[None]:
    """Run the block's one statement as a transaction of its own when it would be its transaction's first."""
    if connection.dialect.name != "postgresql":
        yield
        return
    from psycopg.pq import TransactionStatus  # an optional dependency, there with PostgreSQL

    driver = connection.connection.driver_connection
    if driver.autocommit or driver.info.transaction_status != TransactionStatus.IDLE:  # type: ignore[union-attr]
        yield
        return
    driver.autocommit = True  # type: ignore[union-attr]  # client-side: nothing is sent
    try:
        yield
    finally:
        if driver.info.transaction_status == TransactionStatus.IDLE:  # type: ignore[union-attr]
            driver.autocommit = False  # type: ignore[union-attr]
        else:  # lost mid-statement: the block's error stands, and no pool reuses it in autocommit
            driver.close()  # type: ignore[union-attr]
