"""Request and response bodies of the segment endpoints (our design; SPEC 4 leaves it open).

A segment is `{name, description, match, conditions}`; a condition is `{field, operator, value}` in the
rule language of `engage_core.contacts.segments`. The condition schema is generated from that language's
`OPERATORS` table, one `oneOf` branch per field and kind of value, so it lists exactly what the
core accepts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import attrs

from engage_core.contacts import segments as domain
from engage_core.contacts.model import CONTACT_STATUSES, CONTACT_TYPES
from engage_core.contacts.tags import TITLE_MAX
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import NOT_BLANK, Items, Text
from engage_http.converter import as_integer, renders
from engage_http.fields import Name

Match = Literal["all", "any"]
Description = Annotated[str, Text(max_length=1000)]

_YEAR = r"(100[1-9]|10[1-9][0-9]|1[1-9][0-9]{2}|[2-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])"
TIMESTAMP_PATTERN = (
    rf"^{_YEAR}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]"
    r"(\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$"
)
"""RFC 3339 date-time, years 1001-9998: with any offset the UTC instant still has a four-digit year (the
core's parser overflows near years 1 and 9999, and its formatter drops leading zeros of the year)."""

TIME_POINT_OPERATORS = frozenset({"before", "after"})

_TEXT = {"type": "string", "minLength": 1, "pattern": NOT_BLANK, "maxLength": 255}
_TIMESTAMP = {"type": "string", "format": "date-time", "pattern": TIMESTAMP_PATTERN}
_DAYS = {"type": "integer", "minimum": 1, "maximum": 36500}


def _value_schema(field: str, operator: str) -> dict[str, Any] | None:
    """The schema of `value` for one field and operator; None when the operator takes no value."""
    if operator in domain.NO_VALUE_OPS:
        return None
    if field == "type":
        one = {"type": "string", "enum": list(CONTACT_TYPES)}
        listed = {"type": "array", "minItems": 1, "maxItems": domain.MAX_VALUES, "items": one}
        return listed if operator in ("in", "not_in") else one
    if field == "status":
        return {"type": "string", "enum": list(CONTACT_STATUSES)}
    if field == "blacklisted":
        return {"type": "boolean"}
    if operator in TIME_POINT_OPERATORS:
        return _TIMESTAMP
    if operator in ("within_days", "older_than_days"):
        return _DAYS
    return {**_TEXT, "maxLength": TITLE_MAX} if field == "tag" else _TEXT


def condition_branches() -> list[dict[str, Any]]:
    """One schema per (field, kind of value), from the core's operator table."""
    branches: list[dict[str, Any]] = []
    for field, operators in domain.OPERATORS.items():
        groups: dict[str, tuple[dict[str, Any] | None, list[str]]] = {}
        for operator in operators:
            value = _value_schema(field, operator)
            key = repr(value)
            groups.setdefault(key, (value, []))[1].append(operator)
        for value, ops in groups.values():
            branch: dict[str, Any] = {
                "properties": {"field": {"const": field}, "operator": {"enum": ops}},
                "required": ["field", "operator"],
            }
            if value is not None:
                branch["properties"]["value"] = value
                branch["required"].append("value")
            branches.append(branch)
    return branches


@renders(domain.Condition)
@attrs.frozen
class Condition:
    """One test on a contact field: `{field, operator, value}`.

    `type`: `eq`/`neq` a type, `in`/`not_in` a list of types. `status`: `eq`/`neq`. `blacklisted`: `eq`
    true or false. `tag`: `has`/`not_has` a title. `name`, `email`, `phone`: `contains` text; `email`,
    `phone`, `last_message_at`: `is_empty`/`is_not_empty` (no value). `created_at`, `last_message_at`:
    `before`/`after` a timestamp, `within_days`/`older_than_days` a number of days.
    """

    field: str
    operator: str
    value: Any = None

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["properties"]["field"] = {"type": "string", "enum": list(domain.OPERATORS)}
        schema["oneOf"] = condition_branches()
        return schema

    def to_json(self) -> dict[str, Any]:
        """The raw condition for the core; an integral number (`30.0`) is passed on as an int."""
        value = self.value
        if type(value) is float:
            value = as_integer(value) if value.is_integer() else value
        return {"field": self.field, "operator": self.operator, "value": value}


Conditions = Annotated[tuple[Condition, ...], Items(max_items=domain.MAX_CONDITIONS)]


@attrs.frozen
class SegmentCreate:
    """A new segment. Without conditions it is purely manual (members added by hand)."""

    name: Name
    description: Description | None = None
    match: Match = attrs.field(default="all", metadata={"description": "`all` conditions or `any` of them."})
    conditions: Conditions = ()


@attrs.frozen
class SegmentUpdate:
    """Any subset of the create fields; `conditions` replaces the whole list."""

    name: Name | Unset = UNSET
    description: Description | Unset | None = UNSET
    match: Match | Unset = UNSET
    conditions: Conditions | Unset = UNSET


@renders(domain.Segment)
@attrs.frozen
class Segment:
    """A segment: saved rules evaluated when read, plus contacts added or removed by hand."""

    id: int
    name: str
    description: str | None
    match: Match
    conditions: tuple[Condition, ...]
    contacts_count: int | None
    created_at: datetime
    updated_at: datetime
