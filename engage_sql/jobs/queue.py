"""`JobQueue` in SQL: the jobs of every account as the worker's queue, leased as in
`engage_sql.leases` (shared with the webhook delivery log)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from sqlalchemy import Engine, func, or_, select, update

from engage_core.jobs.model import JobClaim
from engage_sql.engines import readonly_options
from engage_sql.group_commit import WriteGroups
from engage_sql.jobs.tables import jobs
from engage_sql.leases import LeaseTransactions, claiming, random_token


class SqlJobQueue:
    """`engage_core.jobs.ports.JobQueue` over one engine. Thread-safe: every call has its own connection."""

    def __init__(self, engine: Engine, *, groups: WriteGroups | None = None) -> None:
        self._engine = engine
        self._transactions = LeaseTransactions(engine, groups, what="job queue")

    def claim(self, kinds: Collection[str], now: datetime, lease_seconds: float, limit: int) -> Sequence[JobClaim]:
        if not kinds or limit < 1:
            return []
        dialect = self._engine.dialect.name
        due = (
            select(jobs.c.id)
            .where(
                jobs.c.kind.in_(sorted(kinds)),
                or_(
                    (jobs.c.status == "queued") & (jobs.c.run_at <= now),
                    (jobs.c.status == "running") & (jobs.c.leased_until <= now),  # its worker died
                ),
            )
            .order_by(jobs.c.run_at, jobs.c.id)
            .limit(limit)
        )
        statement = (
            update(jobs)
            .where(jobs.c.id.in_(claiming(due, dialect)))
            .values(
                status="running",
                attempts=jobs.c.attempts + 1,
                leased_until=now + timedelta(seconds=lease_seconds),
                lease_token=random_token(dialect),
                updated_at=now,
            )
            .returning(
                jobs.c.id,
                jobs.c.lease_token,
                jobs.c.account_id,
                jobs.c.kind,
                jobs.c.payload,
                jobs.c.attempts,
                jobs.c.max_attempts,
                jobs.c.run_at,
            )
        )
        with self._transactions.write() as connection:
            rows = sorted(
                connection.execute(statement).all(), key=lambda row: (row.run_at, row.id)
            )  # RETURNING: no order
        return [
            JobClaim(row.id, row.lease_token, row.account_id, row.kind, row.payload, row.attempts, row.max_attempts)
            for row in rows
        ]

    def _update_held(self, claim: JobClaim, **values: object) -> bool:
        statement = (
            update(jobs)
            .where(jobs.c.id == claim.job_id, jobs.c.lease_token == claim.lease_token, jobs.c.status == "running")
            .values(**values)
        )
        with self._transactions.write() as connection:
            return connection.execute(statement).rowcount > 0

    def heartbeat(self, claim: JobClaim, now: datetime, lease_seconds: float) -> bool:
        return self._update_held(claim, leased_until=now + timedelta(seconds=lease_seconds))

    def succeed(self, claim: JobClaim, now: datetime) -> bool:
        return self._update_held(
            claim, status="succeeded", updated_at=now, finished_at=now, leased_until=None, lease_token=None
        )

    def fail(self, claim: JobClaim, error: str, now: datetime) -> bool:
        return self._update_held(
            claim,
            status="failed",
            last_error=error,
            updated_at=now,
            finished_at=now,
            leased_until=None,
            lease_token=None,
        )

    def retry(self, claim: JobClaim, error: str, run_at: datetime, now: datetime, *, counts: bool = True) -> bool:
        return self._update_held(
            claim,
            status="queued",
            attempts=jobs.c.attempts if counts else jobs.c.attempts - 1,
            run_at=run_at,
            last_error=error,
            updated_at=now,
            leased_until=None,
            lease_token=None,
        )

    def backlog(self, now: datetime) -> Sequence[tuple[str, int, datetime | None]]:
        queued_at = func.min(jobs.c.run_at).filter(jobs.c.status == "queued")
        statement = (
            select(jobs.c.kind, func.count(), queued_at)
            .where(jobs.c.status.in_(("queued", "running")))
            .group_by(jobs.c.kind)
            .order_by(jobs.c.kind)
        )
        with self._engine.connect() as connection:
            readonly_options(connection)
            return [(kind, int(count), earliest) for kind, count, earliest in connection.execute(statement)]

    def close(self) -> None:
        """Nothing to release: the engine belongs to the `Database`."""
