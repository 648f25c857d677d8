"""Plans: the features and limits a workspace runs on, and the billing cycle (SPEC 2 Plan, SPEC 8).

- Three plans, `starter`, `pro` and `business` (`SEED_PLANS`: the values storage is seeded with;
  operators change them later, from the CLI, through `PlanService.update`).
- Features are on or off per plan: `webhooks`, `api_access`, `booking`, `ai_agents`, `campaigns`
  (SPEC 2), and `linkedin_access`, `voice_cloning_enabled` (SPEC 2 Voice settings, SPEC 5 item 7).
  A disabled feature is `errors.FeatureUnavailable` (403 with a machine `code`).
- Limits are integers per plan: `contacts` (stored contacts), `messages_per_month` (outbound
  messages stored in the current calendar month, UTC; SPEC offers "messages_per_month or
  conversations": we count messages, the thing each send adds), `team_members` and `channels`
  (channel settings, connected or connecting), `media_files` (files in the media library, SPEC 8:
  "a plan-specific media file count limit may apply"). A write that would pass a limit is
  `errors.PlanLimitReached` (403, naming the limit), checked race-free at the write
  (`engage_core.plans.entitlements.reserve`).
- A workspace without a partner runs on the default plan (`DEFAULT_PLAN`, configurable:
  `Entitlements(default_plan=...)`), so changing the setting moves every such workspace at once.
  `business` by default: a self-hosted installation has every feature.

Billing cycle: monthly from the client's creation instant (`cycle_anchor`). Boundary n is the
anchor moved n calendar months ahead, its day clamped to the month's length (created on 31
January: 28 February, 31 March, 30 April, ...; always computed from the anchor, so a short month
does not pull later boundaries back). A plan change that is not `immediate` is stored as
`pending_plan` with `pending_from`, the next boundary; from that instant the pending plan is the
plan (`ScheduledPlan.plan_at`): the switch is a pure function of the stored row and the clock,
so no scheduler runs and a read never writes. The next write of the row settles it
(`ScheduledPlan.settled`).
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping
from datetime import UTC, datetime

import attrs

from engage_core.kernel.errors import FeatureUnavailable, PlanLimitReached

FEATURES: tuple[str, ...] = (
    "webhooks",
    "api_access",
    "booking",
    "ai_agents",
    "campaigns",
    "linkedin_access",
    "voice_cloning_enabled",
)
"""Every feature a plan switches on or off (SPEC 2 Plan plus the two SPEC 2 and 5 name elsewhere)."""

CONTACTS = "contacts"
MESSAGES_PER_MONTH = "messages_per_month"
TEAM_MEMBERS = "team_members"
CHANNELS = "channels"
MEDIA_FILES = "media_files"
LIMITS: tuple[str, ...] = (CONTACTS, MESSAGES_PER_MONTH, TEAM_MEMBERS, CHANNELS, MEDIA_FILES)

PLAN_SLUGS: tuple[str, ...] = ("starter", "pro", "business")
DEFAULT_PLAN = "business"
NAME_MAX = 100
LIMIT_MAX = 1_000_000_000

WEBHOOK_DELIVERY = frozenset({"webhooks", "api_access"})
"""The features a workspace's plan needs for its webhook subscriptions to be delivered to."""

FEATURE_CODES: Mapping[str, str] = {"linkedin_access": "linkedin_upgrade_required"}
"""The 403 `code` of a disabled feature where SPEC names one; every other is `feature_not_in_plan`."""


@attrs.frozen
class Plan:
    """A plan. `limits` has an integer for every name in `LIMITS`; `features` the enabled ones."""

    id: int
    slug: str
    name: str
    limits: Mapping[str, int]
    features: frozenset[str]

    def limit(self, name: str) -> int:
        return self.limits[name]

    def has(self, feature: str) -> bool:
        return feature in self.features

    @property
    def delivers_webhooks(self) -> bool:
        """Whether a workspace on this plan receives webhook deliveries: it needs `webhooks`, and
        `api_access` too, without which it could not list or delete the subscriptions."""
        return self.features >= WEBHOOK_DELIVERY

    def feature_flags(self) -> dict[str, bool]:
        """Every feature with whether the plan has it (the API's `features` object)."""
        return {feature: feature in self.features for feature in FEATURES}

    def require(self, feature: str) -> None:
        """Raise FeatureUnavailable unless the plan has `feature`."""
        if feature not in self.features:
            raise FeatureUnavailable(feature, FEATURE_CODES.get(feature, "feature_not_in_plan"))

    def check_room(self, limit: str, used: int, amount: int = 1) -> None:
        """Raise PlanLimitReached when `amount` more on top of `used` would pass the limit."""
        check_room(limit, used, amount, self.limits[limit])


def check_room(limit: str, used: int, amount: int, maximum: int) -> None:
    """Raise PlanLimitReached when `amount` more of `limit` on top of `used` would pass `maximum`."""
    if used + amount > maximum:
        raise PlanLimitReached(limit, maximum)


def _seed(
    plan_id: int, slug: str, name: str, limits: tuple[int, int, int, int, int], features: tuple[str, ...]
) -> Plan:
    return Plan(plan_id, slug, name, dict(zip(LIMITS, limits, strict=True)), frozenset(features))


SEED_PLANS: tuple[Plan, ...] = (
    _seed(1, "starter", "Starter", (1_000, 2_000, 2, 1, 100), ("api_access", "booking")),
    _seed(
        2,
        "pro",
        "Pro",
        (10_000, 20_000, 10, 3, 1_000),
        ("webhooks", "api_access", "booking", "ai_agents", "campaigns"),
    ),
    _seed(3, "business", "Business", (100_000, 200_000, 50, 4, 10_000), FEATURES),
)
"""What storage holds before anyone edits a plan. `channels` 4 on business: every channel type."""


# -- the billing cycle ---------------------------------------------------------------------------


def add_months(anchor: datetime, months: int) -> datetime:
    """`anchor` moved `months` calendar months ahead, its day clamped to the target month's length."""
    index = anchor.year * 12 + anchor.month - 1 + months
    year, month = divmod(index, 12)
    day = min(anchor.day, calendar.monthrange(year, month + 1)[1])
    return anchor.replace(year=year, month=month + 1, day=day)


def cycle_of(anchor: datetime, now: datetime) -> tuple[datetime, datetime]:
    """The billing cycle `[start, end)` containing `now`; before the anchor, the first cycle."""
    if now < anchor:
        return anchor, add_months(anchor, 1)
    months = (now.year - anchor.year) * 12 + now.month - anchor.month
    start = add_months(anchor, months)
    if start > now:
        months -= 1
        start = add_months(anchor, months)
    return start, add_months(anchor, months + 1)


def month_of(now: datetime) -> tuple[datetime, datetime]:
    """The calendar month (UTC) `[start, end)` containing `now`: the window of `messages_per_month`
    and the `current` usage period."""
    moment = now.astimezone(UTC)
    start = datetime(moment.year, moment.month, 1, tzinfo=UTC)
    return start, add_months(start, 1)


def parse_period(text: str) -> tuple[datetime, datetime]:
    """`YYYY-MM` as its calendar month (UTC) `[start, end)`. Raises ValueError."""
    if len(text) != 7 or text[4] != "-" or not (text[:4].isdigit() and text[5:].isdigit()):
        raise ValueError(f"not a YYYY-MM period: {text!r}")
    year, month = int(text[:4]), int(text[5:])
    if not (1 <= month <= 12 and 1 <= year <= 9998):
        raise ValueError(f"not a YYYY-MM period: {text!r}")
    return month_of(datetime(year, month, 1, tzinfo=UTC))


def format_period(start: datetime) -> str:
    return f"{start.year:04d}-{start.month:02d}"


@attrs.frozen
class ScheduledPlan:
    """Which plan a workspace is on, and a change waiting for the next cycle boundary."""

    plan: str
    cycle_anchor: datetime
    pending_plan: str | None = None
    pending_from: datetime | None = None

    def plan_at(self, now: datetime) -> str:
        """The plan in force at `now`: the pending one once its boundary has passed."""
        if self.pending_plan is not None and self.pending_from is not None and now >= self.pending_from:
            return self.pending_plan
        return self.plan

    def settled(self, now: datetime) -> ScheduledPlan:
        """The same schedule with a change whose boundary has passed applied."""
        if self.pending_plan is None or self.pending_from is None or now < self.pending_from:
            return self
        return ScheduledPlan(self.pending_plan, self.cycle_anchor)

    def change(self, slug: str, immediate: bool, now: datetime) -> ScheduledPlan:
        """Move to `slug` now (`immediate`), or at the next boundary. A later change replaces a
        pending one; asking for the plan already in force cancels a pending change."""
        current = self.settled(now)
        if immediate or slug == current.plan:
            return ScheduledPlan(slug, self.cycle_anchor)
        return ScheduledPlan(current.plan, self.cycle_anchor, slug, cycle_of(self.cycle_anchor, now)[1])

    def next_boundary(self, now: datetime) -> datetime:
        return cycle_of(self.cycle_anchor, now)[1]
