"""Each account's outbound messages per calendar month (UTC), kept as they are stored.

The `messages_per_month` limit is checked on every send. Counted over the index on `(account_id,
direction, created_at)`, its cost grows with the month's messages (10 ms of PostgreSQL CPU per send
at 100,000 of them); `message_months` makes it a read of the account's rows from that month on.

Every outbound message stored adds one to its month (`added`), and a contact's outbound messages
are taken off their months before the contact is deleted, and its messages with it by cascade
(`forget_contact`): the tally is always the COUNT it replaces. `count` answers for a `since` that
is the first instant of a month and leaves any other to the caller's COUNT.

SQLite moves a row at once, under its single write lock (a savepoint rolled back takes the move
with it). On PostgreSQL a row moved at the insert would stay locked to the end of the transaction,
taken after rows (conversation summaries, totals, contacts) that other transactions take in
another order; so, like the contacts counter (`counter_moves`), a transaction's moves add up in the
process, tagged with the transaction, and are applied as it commits by one statement per month
(`commit_statements`), sent with COMMIT after the contacts counter's move: the row is locked only
while the server runs them, always after the account's counter row. `count` adds the
transaction's own moves not yet applied.

On PostgreSQL the `messages_per_month` limit is checked there too (`reserve`): a statement after
the moves fails with `engage_within_limit`'s SQLSTATE (migration 0028) when the account's outbound
messages from the reserved month on pass the maximum, COMMIT is skipped and nothing of the
transaction is written. A send therefore holds no lock of the account across its round trips (the
lock-then-count it replaces held the account's counter row from the count to COMMIT). Only a
transaction that adds messages is checked; SQLite checks before the write, under its write lock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

import attrs
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    Table,
    bindparam,
    column,
    func,
    literal_column,
    select,
    text,
    type_coerce,
)
from sqlalchemy.dialects import postgresql, sqlite

from engage_core.plans.model import MESSAGES_PER_MONTH, month_of
from engage_sql import transaction_memo
from engage_sql.driver import DriverStatement, Params
from engage_sql.messaging.tables import message_months, messages
from engage_sql.types import Id, UTCDateTime

_ACCOUNT = bindparam("account", type_=Id)
_SINCE = bindparam("since", type_=UTCDateTime())


def _upsert(insert: Callable[[Table], Any]) -> DriverStatement:
    statement = insert(message_months).values(
        account_id=bindparam("account", type_=Id),
        month=bindparam("month", type_=UTCDateTime()),
        outbound=bindparam("delta", type_=BigInteger),
    )
    return DriverStatement(
        statement.on_conflict_do_update(
            index_elements=[message_months.c.account_id, message_months.c.month],
            set_={"outbound": message_months.c.outbound + statement.excluded.outbound},
        )
    )


_MOVE = {"postgresql": _upsert(postgresql.insert), "sqlite": _upsert(sqlite.insert)}
"""A month's row moved by `:delta`, made when missing (a month's first outbound message)."""

_FROM_MONTH = DriverStatement(
    select(func.coalesce(func.sum(message_months.c.outbound), 0)).where(
        message_months.c.account_id == _ACCOUNT, message_months.c.month >= _SINCE
    )
)

_CHECK = DriverStatement(
    text(
        f"""
        SELECT engage_within_limit(
            (SELECT COALESCE(SUM(outbound), 0) FROM message_months
                WHERE account_id = :account AND month >= :since)::bigint,
            :maximum, '{MESSAGES_PER_MONTH}'
        ) AS total
        """
    )
    .bindparams(_ACCOUNT, _SINCE, bindparam("maximum", type_=BigInteger))
    .columns(column("total", BigInteger))
)
"""The `messages_per_month` limit, checked after the moves (a statement of its own sees them)."""

_KEY = "engage_message_month_moves"


def month_start(moment: datetime) -> datetime:
    """The first instant (UTC) of the calendar month of `moment`: the row it counts in."""
    return month_of(moment)[0]


def added(connection: Connection, account_id: int, moment: datetime, outbound: int = 1) -> None:
    """Count `outbound` messages more in the month of `moment`, in this transaction."""
    if outbound:
        _move(connection, account_id, month_start(moment), outbound)


def forget_contact(connection: Connection, account_id: int, contact_id: int) -> None:
    """Take the contact's outbound messages off their months, before the contact (and so its
    messages, by cascade) is deleted in this transaction. The caller has locked the contact on
    PostgreSQL (`forget_conversations`), so no message of it is being added meanwhile."""
    month = _month_of_column(connection)
    rows = connection.execute(
        select(month, func.count())
        .where(
            messages.c.account_id == account_id,
            messages.c.contact_id == contact_id,
            messages.c.direction == "outbound",
        )
        .group_by(month)
    )
    for start, outbound in rows:
        _move(connection, account_id, start, -int(outbound))


def count(connection: Connection, account_id: int, since: datetime) -> int | None:
    """The account's outbound messages stored from `since` on, as this transaction sees them; None
    when `since` is not the first instant of a month (the tally cannot tell)."""
    if since != month_start(since):
        return None
    row = _FROM_MONTH.first(connection, {"account": account_id, "since": since})
    assert row is not None
    owed = _of_transaction(connection, create=False)
    return int(row[0]) + (0 if owed is None else owed.added_since(account_id, since))


def reserve(connection: Connection, account_id: int, since: datetime, maximum: int) -> bool:
    """PostgreSQL: refuse the commit if the account's outbound messages from `since` on pass
    `maximum` (the lowest given) once the transaction's own are in; False, with nothing recorded,
    when `since` is not a month's first instant or the engine is not PostgreSQL (the caller then
    locks and counts)."""
    if connection.dialect.name != "postgresql" or since != month_start(since):
        return False
    owed = _of_transaction(connection, create=True)
    assert owed is not None
    known = owed.limits.get(account_id)
    if known is None or maximum < known[1]:
        owed.limits[account_id] = (since, maximum)
    return True


def commit_statements(connection: Connection) -> list[tuple[DriverStatement, Params]]:
    """The statements that apply the transaction's moves (PostgreSQL), in the order of their rows,
    then check each reserved limit the transaction's messages add to, for the caller to send with
    COMMIT (`counter_moves.commit`'s `after`); the check fails with `engage_within_limit`'s SQLSTATE."""
    owed = _of_transaction(connection, create=False)
    if owed is None:
        return []
    runs: list[tuple[DriverStatement, Params]] = [
        (_MOVE["postgresql"], {"account": account, "month": start, "delta": delta})
        for (account, start), delta in sorted(owed.moves.items())
        if delta
    ]
    for account, (since, maximum) in sorted(owed.limits.items()):
        if owed.added_since(account, since) > 0:  # deleting is always allowed, even over a lowered limit
            runs.append((_CHECK, {"account": account, "since": since, "maximum": maximum}))
    return runs


@attrs.define
class _Owed:
    """What a PostgreSQL transaction owes the tallies: its moves, by account and month, and the
    limits reserved, by account (from when, at most how many)."""

    moves: Counter[tuple[int, datetime]] = attrs.Factory(Counter)
    limits: dict[int, tuple[datetime, int]] = attrs.Factory(dict)

    def added_since(self, account_id: int, since: datetime) -> int:
        return sum(delta for (account, start), delta in self.moves.items() if account == account_id and start >= since)


def _move(connection: Connection, account_id: int, start: datetime, delta: int) -> None:
    if connection.dialect.name != "postgresql":
        _MOVE["sqlite"].execute(connection, {"account": account_id, "month": start, "delta": delta})
        return
    owed = _of_transaction(connection, create=True)
    assert owed is not None
    owed.moves[account_id, start] += delta


def _of_transaction(connection: Connection, *, create: bool) -> _Owed | None:
    """What the connection's current transaction owes the tallies."""
    return transaction_memo.owed(connection, _KEY, _Owed, create=create)


def _month_of_column(connection: Connection) -> ColumnElement[datetime]:
    """`messages.created_at`'s month start, computed by the database in `UTCDateTime`'s form (its
    constants written in, so that GROUP BY repeats the very expression the SELECT has)."""
    created = messages.c.created_at
    truncated: ColumnElement[Any]
    if connection.dialect.name == "postgresql":
        truncated = func.date_trunc(literal_column("'month'"), created, literal_column("'UTC'"))
    else:  # fixed-width text, `2026-05-06 10:11:12.345678`
        truncated = func.substr(created, literal_column("1"), literal_column("7")).op("||")(
            literal_column("'-01 00:00:00.000000'")
        )
    return type_coerce(truncated, UTCDateTime()).label("month")
