"""Webhook subscriptions of one account and their delivery log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Connection, bindparam, delete, func, insert, literal, select, update

from engage_core.kernel.errors import NotFound
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.webhooks.model import Attempt, Subscription
from engage_sql.driver import DriverStatement
from engage_sql.repository import WorkspaceRepository
from engage_sql.transaction_memo import forget
from engage_sql.types import AnyRow, Id, UTCDateTime
from engage_sql.webhooks.tables import webhook_attempts, webhooks

WORKSPACE = "workspace"
"""`webhook_attempts.kind` of an account's own subscriptions."""

SUBSCRIPTION_COLUMNS = (
    webhooks.c.id,
    webhooks.c.name,
    webhooks.c.url,
    webhooks.c.events,
    webhooks.c.is_active,
    webhooks.c.created_at,
    webhooks.c.updated_at,
)
ATTEMPT_COLUMNS = (
    webhook_attempts.c.id,
    webhook_attempts.c.webhook_id,
    webhook_attempts.c.delivery_id,
    webhook_attempts.c.event_type,
    webhook_attempts.c.attempt_number,
    webhook_attempts.c.status,
    webhook_attempts.c.response_status_code,
    webhook_attempts.c.response_body,
    webhook_attempts.c.error,
    webhook_attempts.c.due_at,
    webhook_attempts.c.created_at,
    webhook_attempts.c.completed_at,
)


def subscription_from_row(row: AnyRow) -> Subscription:
    return Subscription(
        id=row.id,
        name=row.name,
        url=row.url,
        events=tuple(row.events),
        is_active=row.is_active,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def insert_subscription(
    connection: Connection,
    owner: Mapping[str, int],
    name: str,
    url: str,
    events: tuple[str, ...],
    is_active: bool,
    secret_ciphertext: str,
    now: datetime,
) -> Subscription:
    """Store a subscription of `owner` (`{"account_id": ...}` or `{"partner_id": ...}`)."""
    forget(connection)
    row = connection.execute(
        insert(webhooks)
        .values(
            **owner,
            name=name,
            url=url,
            events=list(events),
            is_active=is_active,
            secret_ciphertext=secret_ciphertext,
            created_at=now,
            updated_at=now,
        )
        .returning(*SUBSCRIPTION_COLUMNS)
    ).one()
    return subscription_from_row(row)


def update_subscription(connection: Connection, this: ColumnElement[bool], subscription: Subscription) -> None:
    """Write the subscription's settings to the row `this` selects (its owner's, or none)."""
    forget(connection)
    connection.execute(
        update(webhooks)
        .where(this)
        .values(
            name=subscription.name,
            url=subscription.url,
            events=list(subscription.events),
            is_active=subscription.is_active,
            updated_at=subscription.updated_at,
        )
    )


def attempt_from_row(row: AnyRow) -> Attempt:
    return Attempt(
        id=row.id,
        webhook_id=row.webhook_id,
        delivery_id=row.delivery_id,
        event_type=row.event_type,
        attempt_number=row.attempt_number,
        status=row.status,
        response_status_code=row.response_status_code,
        response_body=row.response_body,
        error=row.error,
        due_at=row.due_at,
        created_at=row.created_at,
        completed_at=row.completed_at,
    )


class SqlWebhookRepository(WorkspaceRepository):
    def add(
        self, name: str, url: str, events: tuple[str, ...], is_active: bool, secret_ciphertext: str, now: datetime
    ) -> Subscription:
        owner = {"account_id": self._account_id}
        return insert_subscription(self._conn, owner, name, url, events, is_active, secret_ciphertext, now)

    def get(self, webhook_id: int) -> Subscription | None:
        row = self._conn.execute(select(*SUBSCRIPTION_COLUMNS).where(self._this(webhook_id))).one_or_none()
        return None if row is None else subscription_from_row(row)

    def list(self) -> Sequence[Subscription]:
        """Oldest first."""
        rows = self._conn.execute(select(*SUBSCRIPTION_COLUMNS).where(self.owned(webhooks)).order_by(webhooks.c.id))
        return [subscription_from_row(row) for row in rows]

    def active(self) -> Sequence[Subscription]:
        """Active subscriptions, oldest first (the outbox fans events out to these)."""
        return active_subscriptions(self._conn, self._account_id)

    def update(self, subscription: Subscription) -> None:
        update_subscription(self._conn, self._this(subscription.id), subscription)

    def delete(self, webhook_id: int) -> None:
        # The delivery log goes with it (ON DELETE CASCADE), pending attempts included.
        forget(self._conn)
        self._conn.execute(delete(webhooks).where(self._this(webhook_id)))

    def secret_ciphertext(self, webhook_id: int) -> str:
        """Raises NotFound when the subscription is not this account's."""
        found: str | None = self._conn.execute(
            select(webhooks.c.secret_ciphertext).where(self._this(webhook_id))
        ).scalar_one_or_none()
        if found is None:
            raise NotFound("Webhook")
        return found

    def set_secret(self, webhook_id: int, secret_ciphertext: str, now: datetime) -> None:
        self._conn.execute(
            update(webhooks).where(self._this(webhook_id)).values(secret_ciphertext=secret_ciphertext, updated_at=now)
        )

    def enqueue(
        self,
        webhook_id: int,
        event_type: str,
        payload: Mapping[str, Any],
        delivery_id: str,
        attempt_number: int,
        due_at: datetime,
        now: datetime,
    ) -> Attempt:
        """Queue one attempt (status `pending`). Raises NotFound when the subscription is not this account's."""
        # INSERT ... SELECT: nothing is queued unless the subscription is this account's.
        row = self._conn.execute(
            insert(webhook_attempts)
            .from_select(
                [
                    "kind",
                    "owner_id",
                    "account_id",
                    "webhook_id",
                    "delivery_id",
                    "event_type",
                    "payload",
                    "attempt_number",
                    "status",
                    "due_at",
                    "created_at",
                ],
                select(
                    literal(WORKSPACE),
                    webhooks.c.account_id,
                    webhooks.c.account_id,
                    webhooks.c.id,
                    literal(delivery_id),
                    literal(event_type),
                    literal(dict(payload), webhook_attempts.c.payload.type),
                    literal(attempt_number),
                    literal("pending"),
                    literal(due_at, UTCDateTime()),
                    literal(now, UTCDateTime()),
                ).where(self._this(webhook_id)),
            )
            .returning(*ATTEMPT_COLUMNS)
        ).one_or_none()
        if row is None:
            raise NotFound("Webhook")
        return attempt_from_row(row)

    def attempts(self, webhook_id: int, status: str | None, page: PageRequest) -> Page[Attempt]:
        """The delivery log, newest first (ids grow with every attempt queued)."""
        where: list[ColumnElement[bool]] = [
            self.owned(webhook_attempts),
            webhook_attempts.c.webhook_id == webhook_id,
        ]
        if status is not None:
            where.append(webhook_attempts.c.status == status)
        total = self._conn.execute(select(func.count()).select_from(webhook_attempts).where(*where)).scalar_one()
        if total <= page.offset:
            return Page(items=[], request=page, total=total)
        rows = self._conn.execute(
            select(*ATTEMPT_COLUMNS)
            .where(*where)
            .order_by(webhook_attempts.c.id.desc())
            .limit(page.per_page)
            .offset(page.offset)
        )
        return Page(items=[attempt_from_row(row) for row in rows], request=page, total=total)

    def delivery(self, webhook_id: int, delivery_id: str) -> Sequence[Attempt]:
        """Every attempt of one delivery, oldest first."""
        rows = self._conn.execute(
            select(*ATTEMPT_COLUMNS)
            .where(
                self.owned(webhook_attempts),
                webhook_attempts.c.webhook_id == webhook_id,
                webhook_attempts.c.delivery_id == delivery_id,
            )
            .order_by(webhook_attempts.c.id)
        )
        return [attempt_from_row(row) for row in rows]

    def payload(self, attempt_id: int) -> Mapping[str, Any]:
        """The event data an attempt carries. Raises NotFound when the attempt is not this account's."""
        found: Mapping[str, Any] | None = self._conn.execute(
            select(webhook_attempts.c.payload).where(self.owned(webhook_attempts), webhook_attempts.c.id == attempt_id)
        ).scalar_one_or_none()
        if found is None:
            raise NotFound("Delivery")
        return found

    def _this(self, webhook_id: int) -> ColumnElement[bool]:
        return self.owned(webhooks) & (webhooks.c.id == webhook_id)


_ACTIVE = DriverStatement(
    select(*SUBSCRIPTION_COLUMNS)
    .where(webhooks.c.account_id == bindparam("account", type_=Id), webhooks.c.is_active.is_(True))
    .order_by(webhooks.c.id)
)
"""Built once and run on the driver's cursor: it runs in every commit that records events (`outbox.py`)."""


def active_subscriptions(connection: Connection, account_id: int) -> list[Subscription]:
    """The account's active subscriptions, oldest first."""
    return subscriptions_of(_ACTIVE.rows(connection, {"account": account_id}))


def subscriptions_of(rows: Sequence[Sequence[Any]]) -> list[Subscription]:
    """Subscriptions from rows of `SUBSCRIPTION_COLUMNS`."""
    return [Subscription(id, name, url, tuple(events), is_active, created_at, updated_at)
            for id, name, url, events, is_active, created_at, updated_at in rows]  # fmt: skip
