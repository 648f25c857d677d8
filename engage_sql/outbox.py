"""The transactional outbox: domain events written in the transaction of the change they describe.

A crash before commit loses the change and its events together; after commit both exist. Webhook
delivery reads from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, insert, select

from engage_core.events import DomainEvent
from engage_sql.tables import events
from engage_sql.types import AnyRow


def event_from_row(row: AnyRow) -> DomainEvent:
    return DomainEvent(name=row.name, payload=row.payload, occurred_at=row.occurred_at)


def record(connection: Connection, account_id: int, pending: Sequence[DomainEvent], now: datetime) -> None:
    """Write `pending` in order, so that ids follow the order the events were emitted."""
    if not pending:
        return
    connection.execute(
        insert(events),
        [
            {
                "account_id": account_id,
                "name": event.name,
                "payload": dict(event.payload),
                "occurred_at": event.occurred_at,
                "created_at": now,
            }
            for event in pending
        ],
    )


def read(connection: Connection, account_id: int | None = None) -> list[DomainEvent]:
    """Committed events, oldest first; of one account or of all."""
    query = select(events.c.name, events.c.payload, events.c.occurred_at).order_by(events.c.id)
    if account_id is not None:
        query = query.where(events.c.account_id == account_id)
    return [event_from_row(row) for row in connection.execute(query)]
