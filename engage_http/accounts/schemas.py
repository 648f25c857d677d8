"""Request and response bodies of the workspace's own account (SPEC 4, Account; the bodies are ours:
SPEC shows none)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import attrs

from engage_core.accounts.model import LOCALE_PATTERN
from engage_core.accounts.profile_service import AccountProfile, ProfilePatch
from engage_core.kernel.unset import UNSET, Unset
from engage_core.plans.entitlements import AccountSubscription
from engage_http.bookings.setup_schemas import Timezone
from engage_http.constraints import Doc, Text
from engage_http.converter import structures_into
from engage_http.fields import Name
from engage_http.partners.schemas import Plan, PlanLimits

Locale = Annotated[
    str,
    Text(pattern=LOCALE_PATTERN, message="The {field} must be a language tag such as en, en-US or ar-SA."),
    Doc(
        description="A BCP 47 language tag: language, optional script, optional region; stored in canonical case.",
        example="en-US",
    ),
]


@attrs.frozen
class Account:
    """The workspace. `timezone` is the one bookings' working hours are read in."""

    id: int
    name: str
    timezone: str = attrs.field(metadata={"description": "IANA timezone name; `UTC` until set."})
    locale: str = attrs.field(metadata={"description": "BCP 47 language tag such as `en-US`; `en` until set."})
    is_active: bool
    allowed_origins: tuple[str, ...] = attrs.field(
        metadata={"description": "Origins allowed to call with the key; empty or `*`: every origin."}
    )
    api_key_hint: str = attrs.field(
        metadata={
            "description": "The key's first eight characters and an ellipsis (`eng_AbCd…`): its public prefix "
            "and four characters, enough to tell keys apart, never the key."
        }
    )
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_domain(cls, profile: AccountProfile) -> Account:
        # The wire flattens the account and its timezone into one object, and names `key_hint` `api_key_hint`.
        account = profile.account
        return cls(
            id=account.id,
            name=account.name,
            timezone=profile.timezone,
            locale=account.locale,
            is_active=account.is_active,
            allowed_origins=account.allowed_origins,
            api_key_hint=account.key_hint,
            created_at=account.created_at,
            updated_at=account.updated_at,
        )


@structures_into(ProfilePatch)
@attrs.frozen
class AccountUpdate:
    """Any subset of the fields; fields left out keep their value. A new `timezone` keeps the
    working hours' wall-clock times (they are then read in the new zone). A `locale` is stored in
    canonical case (`en-us` becomes `en-US`)."""

    name: Name | Unset = UNSET
    timezone: Timezone | Unset = UNSET
    locale: Locale | Unset = UNSET


@attrs.frozen
class BillingCycle:
    """Monthly from the workspace's creation (or its client record's anchor); `end` is the next boundary."""

    start: datetime
    end: datetime


@attrs.frozen
class PendingPlan:
    """A plan change waiting for the next cycle boundary."""

    plan: str
    starts_at: datetime


@attrs.frozen
class Subscription:
    """The plan in force, its use against each limit, and the billing cycle. `usage` counts what
    the limits count: stored contacts, team members, channel settings and media files, and the
    outbound messages of the current calendar month (UTC)."""

    plan: Plan
    usage: PlanLimits
    remaining: PlanLimits
    cycle: BillingCycle
    pending_change: PendingPlan | None

    @classmethod
    def from_domain(cls, subscription: AccountSubscription) -> Subscription:
        # The wire nests the cycle and the pending change, and computes what remains of each limit.
        plan = subscription.plan
        names = attrs.fields_dict(PlanLimits)
        pending = None
        if subscription.pending_plan is not None and subscription.pending_from is not None:
            pending = PendingPlan(subscription.pending_plan, subscription.pending_from)
        return cls(
            plan=Plan.from_domain(plan),
            usage=PlanLimits(**{name: subscription.usage[name] for name in names}),
            remaining=PlanLimits(**{name: max(0, plan.limit(name) - subscription.usage[name]) for name in names}),
            cycle=BillingCycle(subscription.cycle_start, subscription.cycle_end),
            pending_change=pending,
        )


__all__ = ["Account", "AccountUpdate", "BillingCycle", "Locale", "PendingPlan", "Subscription"]
