"""Plans in SQL: the plans, the plan in force, and usage counts."""

from __future__ import annotations

from engage_sql.plans.plans import SqlPlanRepository
from engage_sql.plans.usage import SqlUsageRepository
from engage_sql.registry import SqlArea

AREA = SqlArea(
    workspace={
        "usage": lambda s: SqlUsageRepository(s.connection, s.account_id),
    },
    partners={
        "plans": lambda s: SqlPlanRepository(s.connection),
    },
)
