"""The delivery log seen as a queue: `engage_core.ports.DeliveryQueue` over `webhook_attempts`.

A claim is a lease: `leased_until` and a random `lease_token` per attempt, written by one atomic
statement. Another worker skips a leased attempt until the lease ends, so a worker that dies
mid-send loses nothing: its attempts are claimed again (and sent again with the same
`delivery_id`, for the receiver to deduplicate on). A completion counts only if it still holds
the lease: the UPDATE matches the attempt's id *and* its token, and stays `pending`.

- PostgreSQL: `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED)`, so workers on any
  number of machines claim disjoint batches without waiting for each other.
- SQLite: the same UPDATE with RETURNING (SQLite 3.35 or later) in a `BEGIN IMMEDIATE` transaction,
  which holds the database's single write lock: claims are serialised by construction.

The queue works across accounts and subscription kinds: it copies `kind`, `owner_id` and
`account_id` from an attempt to its retry without looking at them, so partner-level subscriptions
need no change here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, Connection, Engine, Insert, String, func, insert, literal, or_, select, update

from engage_core.webhooks import Claim, NextStep, Outcome, excerpt
from engage_sql.tables import webhook_attempts, webhooks
from engage_sql.types import AnyRow, UTCDateTime

MIN_SQLITE_VERSION = (3, 35, 0)
"""UPDATE ... RETURNING."""

_a = webhook_attempts

_CLAIMED = (
    _a.c.id,
    _a.c.lease_token,
    _a.c.kind,
    _a.c.owner_id,
    _a.c.webhook_id,
    _a.c.event_type,
    _a.c.payload,
    _a.c.delivery_id,
    _a.c.attempt_number,
    _a.c.due_at,
)


def _claim_from_row(row: AnyRow, url: str, secret_ciphertext: str) -> Claim:
    return Claim(
        attempt_id=row.id,
        lease_token=row.lease_token,
        kind=row.kind,
        owner_id=row.owner_id,
        webhook_id=row.webhook_id,
        url=url,
        secret_ciphertext=secret_ciphertext,
        event_type=row.event_type,
        payload=row.payload,
        delivery_id=row.delivery_id,
        attempt_number=row.attempt_number,
    )


def _random_token(connection: Connection) -> ColumnElement[str]:
    """32 random hex digits, drawn by the database for each row the statement touches."""
    if connection.dialect.name == "postgresql":
        return func.replace(func.gen_random_uuid().cast(String()), "-", "", type_=String())
    return func.lower(func.hex(func.randomblob(16)), type_=String())


class SqlDeliveryQueue:
    """`engage_core.ports.DeliveryQueue` over one engine. Thread-safe: every call has its own connection."""

    def __init__(self, engine: Engine) -> None:
        if engine.dialect.name == "sqlite" and sqlite3.sqlite_version_info < MIN_SQLITE_VERSION:
            raise RuntimeError(
                f"the delivery queue needs SQLite {'.'.join(map(str, MIN_SQLITE_VERSION))} or later "
                f"(UPDATE ... RETURNING); this Python has {sqlite3.sqlite_version}"
            )
        self._engine = engine

    def claim(self, now: datetime, lease_seconds: float, limit: int) -> Sequence[Claim]:
        """Lease up to `limit` due `pending` attempts of active subscriptions whose lease is free or
        has ended, oldest due first."""
        if limit < 1:
            return []
        with self._engine.begin() as connection:  # SQLite: BEGIN IMMEDIATE (engage_sql.engines)
            due = (
                select(_a.c.id)
                .where(
                    _a.c.status == "pending",
                    _a.c.due_at <= now,
                    or_(_a.c.leased_until.is_(None), _a.c.leased_until <= now),
                    # A disabled subscription's queued attempts wait, unsent and not lost, until it
                    # is enabled again (SPEC 6: nothing new is queued for it meanwhile).
                    _a.c.webhook_id.in_(select(webhooks.c.id).where(webhooks.c.is_active)),
                )
                .order_by(_a.c.due_at, _a.c.id)
                .limit(limit)
            )
            if connection.dialect.name == "postgresql":
                due = due.with_for_update(skip_locked=True)
            rows = connection.execute(
                update(_a)
                .where(_a.c.id.in_(due))
                .values(leased_until=now + timedelta(seconds=lease_seconds), lease_token=_random_token(connection))
                .returning(*_CLAIMED)
            ).all()
            if not rows:
                return []
            # Read in the claiming transaction, so a secret regenerated before now signs this attempt.
            # A concurrent DELETE of the subscription waits for this transaction (it cascades to the
            # attempts just locked), so every claimed attempt still has its subscription here.
            targets = {
                target.id: (target.url, target.secret_ciphertext)
                for target in connection.execute(
                    select(webhooks.c.id, webhooks.c.url, webhooks.c.secret_ciphertext).where(
                        webhooks.c.id.in_({row.webhook_id for row in rows})
                    )
                )
            }
        in_order = sorted(rows, key=lambda row: (row.due_at, row.id))  # RETURNING promises no order
        return [_claim_from_row(row, *targets[row.webhook_id]) for row in in_order if row.webhook_id in targets]

    def complete(self, claim: Claim, outcome: Outcome, step: NextStep, now: datetime) -> bool:
        """Record the outcome and queue the retry `step` asks for, in one transaction. False, with
        nothing changed, when the lease was lost: it ended and another worker claimed the attempt,
        or the subscription (and so its log) was deleted meanwhile."""
        with self._engine.begin() as connection:
            # The subscription first, as a DELETE of it does (then cascading to the attempts): taken
            # the other way round, a delete racing the retry's foreign-key check deadlocks on PostgreSQL.
            subscription = connection.execute(
                select(webhooks.c.id)
                .where(webhooks.c.id == claim.webhook_id)
                .with_for_update(read=True, key_share=True)
            ).first()
            if subscription is None:
                return False
            recorded = connection.execute(
                update(_a)
                .where(_a.c.id == claim.attempt_id, _a.c.lease_token == claim.lease_token, _a.c.status == "pending")
                .values(
                    status=step.status,
                    response_status_code=outcome.status_code,
                    response_body=excerpt(outcome.body_excerpt),
                    error=excerpt(outcome.error),
                    completed_at=now,
                    leased_until=None,
                    lease_token=None,
                )
            )
            if recorded.rowcount != 1:
                return False
            if step.retry_at is not None:
                connection.execute(_next_attempt(claim.attempt_id, step.retry_at, now))
        return True

    def close(self) -> None:
        """Nothing to release: the engine belongs to the `Database`."""


def _next_attempt(attempt_id: int, due_at: datetime, now: datetime) -> Insert:
    """INSERT ... SELECT the attempt after `attempt_id`: same delivery, owner, event and payload."""
    copied = ("kind", "owner_id", "account_id", "webhook_id", "delivery_id", "event_type", "payload")
    return insert(_a).from_select(
        [*copied, "attempt_number", "status", "due_at", "created_at"],
        select(
            *(_a.c[name] for name in copied),
            _a.c.attempt_number + 1,
            literal("pending"),
            literal(due_at, UTCDateTime()),
            literal(now, UTCDateTime()),
        ).where(_a.c.id == attempt_id),
    )
