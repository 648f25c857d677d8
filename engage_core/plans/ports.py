"""What plans need: storage of plans and usage counts, and the feature gate."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from engage_core.plans.model import Plan
from engage_core.plans.usage import WorkspaceUsage


class FeatureGate(Protocol):
    """Plan features (`features.LINKEDIN_ACCESS`, ...). `features.AllowAllFeatures` until plans exist."""

    def allows(self, account_id: int, feature: str) -> bool:
        """Whether the workspace `account_id` may use `feature` now."""


class PlanRepository(Protocol):
    """The plans (`engage_core.plans`). Storage is seeded with `plans.SEED_PLANS` (a migration);
    plans are changed, never added or removed, so a workspace's plan slug always resolves."""

    def list(self) -> Sequence[Plan]:
        """Every plan, ascending id."""

    def by_slug(self, slug: str) -> Plan | None:
        """The plan `slug`, or None."""

    def in_force(self, account_id: int, now: datetime, default_plan: str) -> Plan | None:
        """The plan in force at `now` for the workspace, in one read: its client row's pending plan
        from `pending_from` on, else the client row's plan, else (no client row: a workspace without a
        partner) `default_plan` (`ScheduledPlan.plan_at`). None only if that slug has no plan."""

    def update(self, plan: Plan) -> None:
        """Store `name`, `limits` and `features` of the plan with this slug."""


class UsageRepository(Protocol):
    """What one workspace uses, counted from its records: the plan limits and the usage report.

    Limits are enforced race-free by lock-then-count (`services.plans.reserve`): in a write unit
    of work the service calls `lock()`, then `count(limit, since)`, then writes the new record, all
    in one transaction. Every other transaction of the same account that checks a limit waits at
    `lock()` until this one ends, and then counts what it committed, so two racing writes can
    never both take the last unit of a limit. Counting the records themselves (instead of a
    counter each create and delete must keep right) cannot drift, and deletes need no wiring.

    - PostgreSQL: `lock()` takes the account's `account_counters` row lock, `SELECT 1 FROM
      account_counters WHERE account_id = :a FOR UPDATE` (or a transaction-level advisory lock on
      `'plan:' || :a`), held to commit or rollback. Under READ COMMITTED the counts that follow see
      every row committed before the lock was granted.
    - SQLite: a write transaction already holds the database's single write lock (`BEGIN
      IMMEDIATE`), so `lock()` has nothing to do."""

    def lock(self) -> None:
        """Serialise limit-checked writes of this account until the transaction ends."""

    def count(self, limit: str, since: datetime) -> int:
        """Current use of one of `plans.LIMITS`: `contacts`, every contact of the account;
        `team_members`, every member; `channels`, every channel setting (connected or not);
        `media_files`, every media file; `messages_per_month`, outbound messages with `created_at >= since` (an index on
        `(account_id, direction, created_at)` serves it). `since` is ignored by the others."""

    def report(self, start: datetime, end: datetime) -> WorkspaceUsage:
        """The usage report of `engage_core.plans.usage` for `[start, end)`: contacts (all, created in
        the period, blacklisted), messages created in the period (outbound not failed: sent;
        inbound: received; failed), bookings (all, completed, cancelled), team members, and the
        types of the connected channel settings, in alphabetical order."""


class UsageRepositories(Protocol):
    """What a workspace unit of work hands out of this area: its usage counts."""

    @property
    def usage(self) -> UsageRepository:
        """The workspace's usage counts."""


class PlansRepositories(Protocol):
    """What the partners' unit of work hands out of this area: the plans."""

    @property
    def plans(self) -> PlanRepository:
        """The plans."""
