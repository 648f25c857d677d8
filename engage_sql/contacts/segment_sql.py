"""The segment rule language (`engage_core.contacts.segments`) compiled to SQL over `contacts`.

`membership()` selects exactly the contacts `engage_core.contacts.segments.is_member` selects (a property
test holds the two together on both databases). Every condition compiles to an expression that
is never negated as a whole, so where SQL says NULL (a comparison with a missing value) it acts
as false, just as the Python reference returns False for a missing value.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, FromClause, and_, false, or_

from engage_core.contacts.segments import Condition, SegmentRules, time_bound
from engage_core.contacts.tags import title_key
from engage_sql.contacts.contacts import has_tag
from engage_sql.contacts.tables import contacts, segment_overrides
from engage_sql.text import fold

_COLUMNS = {
    "type": contacts.c.type,
    "status": contacts.c.status,
    "blacklisted": contacts.c.blacklisted,
    "created_at": contacts.c.created_at,
    "last_message_at": contacts.c.last_message_at,
    "name": contacts.c.name,
    "email": contacts.c.email,
    "phone": contacts.c.phone,
}
# `contains` compares casefolded text; phone numbers (E.164) have no case.
_FOLDED = {"name": contacts.c.name_key, "email": contacts.c.email_key, "phone": contacts.c.phone}
_TEXT_FIELDS = frozenset({"name", "email", "phone"})


def contacts_with_overrides(segment_id: int) -> FromClause:
    """`contacts LEFT JOIN segment_overrides`: each contact with its manual override in this segment, if any."""
    return contacts.outerjoin(
        segment_overrides,
        and_(segment_overrides.c.segment_id == segment_id, segment_overrides.c.contact_id == contacts.c.id),
    )


def membership(rules: SegmentRules, now: datetime) -> ColumnElement[bool]:
    """Member: added by hand, or matched by the rules and not removed by hand.

    To be used over `contacts_with_overrides()`.
    """
    included = segment_overrides.c.included
    return or_(included.is_(True), and_(included.is_(None), rules_clause(rules, now)))


def rules_clause(rules: SegmentRules, now: datetime) -> ColumnElement[bool]:
    """Whether the rules select a contact. No conditions selects nobody (a manual segment)."""
    if not rules.conditions:
        return false()
    clauses = [condition_clause(condition, now) for condition in rules.conditions]
    return and_(*clauses) if rules.match == "all" else or_(*clauses)


def condition_clause(condition: Condition, now: datetime) -> ColumnElement[bool]:
    """One condition, as `engage_core.contacts.segments.condition_holds` evaluates it."""
    field, op, value = condition.field, condition.operator, condition.value
    if field == "tag":
        assert isinstance(value, str)
        return has_tag(title_key(value)) if op == "has" else ~has_tag(title_key(value))
    column = _COLUMNS[field]
    if op == "eq":
        return column == value
    if op == "neq":
        return column != value  # only on NOT NULL columns (type, status)
    if op in ("in", "not_in"):
        assert isinstance(value, tuple)
        return column.in_(value) if op == "in" else column.not_in(value)
    if op in ("is_empty", "is_not_empty"):
        empty = or_(column.is_(None), column == "") if field in _TEXT_FIELDS else column.is_(None)
        present = and_(column.is_not(None), column != "") if field in _TEXT_FIELDS else column.is_not(None)
        return empty if op == "is_empty" else present
    if op == "contains":
        assert isinstance(value, str)
        return _FOLDED[field].contains(fold(value), autoescape=True)
    if op in ("before", "older_than_days"):
        return column < time_bound(condition, now)
    if op in ("after", "within_days"):
        return column >= time_bound(condition, now)
    raise ValueError(f"no SQL for {field} {op}")
