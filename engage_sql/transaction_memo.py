"""What a transaction has read once and may reuse until it ends, or until it writes what was read.

Inside one transaction nothing but the transaction itself can change what it reads (SQLite's
writers hold the write lock; PostgreSQL's unit of work is one transaction, read committed but
short, and the memo lives no longer than it). A write-lane batch runs dozens of units of work in
one transaction, and each of them used to read the same account's webhook subscriptions again to
queue its event's deliveries, and to admit the same key; the memo reads them once per batch (the
core keeps its admissions there too, `UnitOfWorkFactory.transaction_memo`).

The memo belongs to the connection's current transaction (`Connection.info`, tagged with the
transaction): a new transaction starts with an empty one. Whatever writes a memoised table calls
`forget` on its connection (the webhook repositories, an account's purge), and so does a unit of
work rolled back to its savepoint (`group_commit`), whose writes, if any, are undone; a batch's
end drops it too, so that nothing it holds outlives the transaction.

`owed` keeps, the same way, what a transaction will write as it commits (the contacts counter's
moves, the month tallies'): never forgotten, it goes only with its transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy import Connection

_KEY = "engage_transaction_memo"

T = TypeVar("T")


def memo(connection: Connection) -> dict[Hashable, Any]:
    """The memo of the connection's current transaction (a throwaway one outside a transaction)."""
    transaction = connection.get_transaction()
    if transaction is None:
        return {}
    entry = connection.info.get(_KEY)
    if entry is None or entry[0] is not transaction:
        entry = connection.info[_KEY] = (transaction, {})
    values: dict[Hashable, Any] = entry[1]
    return values


def forget(connection: Connection) -> None:
    """Drop what the current transaction has memoised (it is about to change, or has changed, it)."""
    connection.info.pop(_KEY, None)


def owed(connection: Connection, key: str, make: Callable[[], T], *, create: bool) -> T | None:
    """What the connection's current transaction owes under `key`: writes it will make as it commits
    (`Connection.info`, tagged with the transaction like the memo, but never forgotten). A new
    transaction owes nothing: None, unless `create`, which makes it with `make` (RuntimeError
    outside a transaction)."""
    transaction = connection.get_transaction()
    entry = connection.info.get(key)
    if entry is None or entry[0] is not transaction:
        if not create:
            return None
        if transaction is None:
            raise RuntimeError(f"{key}: writes are owed only inside a transaction")
        entry = connection.info[key] = (transaction, make())
    kept: T = entry[1]
    return kept
