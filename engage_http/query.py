"""Query strings into attrs query classes, through the same converter as JSON bodies.

Each field of a query class is `X | None = None`, or `X | None` (or `X`) without a default for a
required parameter; `X` may be `Annotated` with the constraints of `constraints.py`, which the parser
enforces and the OpenAPI parameter publishes, required or not. A field whose name cannot be the
parameter's (`from` is a Python keyword) names it in its metadata:
`attrs.field(metadata={"query_name": "from"})`; errors then name the parameter, key and message.
The raw text is first read as the JSON value its type expects (an integer is a number without a
fractional part, a boolean is `true`, `false`, `1` or `0`), then the converter structures and checks
it exactly like a body field, so an integer query parameter and an integer body field obey the same
rules and produce the same messages. Anything else is passed on as text and rejected by the
converter (`page=abc`: "The page must be an integer.").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Generic, TypeVar, cast, get_type_hints

import attrs

from engage_http.constraints import CONSTRAINT_TYPES, Constraint
from engage_http.converter import as_integer, is_union, structure, union_members
from engage_http.jsonschema import SchemaRegistry

Q = TypeVar("Q")

_INTEGER = re.compile(r"-?[0-9]+")
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
BOOLEANS: Mapping[str, bool] = {"true": True, "false": False, "1": True, "0": False}


def _unwrap(tp: Any) -> tuple[Any, tuple[Constraint, ...]]:
    """The value type and its constraints, however the field spells them: `Annotated[int, c] | None`,
    `Annotated[int, c]` (required, no `| None`) and `Annotated[int | None, c]` all give `(int, (c,))`.
    A query parameter is never null, so `| None` only says the parameter may be left out."""
    constraints: list[Constraint] = []
    while True:
        if hasattr(tp, "__metadata__"):
            constraints += [m for m in tp.__metadata__ if isinstance(m, CONSTRAINT_TYPES)]
            tp = tp.__origin__
        elif is_union(tp) and len(members := union_members(tp)[0]) == 1:
            tp = members[0]
        else:
            return tp, tuple(constraints)


def _read(raw: str, base: Any) -> Any:
    if base is int:
        try:
            if _INTEGER.fullmatch(raw):
                return int(raw)
            if _NUMBER.fullmatch(raw):  # `2.0`, `1e3`: integers if integral, as in JSON
                number = as_integer(float(raw))
                return raw if number is None else number
        except (ValueError, OverflowError):  # more digits than Python converts
            return raw
        return raw
    if base is bool:
        return BOOLEANS.get(raw, raw)
    return raw


@attrs.frozen
class QueryParameter:
    """One query parameter: its name, how its text is read, and its OpenAPI description."""

    name: str
    base: Any
    schema: dict[str, Any]
    description: str | None = None
    attribute: str = attrs.field(default=attrs.Factory(lambda self: self.name, takes_self=True))
    """The query class's field: the `name`, unless the field renames its parameter."""
    required: bool = False

    def openapi(self) -> dict[str, Any]:
        parameter: dict[str, Any] = {"name": self.name, "in": "query", "required": self.required, "schema": self.schema}
        if self.description:
            parameter["description"] = self.description
        return parameter


class QueryParser(Generic[Q]):
    """Parses the query string of one operation into an instance of `cls` (built once per route)."""

    def __init__(self, cls: type[Q]) -> None:
        self.cls = cls
        hints = get_type_hints(cls, include_extras=True)
        registry = SchemaRegistry()
        self.parameters: tuple[QueryParameter, ...] = tuple(
            _parameter(field, hints[field.name], registry) for field in attrs.fields(cast(Any, cls))
        )
        self._renamed = {p.attribute: p.name for p in self.parameters if p.attribute != p.name}

    def parse(self, query: Mapping[str, str]) -> Q:
        """Raises ValidationFailed (422) naming each bad parameter, in its key and its messages."""
        values = {p.attribute: _read(query[p.name], p.base) for p in self.parameters if p.name in query}
        return structure(values, self.cls, self._renamed)


def _parameter(field: attrs.Attribute[Any], tp: Any, registry: SchemaRegistry) -> QueryParameter:
    base, constraints = _unwrap(tp)
    if base is bool:
        schema: dict[str, Any] = {"type": "string", "enum": list(BOOLEANS)}
    else:
        schema = registry.schema(base)
    for constraint in constraints:  # the rules the converter enforces on this field, required or not
        schema.update(constraint.json_schema())
    if field.default not in (None, attrs.NOTHING):
        schema["default"] = field.default
    return QueryParameter(
        name=field.metadata.get("query_name", field.name),
        base=base,
        schema=schema,
        description=field.metadata.get("description"),
        attribute=field.name,
        required=field.default is attrs.NOTHING,
    )
