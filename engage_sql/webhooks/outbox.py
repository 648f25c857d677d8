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

from sqlalchemy import Boolean, Connection, bindparam, insert, select, text

from engage_core.kernel.events import OPT_IN, DomainEvent
from engage_core.webhooks.model import Subscription
from engage_sql.driver import DriverStatement, Params
from engage_sql.transaction_memo import memo
from engage_sql.types import AnyRow, Id
from engage_sql.webhooks.repository import WORKSPACE, active_subscriptions
from engage_sql.webhooks.tables import events, webhook_attempts


def event_from_row(row: AnyRow) -> DomainEvent:
    return DomainEvent(name=row.name, payload=row.payload, occurred_at=row.occurred_at)


_EVENT_COLUMNS = ("account_id", "name", "payload", "occurred_at", "created_at")
_INSERT_EVENT = insert(events)
_ONE_EVENT = insert(events).values({name: bindparam(name, type_=events.c[name].type) for name in _EVENT_COLUMNS})
_INSERT_ONE_EVENT = DriverStatement(_ONE_EVENT)
"""One event, the usual case (a change and its one event), on the driver's cursor (see `driver.py`)."""

_INSERT_ONE_QUEUEING_DELIVERIES = DriverStatement(
    text(
        """
        WITH recorded AS (
            INSERT INTO events (account_id, name, payload, occurred_at, created_at)
            VALUES (:account_id, :name, :payload, :occurred_at, :created_at)
            RETURNING payload
        )
        INSERT INTO webhook_attempts (
            kind, owner_id, account_id, webhook_id, delivery_id, event_type, payload,
            attempt_number, status, due_at, created_at
        )
        SELECT :kind, :account_id, :account_id, webhooks.id, CAST(gen_random_uuid() AS VARCHAR), :name,
            recorded.payload, 1, 'pending', :occurred_at, :occurred_at
        FROM webhooks CROSS JOIN recorded
        WHERE webhooks.account_id = :account_id AND webhooks.is_active
            AND (
                CAST(webhooks.events AS JSONB) @> jsonb_build_array(:name)
                OR (json_array_length(webhooks.events) = 0 AND NOT :opt_in)
            )
        ORDER BY webhooks.id
        """
    )
    .bindparams(
        bindparam("account_id", type_=Id),
        bindparam("name", type_=events.c.name.type),
        bindparam("payload", type_=events.c.payload.type),
        bindparam("occurred_at", type_=events.c.occurred_at.type),
        bindparam("created_at", type_=events.c.created_at.type),
        bindparam("kind", type_=webhook_attempts.c.kind.type),
        bindparam("opt_in", type_=Boolean()),
    )
    .columns()  # returns no rows
)
"""On PostgreSQL, one event inserted and attempt 1 of its deliveries queued in one statement: the
subscriptions that want it are chosen as `Subscription.wants` chooses them (listed, or every event
but the opt-in ones when none is listed), oldest first, each delivery with a UUID of its own."""


def record(connection: Connection, account_id: int, pending: Sequence[DomainEvent], now: datetime) -> None:
    """Write `pending` in order, so that ids follow the order the events were emitted, and queue
    their webhook deliveries."""
    for statement, params in record_with_commit(connection, account_id, pending, now):
        statement.execute(connection, params)


def record_with_commit(
    connection: Connection, account_id: int, pending: Sequence[DomainEvent], now: datetime
) -> list[tuple[DriverStatement, Params]]:
    """What `record` writes, left as statements to send with the transaction's COMMIT
    (`driver.commit_with`) where that saves their round trip: on PostgreSQL, one event and its
    deliveries. Anything else is written at once, and nothing is left."""
    if not pending:
        return []
    if connection.dialect.name == "postgresql" and len(pending) == 1:
        event = pending[0]
        params = {**_event_row(account_id, event, now), "kind": WORKSPACE, "opt_in": event.name in OPT_IN}
        return [(_INSERT_ONE_QUEUEING_DELIVERIES, params)]
    rows = [_event_row(account_id, event, now) for event in pending]
    if len(rows) == 1:
        _INSERT_ONE_EVENT.execute(connection, rows[0])
    else:
        connection.execute(_INSERT_EVENT, rows)
    queue_deliveries(connection, account_id, pending)
    return []


def _event_row(account_id: int, event: DomainEvent, now: datetime) -> dict[str, Any]:
    return {
        "account_id": account_id,
        "name": event.name,
        "payload": dict(event.payload),
        "occurred_at": event.occurred_at,
        "created_at": now,
    }


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
