"""Support in SQL: departments, and tickets with their replies and per-account numbers."""

from __future__ import annotations

from engage_sql.registry import SqlArea
from engage_sql.support.departments import SqlDepartmentRepository
from engage_sql.support.tickets import SqlTicketRepository

AREA = SqlArea(
    workspace={
        "departments": lambda s: SqlDepartmentRepository(s.connection, s.account_id),
        "tickets": lambda s: SqlTicketRepository(s.connection, s.account_id, lock_reads=s.writes),
    },
)
