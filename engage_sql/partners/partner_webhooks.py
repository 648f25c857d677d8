"""Partner-level webhook subscriptions: rows of `webhooks` with `partner_id` set and no `account_id`.

They share the delivery log with the workspaces' subscriptions: a partner's attempts are
`webhook_attempts` rows of kind `partner`, owner the partner, no `account_id`, so the delivery
queue claims, retries and completes them like any other (`Claim.kind` picks the envelope).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, delete, select

from engage_core.webhooks.model import Subscription
from engage_sql.transaction_memo import forget
from engage_sql.webhooks.repository import (
    SUBSCRIPTION_COLUMNS,
    insert_subscription,
    subscription_from_row,
    update_subscription,
)
from engage_sql.webhooks.tables import webhooks

PARTNER = "partner"
"""`webhook_attempts.kind` of a partner's subscriptions."""


def _this(partner_id: int, webhook_id: int) -> ColumnElement[bool]:
    return (webhooks.c.partner_id == partner_id) & (webhooks.c.id == webhook_id)


def active_partner_subscriptions(connection: Connection, partner_id: int) -> Sequence[Subscription]:
    """A partner's active subscriptions, oldest first (the partner outbox fans events out to these)."""
    rows = connection.execute(
        select(*SUBSCRIPTION_COLUMNS)
        .where(webhooks.c.partner_id == partner_id, webhooks.c.is_active)
        .order_by(webhooks.c.id)
    )
    return [subscription_from_row(row) for row in rows]


class SqlPartnerWebhookRepository:
    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def add(
        self,
        partner_id: int,
        name: str,
        url: str,
        events: tuple[str, ...],
        is_active: bool,
        secret_ciphertext: str,
        now: datetime,
    ) -> Subscription:
        owner = {"partner_id": partner_id}
        return insert_subscription(self._conn, owner, name, url, events, is_active, secret_ciphertext, now)

    def get(self, partner_id: int, webhook_id: int) -> Subscription | None:
        row = self._conn.execute(select(*SUBSCRIPTION_COLUMNS).where(_this(partner_id, webhook_id))).one_or_none()
        return None if row is None else subscription_from_row(row)

    def list(self, partner_id: int) -> Sequence[Subscription]:
        """Oldest first."""
        rows = self._conn.execute(
            select(*SUBSCRIPTION_COLUMNS).where(webhooks.c.partner_id == partner_id).order_by(webhooks.c.id)
        )
        return [subscription_from_row(row) for row in rows]

    def update(self, partner_id: int, subscription: Subscription) -> None:
        update_subscription(self._conn, _this(partner_id, subscription.id), subscription)

    def delete(self, partner_id: int, webhook_id: int) -> None:
        # The delivery log goes with it (ON DELETE CASCADE), pending attempts included.
        forget(self._conn)
        self._conn.execute(delete(webhooks).where(_this(partner_id, webhook_id)))
