"""The plans (`engage_core.plans`): seeded by migration 0008, changed from the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select, update

from engage_core.plans import Plan
from engage_sql.tables import plans
from engage_sql.types import AnyRow

_COLUMNS = (plans.c.id, plans.c.slug, plans.c.name, plans.c.limits, plans.c.features)


def plan_from_row(row: AnyRow) -> Plan:
    return Plan(row.id, row.slug, row.name, dict(row.limits), frozenset(row.features))


def plan_row(plan: Plan) -> dict[str, Any]:
    """The stored form of a plan (features sorted, so equal plans are equal rows)."""
    return {
        "id": plan.id,
        "slug": plan.slug,
        "name": plan.name,
        "limits": dict(plan.limits),
        "features": sorted(plan.features),
    }


class SqlPlanRepository:
    def __init__(self, connection: Connection) -> None:
        self._conn = connection

    def list(self) -> Sequence[Plan]:
        return [plan_from_row(row) for row in self._conn.execute(select(*_COLUMNS).order_by(plans.c.id))]

    def by_slug(self, slug: str) -> Plan | None:
        row = self._conn.execute(select(*_COLUMNS).where(plans.c.slug == slug)).one_or_none()
        return None if row is None else plan_from_row(row)

    def update(self, plan: Plan) -> None:
        stored = plan_row(plan)
        self._conn.execute(
            update(plans)
            .where(plans.c.slug == plan.slug)
            .values(name=stored["name"], limits=stored["limits"], features=stored["features"])
        )
