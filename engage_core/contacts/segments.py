"""Segments: saved rule sets over contacts, evaluated when read.

A segment's members are the contacts its rules match, plus contacts added by hand
(`POST /contacts/{id}/segments`), minus contacts removed by hand. A segment without conditions
is purely manual. `match` is `all` (every condition holds) or `any` (at least one holds).

The rules are plain data here; `matches()` evaluates them in Python (the in-memory store uses it,
and it is the reference the SQL compilation is property-tested against).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import attrs

from engage_core.contacts.model import CONTACT_STATUSES, CONTACT_TYPES, Contact
from engage_core.contacts.tags import TITLE_MAX, title_key
from engage_core.kernel.clock import format_timestamp, parse_timestamp
from engage_core.kernel.errors import ValidationFailed

NAME_MAX = 255
MAX_CONDITIONS = 50
MAX_VALUES = 20
"""Values one `in`/`not_in` condition may list."""
MATCH_MODES = ("all", "any")

_TIME_OPS = ("before", "after", "within_days", "older_than_days")
_TEXT_OPS = ("contains", "is_empty", "is_not_empty")
OPERATORS: Mapping[str, tuple[str, ...]] = {
    "type": ("eq", "neq", "in", "not_in"),
    "status": ("eq", "neq"),
    "blacklisted": ("eq",),
    "tag": ("has", "not_has"),
    "created_at": _TIME_OPS,
    "last_message_at": (*_TIME_OPS, "is_empty", "is_not_empty"),
    "name": ("contains",),
    "email": _TEXT_OPS,
    "phone": _TEXT_OPS,
}
"""Every field a condition can test, and the operators each accepts."""

NO_VALUE_OPS = frozenset({"is_empty", "is_not_empty"})


@attrs.frozen
class Condition:
    """One test on one contact field. `value` is already typed: str, bool, int, datetime or tuple."""

    field: str
    operator: str
    value: str | bool | int | datetime | tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        value: Any = self.value
        if isinstance(value, datetime):
            value = format_timestamp(value)
        elif isinstance(value, tuple):
            value = list(value)
        return {"field": self.field, "operator": self.operator, "value": value}


@attrs.frozen
class Segment:
    id: int
    name: str
    description: str | None
    match: str
    conditions: tuple[Condition, ...]
    contacts_count: int | None
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class SegmentRules:
    """The rule part of a segment, validated."""

    match: str
    conditions: tuple[Condition, ...]


def parse_rules(match: str, raw_conditions: Sequence[Mapping[str, Any]]) -> SegmentRules:
    """Validate raw conditions (from JSON) into typed ones. Raises ValidationFailed naming each bad path."""
    errors: dict[str, list[str]] = {}
    if match not in MATCH_MODES:
        errors["match"] = ["The match must be one of: all, any."]
    if len(raw_conditions) > MAX_CONDITIONS:
        errors["conditions"] = [f"A segment may have at most {MAX_CONDITIONS} conditions."]
    parsed: list[Condition] = []
    for index, raw in enumerate(raw_conditions):
        path = f"conditions.{index}"
        if not isinstance(raw, Mapping):
            errors.setdefault(path, []).append("Each condition must be an object with field, operator and value.")
            continue
        try:
            parsed.append(_parse_condition(raw))
        except _ConditionError as exc:
            errors.setdefault(f"{path}.{exc.part}", []).append(exc.message)
    if errors:
        raise ValidationFailed(errors)
    return SegmentRules(match=match, conditions=tuple(parsed))


class _ConditionError(Exception):
    def __init__(self, part: str, message: str) -> None:
        super().__init__(message)
        self.part = part
        self.message = message


def _parse_condition(raw: Mapping[str, Any]) -> Condition:
    field = raw.get("field")
    if not isinstance(field, str) or field not in OPERATORS:
        raise _ConditionError("field", "The field must be one of: " + ", ".join(OPERATORS) + ".")
    operator = raw.get("operator")
    allowed = OPERATORS[field]
    if not isinstance(operator, str) or operator not in allowed:
        raise _ConditionError("operator", f"The operator for {field} must be one of: " + ", ".join(allowed) + ".")
    value = raw.get("value")
    if operator in NO_VALUE_OPS:
        return Condition(field, operator, None)
    return Condition(field, operator, _parse_value(field, operator, value))


def _parse_value(field: str, operator: str, value: Any) -> str | bool | int | datetime | tuple[str, ...]:
    if field == "type":
        if operator in ("in", "not_in"):
            if isinstance(value, list) and len(value) > MAX_VALUES:
                raise _ConditionError("value", f"The value may not have more than {MAX_VALUES} items.")
            if not isinstance(value, list) or not value or not all(v in CONTACT_TYPES for v in value):
                raise _ConditionError(
                    "value", "The value must be a non-empty list of: " + ", ".join(CONTACT_TYPES) + "."
                )
            return tuple(dict.fromkeys(value))
        return _choice(value, CONTACT_TYPES)
    if field == "status":
        return _choice(value, CONTACT_STATUSES)
    if field == "blacklisted":
        if not isinstance(value, bool):
            raise _ConditionError("value", "The value must be true or false.")
        return value
    if operator in ("within_days", "older_than_days"):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= 36500:
            raise _ConditionError("value", "The value must be a whole number of days between 1 and 36500.")
        return value
    if operator in ("before", "after"):
        if not isinstance(value, str):
            raise _ConditionError("value", "The value must be an ISO 8601 timestamp.")
        try:
            return parse_timestamp(value)
        except ValueError as exc:
            raise _ConditionError("value", "The value must be an ISO 8601 timestamp.") from exc
    if not isinstance(value, str) or not value.strip():
        raise _ConditionError("value", "The value must be a non-empty string.")
    limit = TITLE_MAX if field == "tag" else 255
    if len(value) > limit:  # as given, as the published maxLength counts it
        raise _ConditionError("value", f"The value may not be greater than {limit} characters.")
    return value.strip()


def _choice(value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise _ConditionError("value", "The value must be one of: " + ", ".join(choices) + ".")
    return str(value)


def retitle(rules: SegmentRules, old_title: str, new_title: str) -> SegmentRules | None:
    """The rules with tag conditions on `old_title` pointing at `new_title`; None when none refer to it.

    Tag conditions name tags by title, so a rename must follow them to keep the segment's meaning."""
    old = title_key(old_title)
    hits = [c.field == "tag" and isinstance(c.value, str) and title_key(c.value) == old for c in rules.conditions]
    if not any(hits):
        return None
    conditions = tuple(
        attrs.evolve(c, value=new_title) if hit else c for c, hit in zip(rules.conditions, hits, strict=True)
    )
    return SegmentRules(rules.match, conditions)


def time_bound(condition: Condition, now: datetime) -> datetime:
    """The instant a time condition compares against."""
    value = condition.value
    if isinstance(value, datetime):
        return value
    assert isinstance(value, int) and not isinstance(value, bool)
    return now - timedelta(days=value)


def condition_holds(condition: Condition, contact: Contact, now: datetime) -> bool:
    """Evaluate one condition on one contact (the reference semantics)."""
    op, value = condition.operator, condition.value
    if condition.field == "tag":
        assert isinstance(value, str)
        has = title_key(value) in {title_key(t) for t in contact.tags}
        return has if op == "has" else not has
    actual = getattr(contact, condition.field)
    if op == "eq":
        return bool(actual == value)
    if op == "neq":
        return bool(actual != value)
    if op == "in":
        assert isinstance(value, tuple)
        return actual in value
    if op == "not_in":
        assert isinstance(value, tuple)
        return actual not in value
    if op == "is_empty":
        return actual is None or actual == ""
    if op == "is_not_empty":
        return not (actual is None or actual == "")
    if op == "contains":
        assert isinstance(value, str)
        return actual is not None and value.casefold() in str(actual).casefold()
    bound = time_bound(condition, now)
    if actual is None:
        return False
    if op in ("before", "older_than_days"):
        return bool(actual < bound)
    return bool(actual >= bound)  # after, within_days


def rules_match(rules: SegmentRules, contact: Contact, now: datetime) -> bool:
    """Whether the rules select `contact`. No conditions selects nobody (a manual segment)."""
    if not rules.conditions:
        return False
    results = (condition_holds(c, contact, now) for c in rules.conditions)
    return all(results) if rules.match == "all" else any(results)


def is_member(rules: SegmentRules, contact: Contact, now: datetime, *, included: bool, excluded: bool) -> bool:
    """Membership: (rules match or added by hand) and not removed by hand."""
    return not excluded and (included or rules_match(rules, contact, now))
