"""JSON Schema (2020-12, as OpenAPI 3.1 uses it) generated from the attrs classes of `schemas/`.

The same type annotations drive the converter, so the published schema is what the API enforces:
`Annotated` constraints become keywords, `X | None` becomes nullable, a field defaulting to `UNSET` is
optional, `str` excludes NUL characters (as the converter does), `Literal[...]` becomes `enum`, an
attrs class becomes a `$ref` to a component named after the class. A class may refine its generated
schema with a `__json_schema__(schema)` classmethod (rules that span fields, such as "phone is
required for WhatsApp contacts"); the `anyOf`/`oneOf` such a rule adds beside `properties` is
published inside `allOf`, which client generators read as a rule rather than as a union of classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, get_args, get_origin, get_type_hints

import attrs

from engage_core.kernel.unset import UNSET
from engage_http.constraints import CONSTRAINT_TYPES, NO_NUL
from engage_http.converter import FREE_ARRAY_MAX, is_list, is_union, is_unset, union_members
from engage_http.uploads import UPLOAD_SCHEMA, Upload

REF_PREFIX = "#/components/schemas/"
FREE_JSON = "JsonValue"
"""The component `Any` refers to."""

_PRIMITIVES: Mapping[Any, dict[str, Any]] = {
    str: {"type": "string", "pattern": NO_NUL},  # a constraint's own pattern replaces it, and excludes NUL too
    int: {"type": "integer"},
    bool: {"type": "boolean"},
    float: {"type": "number"},
    type(None): {"type": "null"},
    datetime: {"type": "string", "format": "date-time"},
    Upload: UPLOAD_SCHEMA,
}


class SchemaRegistry:
    """Collects the component schemas that `$ref`s point to, one per attrs class."""

    def __init__(self) -> None:
        self.components: dict[str, dict[str, Any]] = {}
        self._owners: dict[str, type] = {}

    def ref(self, cls: type) -> dict[str, Any]:
        """A `$ref` to the component of `cls`, generating it on first use."""
        name = cls.__name__
        owner = self._owners.get(name)
        if owner is None:
            self._owners[name] = cls
            self.components[name] = {}  # placeholder, so recursive references terminate
            self.components[name] = self._class_schema(cls)
        elif owner is not cls:
            raise ValueError(f"Two schema classes are named {name}: {owner!r} and {cls!r}")
        return {"$ref": REF_PREFIX + name}

    def add(self, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """Register a hand-written component and return a `$ref` to it."""
        self.components[name] = schema
        return {"$ref": REF_PREFIX + name}

    def schema(self, tp: Any) -> dict[str, Any]:
        """The schema of a type annotation."""
        if tp in _PRIMITIVES:
            return dict(_PRIMITIVES[tp])
        if tp is Any:
            return self._free_json()
        if hasattr(tp, "__metadata__"):
            schema = self.schema(tp.__origin__)
            for meta in tp.__metadata__:
                if isinstance(meta, CONSTRAINT_TYPES):
                    schema.update(meta.json_schema())
            return schema
        if is_union(tp):
            members, nullable, _ = union_members(tp)
            inner = [self.schema(m) for m in members]
            if not nullable:
                return inner[0] if len(inner) == 1 else {"anyOf": inner}
            if len(inner) == 1 and isinstance(inner[0].get("type"), str):
                merged = dict(inner[0])
                merged["type"] = [merged["type"], "null"]
                if "enum" in merged:
                    merged["enum"] = [*merged["enum"], None]
                return merged
            return {"anyOf": [*inner, {"type": "null"}]}
        if get_origin(tp) is Literal and not is_unset(tp):
            return _literal(get_args(tp))
        if is_list(tp):
            return {"type": "array", "items": self.schema(get_args(tp)[0])}
        origin = get_origin(tp)
        if origin in (dict, Mapping):
            return {
                "type": "object",
                "propertyNames": {"pattern": NO_NUL},
                "additionalProperties": self.schema(get_args(tp)[1]),
            }
        if isinstance(tp, type) and attrs.has(tp):
            return self.ref(tp)
        raise TypeError(f"No JSON Schema for {tp!r}")

    def _free_json(self) -> dict[str, Any]:
        """`Any`: any JSON value, under the converter's rules for free-form values (`FREE_ARRAY_MAX`).

        The rules are stated in words only: as a schema they recurse (an array of JSON values), and
        client generators cannot build a type of a recursive union (openapi-python-client drops every
        schema that refers to one), while an empty schema they read as any value."""
        if FREE_JSON not in self.components:
            self.add(
                FREE_JSON,
                {
                    "description": "Any JSON value. No string in it, keys included, holds a NUL character, "
                    f"and no array in it holds more than {FREE_ARRAY_MAX} items."
                },
            )
        return {"$ref": REF_PREFIX + FREE_JSON}

    def _class_schema(self, cls: type) -> dict[str, Any]:
        hints = get_type_hints(cls, include_extras=True)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for field in attrs.fields(cls):
            prop = self.schema(hints[field.name])
            description = field.metadata.get("description")
            if description:
                prop = {**prop, "description": description}
            default = field.default
            if default is attrs.NOTHING:
                required.append(field.name)
            elif default is not UNSET and _is_json_default(default):
                prop = {**prop, "default": list(default) if isinstance(default, tuple) else default}
            properties[field.name] = prop
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        doc = _summary(cls.__doc__)
        if doc:
            schema["description"] = doc
        refine = getattr(cls, "__json_schema__", None)
        if refine is not None:
            schema = _cross_field_rules(refine(schema))
        return schema


COMBINATORS = ("anyOf", "oneOf")
"""The keywords a refinement states its cross-field rules with ("a phone, unless the type needs none")."""


def _cross_field_rules(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with the combinators beside its `properties` moved into `allOf`.

    Same validation, but client generators (openapi-python-client among them) read an object schema
    with a sibling `anyOf`/`oneOf` as a union of its branches, each a class of its own without the
    fields; inside `allOf` they leave the rule to the server and keep one class with every property."""
    if "properties" not in schema:
        return schema
    rules = [{keyword: schema.pop(keyword)} for keyword in COMBINATORS if keyword in schema]
    if rules:
        schema["allOf"] = [*schema.get("allOf", ()), *rules]
    return schema


def _literal(choices: Sequence[Any]) -> dict[str, Any]:
    kinds = {type(c) for c in choices}
    schema: dict[str, Any] = {"enum": list(choices)}
    if kinds == {str}:
        schema = {"type": "string", **schema}
    elif kinds == {int}:
        schema = {"type": "integer", **schema}
    elif kinds == {bool}:
        schema = {"type": "boolean", **schema}
    return schema


def _is_json_default(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(isinstance(v, str | int | bool) for v in value)
    return value is None or isinstance(value, str | int | bool)


def _summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line."""
    if not doc:
        return ""
    return " ".join(doc.strip().split("\n\n")[0].split())


__all__ = ["REF_PREFIX", "SchemaRegistry"]
