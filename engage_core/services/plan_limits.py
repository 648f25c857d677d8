"""The plan limits of a service's writes, optional so that a service built without plans (a
library user's, a unit test's) writes without limits.

The plan is read before the write's transaction opens (`PlanLimits.plan_of`), and room is
reserved inside it, right before the write (`PlanLimits.reserve`, which is
`services.plans.reserve`): the count is what must not race, a plan change racing a write is
harmless.
"""

from __future__ import annotations

from datetime import datetime

from engage_core.plans import Plan
from engage_core.ports import WorkspaceUnitOfWork
from engage_core.services.plans import Entitlements, reserve


class PlanLimits:
    """`entitlements` None: no plan, no limits."""

    def __init__(self, entitlements: Entitlements | None) -> None:
        self._entitlements = entitlements

    def plan_of(self, account_id: int) -> Plan | None:
        """The plan in force for the workspace, or None when limits are off."""
        return None if self._entitlements is None else self._entitlements.plan_of(account_id)

    @staticmethod
    def reserve(uow: WorkspaceUnitOfWork, plan: Plan | None, limit: str, now: datetime, amount: int = 1) -> None:
        """Raise PlanLimitReached (403 naming the limit) unless `amount` more of `limit` fit."""
        if plan is not None and amount > 0:
            reserve(uow, plan, limit, now, amount)
