"""PostgreSQL's contacts counter, moved once per transaction as it commits, the contacts limit checked there.

`account_counters.contacts` is each account's contact total, kept by every add and delete in the
same transaction. An UPDATE holds the row's lock until COMMIT, so a counter moved at the insert
would hold up every other contact write and limit check of the account for the rest of the
transaction (three round trips of a `POST /contacts`, each waiting its turn on the event loop).
On PostgreSQL the transaction's adds and deletes add up here instead (`move`), the contacts limit
is recorded (`reserve`), and the unit of work's commit (`commit`) moves the counter in one
statement sent together with COMMIT: the row is locked only while the server runs the two.

The statement returns the new total through `engage_within_limit` (migration 0028), which fails it
with SQLSTATE `EN001` when a reserved maximum is passed; COMMIT is then skipped, `commit` raises
PlanLimitReached and nothing of the transaction is written. Only a transaction that ends with more
contacts than it began with is checked: deleting is always allowed, even over a lowered limit.

A missing counter row is created in the same statement, recounted (the count sees the
transaction's own changes). Two transactions creating it at once do not lose a change: ON CONFLICT
adds the second one's change to the row the first one made.

SQLite moves the counter at once, under its single write lock, and checks the limit before the write.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import attrs
from sqlalchemy import Connection, bindparam, column, text
from sqlalchemy.exc import DBAPIError

from engage_core.kernel.errors import PlanLimitReached
from engage_sql import transaction_memo
from engage_sql.driver import DriverStatement, Params, commit_with
from engage_sql.types import Id

LIMIT_PASSED = "EN001"
"""The SQLSTATE `engage_within_limit` raises."""
_REFUSAL = re.compile(r"plan limit reached: (?P<limit>\w+) \(at most (?P<maximum>\d+)\)")
"""Its message (migration 0028), which names the limit and its maximum."""

_MOVE_AND_CHECK = DriverStatement(
    text(
        """
        WITH moved AS (
            UPDATE account_counters SET contacts = contacts + :delta
            WHERE account_id = :account
            RETURNING contacts
        ), made AS (
            INSERT INTO account_counters (account_id, contacts)
            SELECT :account, (SELECT count(*) FROM contacts WHERE account_id = :account)
            WHERE NOT EXISTS (SELECT FROM moved)
            ON CONFLICT (account_id) DO UPDATE SET contacts = account_counters.contacts + :delta
            RETURNING contacts
        )
        SELECT engage_within_limit(
            COALESCE((SELECT contacts FROM moved), (SELECT contacts FROM made)), :maximum, 'contacts'
        ) AS total
        """
    )
    .bindparams(bindparam("account", type_=Id), bindparam("delta", type_=Id), bindparam("maximum", type_=Id))
    .columns(column("total", Id))
)


@attrs.define
class _Moves:
    delta: int = 0
    maximum: int | None = None


_KEY = "engage_contacts_counter_moves"


def _of_transaction(connection: Connection, *, create: bool) -> dict[int, _Moves] | None:
    """The moves of the connection's current transaction, by account."""
    return transaction_memo.owed(connection, _KEY, dict, create=create)


def _found(connection: Connection, account_id: int) -> _Moves | None:
    known = _of_transaction(connection, create=False)
    return None if known is None else known.get(account_id)


def _moves(connection: Connection, account_id: int) -> _Moves:
    known = _of_transaction(connection, create=True)
    assert known is not None
    moves = known.get(account_id)
    if moves is None:
        moves = known[account_id] = _Moves()
    return moves


def move(connection: Connection, account_id: int, delta: int) -> None:
    """Count `delta` contacts more (fewer, when negative) as the transaction commits."""
    _moves(connection, account_id).delta += delta


def reserve(connection: Connection, account_id: int, maximum: int) -> None:
    """Refuse the commit if the contacts added take the account past `maximum` (the lowest given)."""
    moves = _moves(connection, account_id)
    moves.maximum = maximum if moves.maximum is None else min(moves.maximum, maximum)


def counted(connection: Connection, account_id: int, counter: int) -> int:
    """The account's contacts as this transaction sees them: `counter`, the counter row's value as
    read in it, and the adds and deletes it has not moved there yet."""
    moves = _found(connection, account_id)
    return int(counter) + (0 if moves is None else moves.delta)


def commit(
    connection: Connection,
    account_id: int,
    before: Sequence[tuple[DriverStatement, Params]] = (),
    after: Sequence[tuple[DriverStatement, Params]] = (),
) -> None:
    """Commit the connection's transaction, moving the account's counter in the same round trip, and
    running the statements `before` and `after` it there too (`driver.commit_with`): rows locked
    after the counter's are locked in that order by every transaction.

    Raises PlanLimitReached, with the transaction left to roll back, when the contacts it adds pass
    the reserved maximum, or a limit checked by a statement of `before` or `after` is passed."""
    moves = _found(connection, account_id)
    runs = list(before)
    if moves is not None and moves.delta != 0:
        maximum = moves.maximum if moves.delta > 0 else None
        runs.append((_MOVE_AND_CHECK, {"account": account_id, "delta": moves.delta, "maximum": maximum}))
    runs.extend(after)
    if not runs:
        connection.commit()
        return
    try:
        commit_with(connection, runs)
    except DBAPIError as exc:
        passed = limit_passed(exc)
        if passed is not None:
            raise passed from None
        raise


def limit_passed(error: DBAPIError) -> PlanLimitReached | None:
    """The limit `engage_within_limit` refused, as the core's error; None for any other error."""
    if getattr(error.orig, "sqlstate", None) != LIMIT_PASSED:
        return None
    diagnostic = getattr(getattr(error.orig, "diag", None), "message_primary", None) or ""
    found = _REFUSAL.fullmatch(diagnostic)
    if found is None:
        return None
    return PlanLimitReached(found["limit"], int(found["maximum"]))
