"""The plans (`engage_core.plans`): seeded by migration 0008, changed from the CLI."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, String, bindparam, case, func, select, update

from engage_core.plans.model import Plan
from engage_sql.driver import DriverStatement
from engage_sql.partners.tables import partner_clients
from engage_sql.plans.tables import plans
from engage_sql.types import AnyRow, Id, UTCDateTime

_COLUMNS = (plans.c.id, plans.c.slug, plans.c.name, plans.c.limits, plans.c.features)


_CLIENT_PLAN = (
    # `ScheduledPlan.plan_at`: the pending plan from its boundary on, else the client's plan.
    select(
        func.coalesce(
            case(
                (
                    partner_clients.c.pending_from <= bindparam("now", type_=UTCDateTime()),
                    partner_clients.c.pending_plan,
                )
            ),
            partner_clients.c.plan,
        )
    )
    .where(partner_clients.c.account_id == bindparam("account", type_=Id))
    .scalar_subquery()
)
_IN_FORCE = DriverStatement(
    select(*_COLUMNS).where(plans.c.slug == func.coalesce(_CLIENT_PLAN, bindparam("default_plan", type_=String())))
)
"""The plan limits of every limited write read it: one statement (client row by primary key, plan
by its unique slug), straight to the driver."""


def plan_from_row(row: AnyRow | tuple[Any, ...]) -> Plan:
    id, slug, name, limits, features = row
    return Plan(id, slug, name, dict(limits), frozenset(features))


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

    def in_force(self, account_id: int, now: datetime, default_plan: str) -> Plan | None:
        row = _IN_FORCE.first(self._conn, {"account": account_id, "now": now, "default_plan": default_plan})
        return None if row is None else plan_from_row(row)

    def update(self, plan: Plan) -> None:
        stored = plan_row(plan)
        self._conn.execute(
            update(plans)
            .where(plans.c.slug == plan.slug)
            .values(name=stored["name"], limits=stored["limits"], features=stored["features"])
        )
