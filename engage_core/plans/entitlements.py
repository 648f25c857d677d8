"""Entitlements: which plan a workspace is on, its features, and room under its limits.

`Entitlements` is the real `FeatureGate`: a workspace's plan is its client record's plan in force
now (`plans.ScheduledPlan.plan_at`), or the configured default plan for a workspace without a
partner. `Entitlements.require(account_id, feature)` raises `FeatureUnavailable`.

Limits are checked at the write that would pass them, inside the write's own unit of work, with
`reserve(uow, plan, limit, now)`: the storage makes sure one more fits, race-free, and raises
`PlanLimitReached` when it would be too many, either at once or when the transaction commits
(`UsageRepository.reserve`); the caller writes in the same transaction and makes no outside call
before its commit. The plan is read before the transaction opens
(`Entitlements.plan_of`): a plan change racing a create is harmless, the count is what must not race.
`PlanLimits` makes the limits optional, so that a service built without plans (a library user's, a
unit test's) writes without limits.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import attrs

from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound
from engage_core.plans.model import (
    DEFAULT_PLAN,
    LIMITS,
    MESSAGES_PER_MONTH,
    PLAN_SLUGS,
    Plan,
    ScheduledPlan,
    cycle_of,
    month_of,
)
from engage_core.unit_of_work import PartnerUnitOfWork, UnitOfWorkFactory, WorkspaceUnitOfWork


@attrs.frozen
class AccountSubscription:
    """`GET /account/subscription`: the plan in force, its use against the limits, the cycle."""

    plan: Plan
    usage: Mapping[str, int]
    cycle_start: datetime
    cycle_end: datetime
    pending_plan: str | None
    pending_from: datetime | None


def reserve(uow: WorkspaceUnitOfWork, plan: Plan, limit: str, now: datetime, amount: int = 1) -> None:
    """Make sure `amount` more of `limit` fit in `plan`, race-free; call it in the write's unit of
    work right before the write. Raises PlanLimitReached, here or from the unit of work's
    `commit()` (nothing is written)."""
    since = month_of(now)[0] if limit == MESSAGES_PER_MONTH else now  # the other limits are not monthly
    uow.usage.reserve(limit, since, amount, plan.limit(limit))


class Entitlements:
    """The plan-based `FeatureGate`, and the plan of a workspace for limit checks."""

    def __init__(self, uow: UnitOfWorkFactory, clock: Clock, default_plan: str = DEFAULT_PLAN) -> None:
        if default_plan not in PLAN_SLUGS:
            raise ValueError(f"the default plan must be one of {', '.join(PLAN_SLUGS)}, not {default_plan!r}")
        self._uow = uow
        self._clock = clock
        self._default = default_plan

    @property
    def default_plan(self) -> str:
        return self._default

    def plan_of(self, account_id: int) -> Plan:
        """The plan in force now for the workspace."""
        with self._uow.partners(readonly=True) as uow:
            plan = uow.plans.in_force(account_id, self._clock.now(), self._default)
        if plan is None:
            raise NotFound("Plan")
        return plan

    def allows(self, account_id: int, feature: str) -> bool:
        return self.plan_of(account_id).has(feature)

    def delivers(self, account_id: int) -> bool:
        """Whether the workspace receives webhook deliveries now (`Plan.delivers_webhooks`): the
        delivery worker's `DeliveryGate`."""
        return self.plan_of(account_id).delivers_webhooks

    def require(self, account_id: int, feature: str) -> None:
        """Raise FeatureUnavailable (403 with its `code`) unless the workspace's plan has `feature`."""
        self.plan_of(account_id).require(feature)

    def subscription(self, account_id: int) -> AccountSubscription:
        now = self._clock.now()
        with self._uow.partners(readonly=True) as uow:
            account = uow.accounts.get(account_id)
            if account is None:
                raise NotFound("Account")
            schedule = self._schedule(uow, account_id, account.created_at)
            plan = plan_by_slug(uow, schedule.plan_at(now))
        with self._uow.workspace(account_id, readonly=True) as workspace:
            since = month_of(now)[0]
            usage = {limit: workspace.usage.count(limit, since) for limit in LIMITS}
        settled = schedule.settled(now)
        start, end = cycle_of(schedule.cycle_anchor, now)
        return AccountSubscription(plan, usage, start, end, settled.pending_plan, settled.pending_from)

    def _schedule(self, uow: PartnerUnitOfWork, account_id: int, anchor: datetime | None) -> ScheduledPlan:
        client = uow.clients.of_account(account_id)
        if client is not None:
            return client.schedule
        return ScheduledPlan(self._default, anchor or self._clock.now())


def plan_by_slug(uow: PartnerUnitOfWork, slug: str) -> Plan:
    plan = uow.plans.by_slug(slug)
    if plan is None:
        raise NotFound("Plan")
    return plan


class PlanLimits:
    """`entitlements` None: no plan, no limits."""

    def __init__(self, entitlements: Entitlements | None) -> None:
        self._entitlements = entitlements

    def plan_of(self, account_id: int, admitted: Plan | None = None) -> Plan | None:
        """The plan in force for the workspace (`admitted`, when the caller has just read it), or
        None when limits are off."""
        if self._entitlements is None:
            return None
        return admitted if admitted is not None else self._entitlements.plan_of(account_id)

    @staticmethod
    def reserve(uow: WorkspaceUnitOfWork, plan: Plan | None, limit: str, now: datetime, amount: int = 1) -> None:
        """Raise PlanLimitReached (403 naming the limit) unless `amount` more of `limit` fit."""
        if plan is not None and amount > 0:
            reserve(uow, plan, limit, now, amount)
