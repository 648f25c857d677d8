"""`JobRepository` in SQL: the jobs of one account, queued in the unit of work's transaction."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, RowMapping, and_, insert, select, update
from sqlalchemy.exc import IntegrityError

from engage_core.jobs.model import Job, JobRequest
from engage_sql.jobs.tables import jobs

_UNFINISHED = jobs.c.status.in_(("queued", "running"))
_COLUMNS = (
    jobs.c.id,
    jobs.c.account_id,
    jobs.c.kind,
    jobs.c.key,
    jobs.c.payload,
    jobs.c.status,
    jobs.c.attempts,
    jobs.c.max_attempts,
    jobs.c.run_at,
    jobs.c.last_error,
    jobs.c.created_at,
    jobs.c.updated_at,
    jobs.c.finished_at,
)


def job_from_row(row: RowMapping) -> Job:
    return Job(
        id=row["id"],
        account_id=row["account_id"],
        kind=row["kind"],
        key=row["key"],
        payload=row["payload"],
        status=row["status"],
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        run_at=row["run_at"],
        last_error=row["last_error"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        finished_at=row["finished_at"],
    )


class SqlJobRepository:
    def __init__(self, connection: Connection, account_id: int) -> None:
        self._conn = connection
        self._account = account_id

    def enqueue(self, request: JobRequest, now: datetime) -> Job:
        if request.key is not None:
            existing = self._unfinished(request.kind, request.key)
            if existing is not None:
                return existing
        values = {
            "account_id": self._account,
            "kind": request.kind,
            "key": request.key,
            "payload": dict(request.payload),
            "status": "queued",
            "attempts": 0,
            "max_attempts": request.max_attempts,
            "run_at": request.run_at or now,
            "created_at": now,
            "updated_at": now,
        }
        if request.key is None:
            return self._insert(values)
        # Two transactions queuing the same key at once: the partial unique index lets one in; the
        # other, in a savepoint, gets the winner's job.
        try:
            with self._conn.begin_nested():
                return self._insert(values)
        except IntegrityError:
            existing = self._unfinished(request.kind, request.key)
            if existing is None:
                raise
            return existing

    def _insert(self, values: Mapping[str, Any]) -> Job:
        row = self._conn.execute(insert(jobs).values(**values).returning(*_COLUMNS)).mappings().one()
        return job_from_row(row)

    def _unfinished(self, kind: str, key: str) -> Job | None:
        row = self._conn.execute(select(*_COLUMNS).where(self._mine(kind, key), _UNFINISHED)).mappings().first()
        return None if row is None else job_from_row(row)

    def _mine(self, kind: str, key: str) -> Any:
        return and_(jobs.c.account_id == self._account, jobs.c.kind == kind, jobs.c.key == key)

    def get(self, job_id: int) -> Job | None:
        row = (
            self._conn.execute(select(*_COLUMNS).where(jobs.c.account_id == self._account, jobs.c.id == job_id))
            .mappings()
            .first()
        )
        return None if row is None else job_from_row(row)

    def find(self, kind: str, key: str) -> Job | None:
        row = (
            self._conn.execute(select(*_COLUMNS).where(self._mine(kind, key)).order_by(jobs.c.id.desc()).limit(1))
            .mappings()
            .first()
        )
        return None if row is None else job_from_row(row)

    def cancel(self, kind: str, key: str, now: datetime) -> bool:
        result = self._conn.execute(
            update(jobs)
            .where(self._mine(kind, key), _UNFINISHED)
            .values(status="cancelled", updated_at=now, finished_at=now, leased_until=None, lease_token=None)
        )
        return result.rowcount > 0
