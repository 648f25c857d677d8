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

    Limits are enforced race-free (`entitlements.reserve`): in a write unit of work the service
    calls `reserve(limit, since, amount, maximum)`, then writes the new records, then commits, all
    in one transaction; two racing writes can never both take the last unit of a limit. Where the
    storage checks is its own choice, as long as a refused write leaves nothing behind:

    - lock-then-count: `reserve` calls `lock()` and `count(limit, since)` and raises
      PlanLimitReached at once. Every other transaction of the same account that checks a limit
      waits at `lock()` until this one ends, and then counts what it committed. On PostgreSQL
      `lock()` takes the account's `account_counters` row lock, held to commit or rollback (under
      READ COMMITTED the counts that follow see every row committed before it was granted); on
      SQLite a write transaction already holds the database's single write lock (`BEGIN
      IMMEDIATE`), so `lock()` has nothing to do.
    - checked as the transaction commits, for `contacts` and `messages_per_month` only (the
      limits of hot paths): `reserve` records the limit, and `commit()` raises PlanLimitReached,
      rolling everything back, when the records written pass it. PostgreSQL does this, so that
      the account's counter rows are locked only while COMMIT runs. A caller reserving either
      therefore makes no call outside the transaction (no provider, no mail) between `reserve`
      and `commit()`; every other limit is checked by `reserve` itself.

    Counting the records themselves (or a counter every create and delete keeps in the same
    transaction) cannot drift, and deletes need no wiring."""

    def reserve(self, limit: str, since: datetime, amount: int, maximum: int) -> None:
        """Make sure `amount` more of `limit` (as `count` counts it from `since`) fit under
        `maximum` when this transaction commits; raise PlanLimitReached here or from `commit()`."""

    def lock(self) -> None:
        """Serialise limit-checked writes of this account until the transaction ends (for a caller
        that needs the room left, not just a yes or no: the campaign sender's monthly messages)."""

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
