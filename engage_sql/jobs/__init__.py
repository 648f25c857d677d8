"""Jobs in SQL: queued in a workspace's unit of work, claimed by the worker's queue."""

from __future__ import annotations

from engage_sql.jobs.repository import SqlJobRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "jobs": lambda s: SqlJobRepository(s.connection, s.account_id),
    },
)
