"""The transactional outbox: domain events written in the transaction of the change they describe.

A crash before commit loses the change and its events together; after commit both exist. The same
transaction queues the webhook deliveries: attempt 1 of each event for each active subscription
that wants it, in `webhook_attempts`, the table the delivery worker claims from.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, insert, select

from engage_core.kernel.events import DomainEvent
from engage_core.webhooks.model import Subscription
from engage_sql.driver import DriverStatement
from engage_sql.transaction_memo import memo
from engage_sql.types import AnyRow, Id
from engage_sql.webhooks.repository import SUBSCRIPTION_COLUMNS, WORKSPACE, active_subscriptions, subscriptions_of
from engage_sql.webhooks.tables import events, webhook_attempts, webhooks


def event_from_row(row: AnyRow) -> DomainEvent:
    return DomainEvent(name=row.name, payload=row.payload, occurred_at=row.occurred_at)


_EVENT_COLUMNS = ("account_id", "name", "payload", "occurred_at", "created_at")
_INSERT_EVENT = insert(events)
_ONE_EVENT = insert(events).values({name: bindparam(name, type_=events.c[name].type) for name in _EVENT_COLUMNS})
_INSERT_ONE_EVENT = DriverStatement(_ONE_EVENT)
"""One event, the usual case (a change and its one event), on the driver's cursor (see `driver.py`)."""

_INSERT_ONE_READING_SUBSCRIPTIONS = DriverStatement(
    select(*SUBSCRIPTION_COLUMNS)
    .add_cte(_ONE_EVENT.returning(events.c.id).cte("recorded"))
    .where(webhooks.c.account_id == bindparam("account_id", type_=Id), webhooks.c.is_active.is_(True))
    .order_by(webhooks.c.id)
)
"""On PostgreSQL, one event inserted and the account's active subscriptions read in one statement
(a data-modifying CTE runs whether or not the query reads it): one round trip instead of two."""


def record(connection: Connection, account_id: int, pending: Sequence[DomainEvent], now: datetime) -> None:
    """Write `pending` in order, so that ids follow the order the events were emitted, and queue
    their webhook deliveries."""
    if not pending:
        return
    rows = [
        {
            "account_id": account_id,
            "name": event.name,
            "payload": dict(event.payload),
            "occurred_at": event.occurred_at,
            "created_at": now,
        }
        for event in pending
    ]
    if len(rows) == 1:
        known, key = memo(connection), ("active_subscriptions", account_id)
        if connection.dialect.name == "postgresql" and key not in known:
            known[key] = subscriptions_of(_INSERT_ONE_READING_SUBSCRIPTIONS.rows(connection, rows[0]))
        else:
            _INSERT_ONE_EVENT.execute(connection, rows[0])
    else:
        connection.execute(_INSERT_EVENT, rows)
    queue_deliveries(connection, account_id, pending)


def queue_deliveries(connection: Connection, account_id: int, pending: Sequence[DomainEvent]) -> None:
    """Queue attempt 1 of a new delivery of each event to each active subscription that wants it.

    One SELECT of the subscriptions per transaction, whatever the number of events, and one bulk INSERT.
    A disabled subscription gets nothing (SPEC 3, Webhook delivery).
    """
    subscriptions = _active_subscriptions(connection, account_id)
    rows = [
        first_attempt(WORKSPACE, account_id, account_id, subscription.id, event)
        for event in pending
        for subscription in subscriptions
        if subscription.wants(event.name)
    ]
    if rows:
        connection.execute(insert(webhook_attempts), rows)


def _active_subscriptions(connection: Connection, account_id: int) -> list[Subscription]:
    """`active_subscriptions`, read once per transaction (`transaction_memo`): a write-lane batch
    queues the events of many units of work of the same account."""
    known = memo(connection)
    key = ("active_subscriptions", account_id)
    subscriptions: list[Subscription] | None = known.get(key)
    if subscriptions is None:
        subscriptions = known[key] = active_subscriptions(connection, account_id)
    return subscriptions


def first_attempt(
    kind: str, owner_id: int, account_id: int | None, webhook_id: int, event: DomainEvent
) -> dict[str, Any]:
    """The `webhook_attempts` row of attempt 1 of a new delivery of `event`, due at once."""
    return {
        "kind": kind,
        "owner_id": owner_id,
        "account_id": account_id,
        "webhook_id": webhook_id,
        "delivery_id": str(uuid.uuid4()),
        "event_type": event.name,
        "payload": dict(event.payload),
        "attempt_number": 1,
        "status": "pending",
        "due_at": event.occurred_at,
        "created_at": event.occurred_at,
    }


def read(connection: Connection, account_id: int | None = None) -> list[DomainEvent]:
    """Committed events, oldest first; of one account or of all."""
    query = select(events.c.name, events.c.payload, events.c.occurred_at).order_by(events.c.id)
    if account_id is not None:
        query = query.where(events.c.account_id == account_id)
    return [event_from_row(row) for row in connection.execute(query)]
