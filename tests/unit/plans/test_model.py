"""Plans: the seeded features and limits, the errors they raise, the billing cycle, deferred plan
changes, and editing a plan (`engage_core.plans`, `PlanService`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from engage_core.kernel.errors import FeatureUnavailable, NotFound, PlanLimitReached, ValidationFailed
from engage_core.plans.model import (
    FEATURES,
    LIMITS,
    PLAN_SLUGS,
    SEED_PLANS,
    Plan,
    ScheduledPlan,
    add_months,
    cycle_of,
    month_of,
    parse_period,
)
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services

JAN_31 = datetime(2026, 1, 31, 9, 30, tzinfo=UTC)


def seed(slug: str) -> Plan:
    return next(plan for plan in SEED_PLANS if plan.slug == slug)


def test_the_seeds_are_the_three_spec_plans() -> None:
    """starter, pro and business, in that order (SPEC 2 Plan)."""
    assert [plan.slug for plan in SEED_PLANS] == list(PLAN_SLUGS) == ["starter", "pro", "business"]


def test_every_seed_has_an_integer_for_every_limit() -> None:
    """contacts, messages_per_month, team_members and channels are set on every plan."""
    for plan in SEED_PLANS:
        assert set(plan.limits) == set(LIMITS)
        assert all(isinstance(value, int) and value > 0 for value in plan.limits.values())


def test_limits_grow_from_plan_to_plan() -> None:
    """Each plan allows at least as much as the one below it, for every limit."""
    starter, pro, business = SEED_PLANS
    for limit in LIMITS:
        assert starter.limit(limit) <= pro.limit(limit) <= business.limit(limit)


def test_business_has_every_feature() -> None:
    """The business plan (the default of workspaces without a partner) has every feature."""
    assert seed("business").feature_flags() == dict.fromkeys(FEATURES, True)


def test_feature_flags_name_every_feature() -> None:
    """The API's features object has a boolean for every feature, enabled or not."""
    assert seed("starter").feature_flags() == {
        "webhooks": False,
        "api_access": True,
        "booking": True,
        "ai_agents": False,
        "campaigns": False,
        "linkedin_access": False,
        "voice_cloning_enabled": False,
    }


def test_a_missing_feature_is_403_feature_not_in_plan() -> None:
    """require() of a feature the plan lacks raises FeatureUnavailable with code feature_not_in_plan."""
    with pytest.raises(FeatureUnavailable) as caught:
        seed("starter").require("webhooks")
    assert (caught.value.code, caught.value.feature) == ("feature_not_in_plan", "webhooks")


def test_missing_linkedin_access_has_the_spec_code() -> None:
    """Without linkedin_access the code is linkedin_upgrade_required (SPEC 5 item 7)."""
    with pytest.raises(FeatureUnavailable) as caught:
        seed("pro").require("linkedin_access")
    assert caught.value.code == "linkedin_upgrade_required"


def test_room_up_to_the_limit_is_allowed() -> None:
    """check_room passes while used + amount stays within the limit."""
    seed("starter").check_room("team_members", 1)


def test_passing_a_limit_names_it() -> None:
    """check_room past the limit raises PlanLimitReached naming the limit and its maximum."""
    with pytest.raises(PlanLimitReached) as caught:
        seed("starter").check_room("team_members", 2)
    assert (caught.value.limit, caught.value.maximum, caught.value.code) == ("team_members", 2, "plan_limit_reached")


def test_add_months_clamps_to_the_month_length() -> None:
    """31 January plus one month is 28 February; plus two is 31 March (from the anchor, not chained)."""
    assert add_months(JAN_31, 1) == datetime(2026, 2, 28, 9, 30, tzinfo=UTC)
    assert add_months(JAN_31, 2) == datetime(2026, 3, 31, 9, 30, tzinfo=UTC)


def test_add_months_crosses_years() -> None:
    """Eleven months after 31 January is 31 December; twelve is 31 January of the next year."""
    assert add_months(JAN_31, 11) == datetime(2026, 12, 31, 9, 30, tzinfo=UTC)
    assert add_months(JAN_31, 12) == datetime(2027, 1, 31, 9, 30, tzinfo=UTC)


def test_the_cycle_contains_now() -> None:
    """The cycle of a moment in mid-March, anchored 31 January, is 28 February to 31 March."""
    start, end = cycle_of(JAN_31, datetime(2026, 3, 15, tzinfo=UTC))
    assert (start, end) == (datetime(2026, 2, 28, 9, 30, tzinfo=UTC), datetime(2026, 3, 31, 9, 30, tzinfo=UTC))


def test_a_boundary_starts_the_next_cycle() -> None:
    """At the boundary instant the new cycle has begun."""
    boundary = datetime(2026, 2, 28, 9, 30, tzinfo=UTC)
    assert cycle_of(JAN_31, boundary)[0] == boundary


def test_before_the_boundary_hour_is_still_the_old_cycle() -> None:
    """Earlier on the boundary day, the previous cycle still runs."""
    assert cycle_of(JAN_31, datetime(2026, 2, 28, 9, 0, tzinfo=UTC))[0] == JAN_31


def test_month_of_is_the_calendar_month() -> None:
    """month_of gives the first of the month to the first of the next, UTC."""
    assert month_of(datetime(2026, 12, 20, tzinfo=UTC)) == (
        datetime(2026, 12, 1, tzinfo=UTC),
        datetime(2027, 1, 1, tzinfo=UTC),
    )


@pytest.mark.parametrize("text", ["2026-13", "2026-00", "26-01", "2026/01", "2026-1", "abcd-ef", ""])
def test_a_malformed_period_is_refused(text: str) -> None:
    """Only YYYY-MM with a month from 01 to 12 is a period."""
    with pytest.raises(ValueError, match="period"):
        parse_period(text)


def test_a_period_is_its_calendar_month() -> None:
    """2026-02 is February 2026."""
    assert parse_period("2026-02") == (datetime(2026, 2, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC))


def test_an_immediate_change_applies_now() -> None:
    """change(immediate=True) puts the new plan in force at once, with nothing pending."""
    schedule = ScheduledPlan("starter", JAN_31).change("pro", True, JAN_31 + timedelta(days=3))
    assert (schedule.plan_at(JAN_31 + timedelta(days=3)), schedule.pending_plan) == ("pro", None)


def test_a_deferred_change_waits_for_the_boundary() -> None:
    """Without immediate, the old plan stays until the next boundary and the new one from then on."""
    schedule = ScheduledPlan("starter", JAN_31).change("pro", False, datetime(2026, 2, 10, tzinfo=UTC))
    boundary = datetime(2026, 2, 28, 9, 30, tzinfo=UTC)
    assert schedule.pending_from == boundary
    assert schedule.plan_at(boundary - timedelta(microseconds=1)) == "starter"
    assert schedule.plan_at(boundary) == "pro"


def test_settling_applies_a_passed_change() -> None:
    """settled() after the boundary makes the pending plan the plan."""
    schedule = ScheduledPlan("starter", JAN_31).change("pro", False, datetime(2026, 2, 10, tzinfo=UTC))
    assert schedule.settled(datetime(2026, 3, 1, tzinfo=UTC)) == ScheduledPlan("pro", JAN_31)


def test_asking_for_the_current_plan_cancels_a_pending_change() -> None:
    """A deferred change back to the plan in force drops the pending one."""
    moment = datetime(2026, 2, 10, tzinfo=UTC)
    schedule = ScheduledPlan("starter", JAN_31).change("pro", False, moment).change("starter", False, moment)
    assert schedule == ScheduledPlan("starter", JAN_31)


def test_plans_are_listed_from_storage(services: Services) -> None:
    """PlanService.list returns the seeded plans in id order."""
    assert [plan.slug for plan in services.plans.list()] == ["starter", "pro", "business"]


def test_a_plan_edit_changes_only_what_it_names(services: Services) -> None:
    """Updating one limit and one feature keeps every other value."""
    services.plans.update("starter", PlanPatch(limits={"contacts": 5}, features={"webhooks": True}))
    plan = services.plans.get("starter")
    assert plan.limits == {**seed("starter").limits, "contacts": 5}
    assert plan.features == seed("starter").features | {"webhooks"}


def test_a_plan_edit_can_switch_a_feature_off(services: Services) -> None:
    """features={"booking": False} removes booking from the plan."""
    services.plans.update("pro", PlanPatch(features={"booking": False}))
    assert not services.plans.get("pro").has("booking")


@pytest.mark.parametrize(
    "patch",
    [
        PlanPatch(limits={"contacts": -1}),
        PlanPatch(limits={"seats": 3}),
        PlanPatch(features={"teleportation": True}),
        PlanPatch(name=" "),
    ],
)
def test_a_bad_plan_edit_is_422(services: Services, patch: PlanPatch) -> None:
    """Negative or unknown limits, unknown features and a blank name are refused."""
    with pytest.raises(ValidationFailed):
        services.plans.update("pro", patch)


def test_an_unknown_plan_is_404(services: Services) -> None:
    """Editing a plan that does not exist is NotFound."""
    with pytest.raises(NotFound):
        services.plans.update("gold", PlanPatch(name="Gold"))
