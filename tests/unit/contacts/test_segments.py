"""The segment rule language: parsing (`parse_rules`) and the reference semantics (`rules_match`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_core.contacts.segments import (
    MAX_CONDITIONS,
    MAX_VALUES,
    OPERATORS,
    Condition,
    SegmentRules,
    condition_holds,
    is_member,
    parse_rules,
    rules_match,
)
from engage_core.kernel.errors import ValidationFailed

from ..factories import START, contact_entity

GOOD_VALUES: dict[tuple[str, str], Any] = {
    ("type", "eq"): "whatsapp",
    ("type", "neq"): "telegram",
    ("type", "in"): ["whatsapp", "instagram"],
    ("type", "not_in"): ["telegram"],
    ("status", "eq"): "active",
    ("status", "neq"): "inactive",
    ("blacklisted", "eq"): True,
    ("tag", "has"): "VIP",
    ("tag", "not_has"): "churned",
    ("created_at", "before"): "2026-01-01T00:00:00Z",
    ("created_at", "after"): "2025-06-01T10:00:00.123456+02:00",
    ("created_at", "within_days"): 7,
    ("created_at", "older_than_days"): 36500,
    ("last_message_at", "before"): "2026-01-01",
    ("last_message_at", "after"): "2026-01-01T00:00:00",
    ("last_message_at", "within_days"): 1,
    ("last_message_at", "older_than_days"): 30,
    ("last_message_at", "is_empty"): None,
    ("last_message_at", "is_not_empty"): None,
    ("name", "contains"): "ada",
    ("email", "contains"): "@example.com",
    ("email", "is_empty"): None,
    ("email", "is_not_empty"): None,
    ("phone", "contains"): "+966",
    ("phone", "is_empty"): None,
    ("phone", "is_not_empty"): None,
}
"""One acceptable value for every field and operator of OPERATORS."""

BAD_VALUES: list[tuple[str, str, Any]] = [
    ("type", "eq", "sms"),
    ("type", "eq", ["whatsapp"]),
    ("type", "neq", None),
    ("type", "in", []),
    ("type", "in", ["whatsapp", "sms"]),
    ("type", "not_in", "telegram"),
    ("status", "eq", "deleted"),
    ("status", "neq", True),
    ("blacklisted", "eq", "true"),
    ("blacklisted", "eq", 1),
    ("blacklisted", "eq", None),
    ("tag", "has", ""),
    ("tag", "not_has", "   "),
    ("tag", "has", 5),
    ("created_at", "before", "yesterday"),
    ("created_at", "after", 1767225600),
    ("created_at", "before", None),
    ("created_at", "within_days", 0),
    ("created_at", "within_days", -1),
    ("created_at", "older_than_days", 36501),
    ("created_at", "within_days", True),
    ("created_at", "within_days", "7"),
    ("last_message_at", "older_than_days", 1.5),
    ("last_message_at", "after", "2026-13-01"),
    ("name", "contains", ""),
    ("name", "contains", None),
    ("name", "contains", "x" * 256),
    ("email", "contains", ["a"]),
    ("phone", "contains", "  "),
]


def rules(match: str, *conditions: Condition) -> SegmentRules:
    return SegmentRules(match=match, conditions=conditions)


def errors_of(match: str, raw: list[Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        parse_rules(match, raw)
    return caught.value.errors


# -- parse_rules: good input --------------------------------------------------------------------


def test_good_values_cover_every_field_and_operator() -> None:
    """This test table names every (field, operator) pair the language has, and no other."""
    assert set(GOOD_VALUES) == {(field, op) for field, ops in OPERATORS.items() for op in ops}


@pytest.mark.parametrize(("field", "operator"), list(GOOD_VALUES))
def test_parse_accepts_every_field_and_operator(field: str, operator: str) -> None:
    """Each field/operator pair with a good value parses into one condition on that field and operator."""
    parsed = parse_rules("all", [{"field": field, "operator": operator, "value": GOOD_VALUES[field, operator]}])
    assert [(c.field, c.operator) for c in parsed.conditions] == [(field, operator)]


@pytest.mark.parametrize(("field", "operator"), list(GOOD_VALUES))
def test_parsed_rules_round_trip_through_json(field: str, operator: str) -> None:
    """`Condition.to_json` gives back input that parses to the same condition."""
    parsed = parse_rules("any", [{"field": field, "operator": operator, "value": GOOD_VALUES[field, operator]}])
    assert parse_rules("any", [c.to_json() for c in parsed.conditions]) == parsed


@pytest.mark.parametrize("match", ["all", "any"])
def test_parse_accepts_both_match_modes(match: str) -> None:
    """`all` and `any` are the match modes."""
    assert parse_rules(match, []).match == match


def test_parse_accepts_no_conditions() -> None:
    """A segment may have no conditions (a purely manual segment)."""
    assert parse_rules("all", []).conditions == ()


def test_parse_accepts_the_maximum_number_of_conditions() -> None:
    """Exactly MAX_CONDITIONS conditions are accepted."""
    raw = [{"field": "name", "operator": "contains", "value": "a"}] * MAX_CONDITIONS
    assert len(parse_rules("all", raw).conditions) == MAX_CONDITIONS


def test_parse_types_timestamps_as_utc_datetimes() -> None:
    """`before`/`after` values become aware UTC datetimes."""
    parsed = parse_rules("all", [{"field": "created_at", "operator": "after", "value": "2026-01-01T14:00:00+02:00"}])
    assert parsed.conditions[0].value == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def test_parse_types_in_lists_as_deduplicated_tuples() -> None:
    """An `in` list becomes a tuple with duplicates dropped, order kept."""
    raw = [{"field": "type", "operator": "in", "value": ["telegram", "whatsapp", "telegram"]}]
    assert parse_rules("all", raw).conditions[0].value == ("telegram", "whatsapp")


def test_parse_trims_text_values() -> None:
    """Text values are trimmed."""
    raw = [{"field": "name", "operator": "contains", "value": "  ada "}]
    assert parse_rules("all", raw).conditions[0].value == "ada"


def test_parse_ignores_the_value_of_emptiness_operators() -> None:
    """`is_empty` and `is_not_empty` take no value; any value given is dropped."""
    raw = [{"field": "email", "operator": "is_empty", "value": "ignored"}]
    assert parse_rules("all", raw).conditions[0].value is None


def test_parse_keeps_day_counts_as_integers() -> None:
    """`within_days` keeps its whole number of days."""
    raw = [{"field": "created_at", "operator": "within_days", "value": 7}]
    assert parse_rules("all", raw).conditions[0].value == 7


# -- parse_rules: bad input ---------------------------------------------------------------------


@pytest.mark.parametrize(("field", "operator", "value"), BAD_VALUES)
def test_parse_names_the_exact_path_of_a_bad_value(field: str, operator: str, value: Any) -> None:
    """A bad value in the third condition is reported on `conditions.2.value`, and only there."""
    raw = [
        {"field": "name", "operator": "contains", "value": "a"},
        {"field": "email", "operator": "is_empty"},
        {"field": field, "operator": operator, "value": value},
    ]
    assert list(errors_of("all", raw)) == ["conditions.2.value"]


@pytest.mark.parametrize("field", [None, "", "age", "Name", 3])
def test_parse_rejects_unknown_fields(field: Any) -> None:
    """An unknown or missing field is reported on `conditions.N.field`."""
    assert list(errors_of("all", [{"field": field, "operator": "eq", "value": "x"}])) == ["conditions.0.field"]


def test_parse_rejects_a_missing_field_key() -> None:
    """A condition without `field` is reported on `conditions.0.field`."""
    assert list(errors_of("all", [{"operator": "eq", "value": "x"}])) == ["conditions.0.field"]


@pytest.mark.parametrize(("field", "operator"), [("type", "contains"), ("name", "eq"), ("blacklisted", "neq")])
def test_parse_rejects_operators_the_field_does_not_take(field: str, operator: str) -> None:
    """An operator outside the field's set is reported on `conditions.N.operator`."""
    raw = [{"field": field, "operator": operator, "value": "x"}]
    assert list(errors_of("all", raw)) == ["conditions.0.operator"]


def test_parse_operator_message_lists_the_allowed_operators() -> None:
    """The operator message names the operators the field takes."""
    raw = [{"field": "status", "operator": "in", "value": ["active"]}]
    assert errors_of("all", raw) == {"conditions.0.operator": ["The operator for status must be one of: eq, neq."]}


@pytest.mark.parametrize("match", ["", "ALL", "most", None])
def test_parse_rejects_unknown_match_modes(match: Any) -> None:
    """A match other than `all`/`any` is reported on `match`."""
    assert list(errors_of(match, [])) == ["match"]


def test_parse_rejects_too_many_conditions() -> None:
    """More than MAX_CONDITIONS conditions are reported on `conditions`."""
    raw = [{"field": "name", "operator": "contains", "value": "a"}] * (MAX_CONDITIONS + 1)
    assert list(errors_of("all", raw)) == ["conditions"]


def test_parse_rejects_a_value_list_over_its_limit() -> None:
    """An `in` condition listing more than MAX_VALUES values is reported on its `value`."""
    raw = [{"field": "type", "operator": "in", "value": ["instagram"] * (MAX_VALUES + 1)}]
    assert list(errors_of("all", raw)) == ["conditions.0.value"]


def test_parse_reports_every_bad_path_at_once() -> None:
    """A bad match and several bad conditions are all reported in one error."""
    raw = [
        {"field": "nope", "operator": "eq"},
        {"field": "name", "operator": "contains", "value": "ok"},
        {"field": "type", "operator": "like", "value": "x"},
        {"field": "created_at", "operator": "within_days", "value": 0},
    ]
    assert set(errors_of("some", raw)) == {"match", "conditions.0.field", "conditions.2.operator", "conditions.3.value"}


def test_parse_rejects_conditions_that_are_not_objects() -> None:
    """A condition that is not an object is a validation failure, not a crash."""
    with pytest.raises(ValidationFailed):
        parse_rules("all", [1])  # type: ignore[list-item]


# -- condition_holds: one operator at a time ----------------------------------------------------

DAY = timedelta(days=1)

SEMANTICS: list[tuple[Condition, dict[str, Any], bool]] = [
    (Condition("type", "eq", "whatsapp"), {"type": "whatsapp"}, True),
    (Condition("type", "eq", "whatsapp"), {"type": "telegram"}, False),
    (Condition("type", "neq", "whatsapp"), {"type": "telegram"}, True),
    (Condition("type", "neq", "whatsapp"), {"type": "whatsapp"}, False),
    (Condition("type", "in", ("whatsapp", "telegram")), {"type": "telegram"}, True),
    (Condition("type", "in", ("whatsapp", "telegram")), {"type": "instagram"}, False),
    (Condition("type", "not_in", ("whatsapp",)), {"type": "instagram"}, True),
    (Condition("type", "not_in", ("whatsapp",)), {"type": "whatsapp"}, False),
    (Condition("status", "eq", "inactive"), {"status": "inactive"}, True),
    (Condition("status", "eq", "inactive"), {"status": "active"}, False),
    (Condition("status", "neq", "inactive"), {"status": "active"}, True),
    (Condition("blacklisted", "eq", True), {"blacklisted": True}, True),
    (Condition("blacklisted", "eq", True), {"blacklisted": False}, False),
    (Condition("blacklisted", "eq", False), {"blacklisted": False}, True),
    (Condition("tag", "has", "VIP"), {"tags": ("lead", "vip")}, True),
    (Condition("tag", "has", "vip"), {"tags": ("lead",)}, False),
    (Condition("tag", "not_has", "vip"), {"tags": ("lead",)}, True),
    (Condition("tag", "not_has", "vip"), {"tags": ("VIP",)}, False),
    (Condition("name", "contains", "LOVE"), {"name": "Ada Lovelace"}, True),
    (Condition("name", "contains", "grace"), {"name": "Ada Lovelace"}, False),
    (Condition("email", "contains", "@EXAMPLE"), {"email": "ada@example.com"}, True),
    (Condition("email", "contains", "ada"), {"email": None}, False),
    (Condition("email", "is_empty"), {"email": None}, True),
    (Condition("email", "is_empty"), {"email": ""}, True),
    (Condition("email", "is_empty"), {"email": "a@b.co"}, False),
    (Condition("email", "is_not_empty"), {"email": "a@b.co"}, True),
    (Condition("email", "is_not_empty"), {"email": None}, False),
    (Condition("phone", "contains", "+9665"), {"phone": "+966501234567"}, True),
    (Condition("phone", "is_empty"), {"phone": None}, True),
    (Condition("phone", "is_not_empty"), {"phone": None}, False),
    (Condition("created_at", "before", START), {"created_at": START - DAY}, True),
    (Condition("created_at", "before", START), {"created_at": START}, False),
    (Condition("created_at", "after", START), {"created_at": START}, True),
    (Condition("created_at", "after", START), {"created_at": START - DAY}, False),
    (Condition("created_at", "within_days", 7), {"created_at": START - 6 * DAY}, True),
    (Condition("created_at", "within_days", 7), {"created_at": START - 7 * DAY}, True),
    (Condition("created_at", "within_days", 7), {"created_at": START - 8 * DAY}, False),
    (Condition("created_at", "older_than_days", 7), {"created_at": START - 8 * DAY}, True),
    (Condition("created_at", "older_than_days", 7), {"created_at": START - 7 * DAY}, False),
    (Condition("last_message_at", "within_days", 1), {"last_message_at": START - timedelta(hours=1)}, True),
    (Condition("last_message_at", "within_days", 1), {"last_message_at": None}, False),
    (Condition("last_message_at", "older_than_days", 1), {"last_message_at": None}, False),
    (Condition("last_message_at", "before", START), {"last_message_at": None}, False),
    (Condition("last_message_at", "after", START), {"last_message_at": None}, False),
    (Condition("last_message_at", "is_empty"), {"last_message_at": None}, True),
    (Condition("last_message_at", "is_not_empty"), {"last_message_at": START}, True),
]


@pytest.mark.parametrize(("condition", "fields", "expected"), SEMANTICS)
def test_condition_semantics(condition: Condition, fields: dict[str, Any], expected: bool) -> None:
    """Each operator holds exactly when its documented meaning says (time bounds: `after`/`within` inclusive)."""
    assert condition_holds(condition, contact_entity(**fields), START) is expected


def test_semantics_table_exercises_every_operator() -> None:
    """The semantics table above tests every (field, operator) pair."""
    assert {(c.field, c.operator) for c, _, _ in SEMANTICS} == set(GOOD_VALUES)


moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))


@given(created=moments, now=moments, days=st.integers(1, 36500))
def test_within_and_older_than_partition_contacts(created: datetime, now: datetime, days: int) -> None:
    """For any N, a contact is either within the last N days or older than N days, never both."""
    contact = contact_entity(created_at=created)
    within = condition_holds(Condition("created_at", "within_days", days), contact, now)
    older = condition_holds(Condition("created_at", "older_than_days", days), contact, now)
    assert within != older


@given(created=moments, bound=moments)
def test_before_and_after_partition_contacts(created: datetime, bound: datetime) -> None:
    """For any instant, a contact was created either before it or (at or) after it."""
    contact = contact_entity(created_at=created)
    before = condition_holds(Condition("created_at", "before", bound), contact, START)
    after = condition_holds(Condition("created_at", "after", bound), contact, START)
    assert before != after


def test_within_days_is_relative_to_now() -> None:
    """`within_days` compares against the `now` it is given, so the same contact drops out as time passes."""
    condition = Condition("created_at", "within_days", 7)
    contact = contact_entity(created_at=START)
    assert condition_holds(condition, contact, START + 7 * DAY)
    assert not condition_holds(condition, contact, START + 8 * DAY)


# -- rules_match and is_member ------------------------------------------------------------------

IS_WHATSAPP = Condition("type", "eq", "whatsapp")
IS_VIP = Condition("tag", "has", "vip")


def test_no_conditions_select_nobody() -> None:
    """A segment without conditions matches no contact by rule, in either mode."""
    assert not rules_match(rules("all"), contact_entity(), START)
    assert not rules_match(rules("any"), contact_entity(), START)


def test_all_needs_every_condition() -> None:
    """`all` fails when one condition fails."""
    assert not rules_match(rules("all", IS_WHATSAPP, IS_VIP), contact_entity(tags=()), START)


def test_all_matches_when_every_condition_holds() -> None:
    """`all` matches when every condition holds."""
    assert rules_match(rules("all", IS_WHATSAPP, IS_VIP), contact_entity(tags=("VIP",)), START)


def test_any_needs_one_condition() -> None:
    """`any` matches when at least one condition holds."""
    assert rules_match(rules("any", IS_WHATSAPP, IS_VIP), contact_entity(tags=()), START)


def test_any_fails_when_no_condition_holds() -> None:
    """`any` fails when no condition holds."""
    assert not rules_match(rules("any", IS_WHATSAPP, IS_VIP), contact_entity(type="telegram"), START)


def test_member_by_rule() -> None:
    """A contact the rules match is a member."""
    assert is_member(rules("all", IS_WHATSAPP), contact_entity(), START, included=False, excluded=False)


def test_manual_include_overrides_rules() -> None:
    """A contact added by hand is a member even if the rules do not match it."""
    contact = contact_entity(type="telegram")
    assert is_member(rules("all", IS_WHATSAPP), contact, START, included=True, excluded=False)


def test_manual_include_works_without_rules() -> None:
    """A purely manual segment has the contacts added by hand."""
    assert is_member(rules("all"), contact_entity(), START, included=True, excluded=False)


def test_manual_exclude_overrides_rules() -> None:
    """A contact removed by hand is not a member even if the rules match it."""
    assert not is_member(rules("all", IS_WHATSAPP), contact_entity(), START, included=False, excluded=True)


def test_exclude_wins_over_include() -> None:
    """If a contact were both added and removed by hand, removal wins."""
    assert not is_member(rules("all"), contact_entity(), START, included=True, excluded=True)


def test_not_member_without_rule_match_or_include() -> None:
    """A contact neither matched nor added is not a member."""
    contact = contact_entity(type="telegram")
    assert not is_member(rules("all", IS_WHATSAPP), contact, START, included=False, excluded=False)
