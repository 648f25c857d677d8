"""The partners' transactional outbox: `partner.client.*` events written in the transaction of the
change, with attempt 1 of each delivery queued for the partner's active subscriptions that want
it (`webhook_attempts` kind `partner`: the same delivery log and worker as the workspaces')."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, insert, select

from engage_core.kernel.events import DomainEvent
from engage_sql.partners.partner_webhooks import PARTNER, active_partner_subscriptions
from engage_sql.partners.tables import partner_events
from engage_sql.webhooks.outbox import event_from_row, first_attempt
from engage_sql.webhooks.tables import webhook_attempts


def record(connection: Connection, pending: Sequence[tuple[int, DomainEvent]], now: datetime) -> None:
    """Write `pending` (partner id, event) in order and queue their deliveries."""
    if not pending:
        return
    connection.execute(
        insert(partner_events),
        [
            {
                "partner_id": partner_id,
                "name": event.name,
                "payload": dict(event.payload),
                "occurred_at": event.occurred_at,
                "created_at": now,
            }
            for partner_id, event in pending
        ],
    )
    attempts = []
    for partner_id in dict.fromkeys(partner_id for partner_id, _ in pending):  # one SELECT per partner
        subscriptions = active_partner_subscriptions(connection, partner_id)
        attempts += [
            first_attempt(PARTNER, partner_id, None, subscription.id, event)
            for owner, event in pending
            if owner == partner_id
            for subscription in subscriptions
            if subscription.wants(event.name)
        ]
    if attempts:
        connection.execute(insert(webhook_attempts), attempts)


def read(connection: Connection, partner_id: int | None = None) -> list[DomainEvent]:
    """Committed partner events, oldest first; of one partner or of all."""
    query = select(partner_events.c.name, partner_events.c.payload, partner_events.c.occurred_at).order_by(
        partner_events.c.id
    )
    if partner_id is not None:
        query = query.where(partner_events.c.partner_id == partner_id)
    return [event_from_row(row) for row in connection.execute(query)]
