"""Webhooks in SQL: subscriptions, the transactional outbox, and the delivery log as the worker's queue."""

from __future__ import annotations

from engage_sql.registry import SqlArea
from engage_sql.webhooks.repository import SqlWebhookRepository

AREA = SqlArea(
    workspace={
        "webhooks": lambda s: SqlWebhookRepository(s.connection, s.account_id),
    },
)
