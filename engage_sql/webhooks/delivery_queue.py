"""The delivery log seen as a queue: `engage_core.webhooks.ports.DeliveryQueue` over `webhook_attempts`.

A claim is a lease (`engage_sql.leases`, shared with the jobs): another worker skips a leased
attempt until the lease ends, so a worker that dies mid-send loses nothing: its attempts are
claimed again (and sent again with the same `delivery_id`, for the receiver to deduplicate on). A
completion counts only if it still holds the lease: the UPDATE matches the attempt's id *and* its
token, and stays `pending`.

A worker's loop records what it sent and claims the next attempts in one transaction
(`complete_and_claim`): with `synchronous=FULL` every SQLite COMMIT waits for an fsync (milliseconds
on a busy or slow disk), and then the COMMITs, not the statements, bound how fast a worker delivers. Given the
units of work's `WriteGroups` (`Database.delivery_queue()` does), the queue's transactions also join
their group commit, sharing a COMMIT with the writes of the HTTP requests of `engage serve`, instead
of each waiting for SQLite's write lock in its busy handler (which sleeps). Either way a claim or a
completion returns only once the COMMIT that holds it has returned. The same transaction releases
the attempts a worker claimed ahead but did not send (their lease ends: due again at once). The
statements are built once, at import, and run on the driver's cursor (`DriverStatement`): building
one, or running it through SQLAlchemy's execution path, costs more than SQLite takes to run it. The
claiming UPDATE returns each attempt's target URL and secret itself, through scalar subqueries.

The queue works across accounts and subscription kinds: it copies `kind`, `owner_id` and
`account_id` from an attempt to its retry without looking at them, so partner-level subscriptions
need no change here.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Select,
    bindparam,
    insert,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.sql.dml import ReturningUpdate
from sqlalchemy.sql.elements import BindParameter

from engage_core.webhooks.model import Claim, Completion, NextStep, Outcome, excerpt
from engage_sql.driver import DriverStatement, Row
from engage_sql.group_commit import WriteGroups
from engage_sql.leases import LeaseTransactions, claiming, random_token
from engage_sql.types import UTCDateTime
from engage_sql.webhooks.tables import webhook_attempts, webhooks

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
    # The target, read by the claiming statement itself, so a secret regenerated before now signs
    # this attempt. A concurrent DELETE of the subscription waits for this transaction (it cascades
    # to the attempts just locked), so every claimed attempt still has its subscription here.
    select(webhooks.c.url).where(webhooks.c.id == _a.c.webhook_id).scalar_subquery().label("url"),
    select(webhooks.c.secret_ciphertext)
    .where(webhooks.c.id == _a.c.webhook_id)
    .scalar_subquery()
    .label("secret_ciphertext"),
)


def _claim_from_row(row: Row) -> Claim:
    """A claim from a row of `_CLAIMED` (in that order; `due_at`, used for sorting, is left out)."""
    attempt_id, token, kind, owner_id, webhook_id, event_type, payload, delivery_id, number, _, url, secret = row
    return Claim(
        attempt_id=attempt_id,
        lease_token=token,
        kind=kind,
        owner_id=owner_id,
        webhook_id=webhook_id,
        url=url,
        secret_ciphertext=secret,
        event_type=event_type,
        payload=payload,
        delivery_id=delivery_id,
        attempt_number=number,
    )


class SqlDeliveryQueue:
    """`engage_core.webhooks.ports.DeliveryQueue` over one engine. Thread-safe: every call has its own connection."""

    def __init__(self, engine: Engine, *, groups: WriteGroups | None = None) -> None:
        """`groups`: the write groups (SQLite) of the units of work over the same engine, to commit with."""
        self._transactions = LeaseTransactions(engine, groups, what="delivery queue")

    def claim(self, now: datetime, lease_seconds: float, limit: int) -> Sequence[Claim]:
        """Lease up to `limit` due `pending` attempts of active subscriptions whose lease is free or
        has ended, oldest due first."""
        return self.complete_and_claim([], now, lease_seconds, limit)[1]

    def complete(self, claim: Claim, outcome: Outcome, step: NextStep, now: datetime) -> bool:
        """Record the outcome and queue the retry `step` asks for, in one transaction. False, with
        nothing changed, when the lease was lost: it ended and another worker claimed the attempt,
        or the subscription (and so its log) was deleted meanwhile."""
        [recorded] = self.complete_and_claim([Completion(claim, outcome, step)], now, 0.0, 0)[0]
        return recorded

    def complete_and_claim(
        self,
        completions: Sequence[Completion],
        now: datetime,
        lease_seconds: float,
        limit: int,
        *,
        release: Sequence[Claim] = (),
    ) -> tuple[Sequence[bool], Sequence[Claim]]:
        """`complete` each of `completions`, end the lease of each of `release`, then `claim` up to
        `limit` attempts, in one transaction: one COMMIT (on SQLite with `synchronous=FULL`, an
        fsync of a few milliseconds) for a whole turn of the worker's loop. Whether each completion
        was recorded, in order, and the claims."""
        if not completions and not release and limit < 1:
            return [], []
        with self._transactions.write() as connection:
            recorded = _record(connection, completions, now) if completions else []
            if release:
                _RELEASE.execute_many(
                    connection, [{"b_id": claim.attempt_id, "b_token": claim.lease_token} for claim in release]
                )
            if limit < 1:
                return recorded, []
            rows = _CLAIM[connection.dialect.name].rows(
                connection, {"now": now, "lease_until": now + timedelta(seconds=lease_seconds), "limit": limit}
            )
        rows.sort(key=_DUE_ORDER)  # RETURNING promises no order
        return recorded, [_claim_from_row(row) for row in rows if row[_URL] is not None]

    def close(self) -> None:
        """Nothing to release: the engine belongs to the `Database`."""


def _record(connection: Connection, completions: Sequence[Completion], now: datetime) -> list[bool]:
    """Record `completions` whose lease still holds, and queue their retries: whether each was.

    The attempts still leased to them are read first, and locked (on PostgreSQL; on SQLite the
    transaction holds the write lock), then recorded by one executemany UPDATE, and their retries
    queued by one executemany INSERT: a few statements for a whole batch."""
    postgres = connection.dialect.name == "postgresql"
    alive: set[int] = set()
    if postgres:
        # The subscriptions first, as a DELETE of one does (then cascading to the attempts): taken
        # the other way round, a delete racing a retry's foreign-key check deadlocks.
        webhook_ids = sorted({c.claim.webhook_id for c in completions})
        alive = {row[0] for row in _LOCK_SUBSCRIPTIONS.rows(connection, webhook_ids)}
    attempt_ids = sorted({c.claim.attempt_id for c in completions})
    held = {(row[0], row[1]) for row in (_HELD_POSTGRES if postgres else _HELD).rows(connection, attempt_ids)}
    recorded = []
    for completion in completions:
        lease = (completion.claim.attempt_id, completion.claim.lease_token)
        recorded.append(lease in held and (not postgres or completion.claim.webhook_id in alive))
        held.discard(lease)  # a claim given twice is recorded once
    done = [c for c, ok in zip(completions, recorded, strict=True) if ok]
    _RECORD.execute_many(connection, [_recorded_values(c, now) for c in done])
    retries = [{"r_id": c.claim.attempt_id, "r_due": c.step.retry_at, "r_now": now} for c in done if c.step.retry_at]
    _NEXT_ATTEMPT.execute_many(connection, retries)
    return recorded


# -- the statements, built once and run on the driver's cursor (`DriverStatement`) ------------------
# Building a statement costs more than running it on SQLite, and so does SQLAlchemy's execution
# path: a turn of the worker's loop runs five of them.

_NOW = bindparam("now", type_=UTCDateTime())
_CLAIMED_INDEX = {column.name: index for index, column in enumerate(_CLAIMED)}
_URL = _CLAIMED_INDEX["url"]
_DUE_ORDER = operator.itemgetter(_CLAIMED_INDEX["due_at"], _CLAIMED_INDEX["id"])


def _claim_statement(dialect: str) -> ReturningUpdate[Any]:
    due = (
        select(_a.c.id)
        .where(
            _a.c.status == "pending",
            _a.c.due_at <= _NOW,
            or_(_a.c.leased_until.is_(None), _a.c.leased_until <= _NOW),
            # A disabled subscription's queued attempts wait, unsent and not lost, until it is
            # enabled again (SPEC 6: nothing new is queued for it meanwhile).
            _a.c.webhook_id.in_(select(webhooks.c.id).where(webhooks.c.is_active)),
        )
        .order_by(_a.c.due_at, _a.c.id)
        .limit(bindparam("limit"))
    )
    return (
        update(_a)
        .where(_a.c.id.in_(claiming(due, dialect)))
        .values(leased_until=bindparam("lease_until", type_=UTCDateTime()), lease_token=random_token(dialect))
        .returning(*_CLAIMED)
    )


_CLAIM = {dialect: DriverStatement(_claim_statement(dialect)) for dialect in ("sqlite", "postgresql")}


class _ByIds:
    """A SELECT whose WHERE has `id IN (ids)`, for any number of ids, on the driver's cursor.

    The driver takes no list for an `IN`, and SQLAlchemy's expanding parameters change the SQL
    with each count: so one statement per power-of-two count is built, when first needed, and the
    ids are padded to it by repeating the last (which matches no more rows)."""

    def __init__(self, build: Callable[[ColumnElement[bool]], Select[Any]], column: ColumnElement[int]) -> None:
        self._build = build
        self._column = column
        self._by_size: dict[int, DriverStatement] = {}

    def rows(self, connection: Connection, ids: Sequence[int]) -> list[Row]:
        size = 1 << max(0, len(ids) - 1).bit_length()
        statement = self._by_size.get(size)
        if statement is None:
            names: list[BindParameter[Any]] = [bindparam(f"id_{n}") for n in range(size)]
            statement = self._by_size[size] = DriverStatement(self._build(self._column.in_(names)))
        return statement.rows(connection, {f"id_{n}": ids[min(n, len(ids) - 1)] for n in range(size)})


_LOCK_SUBSCRIPTIONS = _ByIds(
    lambda ids: select(webhooks.c.id).where(ids).order_by(webhooks.c.id).with_for_update(read=True, key_share=True),
    webhooks.c.id,
)


def _held(ids: ColumnElement[bool]) -> Select[Any]:
    return select(_a.c.id, _a.c.lease_token).where(ids, _a.c.status == "pending")


_HELD = _ByIds(_held, _a.c.id)
_HELD_POSTGRES = _ByIds(lambda ids: _held(ids).order_by(_a.c.id).with_for_update(), _a.c.id)

_RECORD = DriverStatement(
    update(_a)
    .where(_a.c.id == bindparam("b_id"), _a.c.lease_token == bindparam("b_token"), _a.c.status == "pending")
    .values(
        status=bindparam("b_status"),
        response_status_code=bindparam("b_code"),
        response_body=bindparam("b_body"),
        error=bindparam("b_error"),
        completed_at=bindparam("b_now", type_=UTCDateTime()),
        leased_until=None,
        lease_token=None,
    )
)

_RELEASE = DriverStatement(
    update(_a)
    .where(_a.c.id == bindparam("b_id"), _a.c.lease_token == bindparam("b_token"), _a.c.status == "pending")
    .values(leased_until=None, lease_token=None)
)


def _recorded_values(completion: Completion, now: datetime) -> dict[str, Any]:
    claim, outcome = completion.claim, completion.outcome
    return {
        "b_id": claim.attempt_id,
        "b_token": claim.lease_token,
        "b_status": completion.step.status,
        "b_code": outcome.status_code,
        "b_body": excerpt(outcome.body_excerpt),
        "b_error": excerpt(outcome.error),
        "b_now": now,
    }


_COPIED = ("kind", "owner_id", "account_id", "webhook_id", "delivery_id", "event_type", "payload")

_NEXT_ATTEMPT = DriverStatement(
    insert(_a).from_select(
        [*_COPIED, "attempt_number", "status", "due_at", "created_at"],
        select(
            *(_a.c[name] for name in _COPIED),
            _a.c.attempt_number + 1,
            literal("pending"),
            bindparam("r_due", type_=UTCDateTime()),
            bindparam("r_now", type_=UTCDateTime()),
        ).where(_a.c.id == bindparam("r_id")),
    )
)
"""INSERT ... SELECT the attempt after `r_id`: same delivery, owner, event and payload, due at `r_due`."""
