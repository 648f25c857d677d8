"""Walks the request side of the OpenAPI document: every value a request body or query can hold.

The class tests of limits and NUL characters are generated from it, so an operation or field added
later is covered without naming it. A `Location` is one schema node: the operation, where it sits
(`body` or `query`), the steps down to it (a property name, `*` for an array's items, `{}` for a
map's values), and what a request must also carry to reach it (the `const`/`enum` siblings of a
`oneOf` branch, such as a segment condition's `field` and `operator`; an object's branches sit in its
`allOf`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import attrs

ITEM = "*"
VALUE = "{}"
MAP_KEY = "monday"
"""The key a map's value is sent under (the only maps are weekly hours, keyed by weekday)."""


@attrs.frozen
class Location:
    method: str
    path: str
    where: str
    steps: tuple[str, ...]
    schema: Mapping[str, Any]
    partner: bool
    multipart: bool
    siblings: Mapping[tuple[str, ...], Mapping[str, Any]] = attrs.field(factory=dict)
    """Values other fields must have for this node to apply, by the steps of their object."""

    @property
    def field(self) -> str:
        """The field path errors name (`exceptions.0.openings`, `weekly.monday`)."""
        return ".".join("0" if s == ITEM else MAP_KEY if s == VALUE else s for s in self.steps)

    @property
    def label(self) -> str:
        return f"{self.method} {self.path} {self.where}:{self.field}"


class RequestSchemas:
    """The document's request schemas, with `$ref`s resolved against its components."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document
        self.components: Mapping[str, Any] = document["components"]["schemas"]

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        while "$ref" in schema:
            schema = self.components[schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def locations(self) -> Iterator[Location]:
        """Every schema node of every request body and query parameter."""
        for path, item in self.document["paths"].items():
            for method, op in item.items():
                partner = op.get("security") == [{"PartnerKeyAuth": []}]
                content = op.get("requestBody", {}).get("content", {})
                multipart = "multipart/form-data" in content
                base = {"method": method.upper(), "path": path, "partner": partner, "multipart": multipart}
                if "application/json" in content:
                    yield from self._walk(content["application/json"]["schema"], (), {}, "body", base, frozenset())
                for parameter in op.get("parameters", []):
                    if parameter["in"] == "query":
                        steps = (parameter["name"],)
                        yield from self._walk(parameter["schema"], steps, {}, "query", base, frozenset())

    def _walk(
        self,
        schema: Mapping[str, Any],
        steps: tuple[str, ...],
        siblings: Mapping[tuple[str, ...], Mapping[str, Any]],
        where: str,
        base: Mapping[str, Any],
        seen: frozenset[str],
    ) -> Iterator[Location]:
        ref = schema.get("$ref")
        if ref is not None:
            if ref in seen:
                return
            seen = seen | {ref}
        schema = self.resolve(schema)
        yield Location(where=where, steps=steps, schema=schema, siblings=siblings, **base)
        rules = [schema, *schema.get("allOf", ())]  # an object's cross-field rules sit in `allOf`
        for rule in rules:
            for union in ("anyOf", "oneOf"):
                for branch in rule.get(union, ()):
                    yield from self._branch(schema, branch, steps, siblings, where, base, seen)
        items = schema.get("items")
        if isinstance(items, dict):
            yield from self._walk(items, (*steps, ITEM), siblings, where, base, seen)
        values = schema.get("additionalProperties")
        if isinstance(values, dict):
            yield from self._walk(values, (*steps, VALUE), siblings, where, base, seen)
        for name, prop in schema.get("properties", {}).items():
            yield from self._walk(prop, (*steps, name), siblings, where, base, seen)

    def _branch(
        self,
        owner: Mapping[str, Any],
        branch: Mapping[str, Any],
        steps: tuple[str, ...],
        siblings: Mapping[tuple[str, ...], Mapping[str, Any]],
        where: str,
        base: Mapping[str, Any],
        seen: frozenset[str],
    ) -> Iterator[Location]:
        """A union member: a whole schema (`X | null`), or a branch refining its owner's properties,
        whose new properties apply when its `const`/`enum` properties hold."""
        if "properties" not in branch:
            yield from self._walk(branch, steps, siblings, where, base, seen)
            return
        declared = owner.get("properties", {})
        chosen = {
            name: prop["const"] if "const" in prop else prop["enum"][0]
            for name, prop in branch["properties"].items()
            if "const" in prop or "enum" in prop
        }
        inner = {**siblings, steps: {**siblings.get(steps, {}), **chosen}}
        for name, prop in branch["properties"].items():
            if name not in chosen and not declared.get(name, {}).get("type"):  # not a refinement of a typed field
                yield from self._walk(prop, (*steps, name), inner, where, base, seen)

    def minimal(self, schema: Mapping[str, Any]) -> Any:
        """A small value of `schema`: required properties only, the first choice of each union."""
        schema = self.resolve(schema)
        if "const" in schema:
            return schema["const"]
        if schema.get("enum"):
            return schema["enum"][0]
        if schema.get("examples"):
            return schema["examples"][0]
        for union in ("anyOf", "oneOf"):
            members = [m for m in schema.get(union, ()) if self.resolve(m).get("type") not in ("null", None)]
            if members and "type" not in schema:
                return self.minimal(members[0])
        kind = schema.get("type")
        kind = next((k for k in kind if k != "null"), None) if isinstance(kind, list) else kind
        if kind == "string":
            return "x"
        if kind in ("integer", "number"):
            return max(schema.get("minimum", 1), 1)
        if kind == "boolean":
            return True
        if kind == "array":
            return [self.minimal(schema["items"]) for _ in range(schema.get("minItems", 0))]
        if kind == "object":
            properties = schema.get("properties", {})
            return {name: self.minimal(properties.get(name, {})) for name in schema.get("required", ())}
        return None

    def body_with(self, location: Location, leaf: Any) -> dict[str, Any]:
        """A body holding `leaf` at `location`: the body's required fields minimal, the branch siblings set."""
        op = self.document["paths"][location.path][location.method.lower()]
        body = self.minimal(op["requestBody"]["content"]["application/json"]["schema"])
        body = body if isinstance(body, dict) else {}
        for at, values in location.siblings.items():
            for name, value in values.items():
                body = _place(body, (*at, name), value)
        return _place(body, location.steps, leaf)  # type: ignore[no-any-return]


def _place(node: Any, steps: tuple[str, ...], leaf: Any) -> Any:
    """`node` with `leaf` at `steps` (the first item of an array, a map's `MAP_KEY`), made where missing."""
    if not steps:
        return leaf
    step, rest = steps[0], steps[1:]
    if step == ITEM:
        items = node if isinstance(node, list) else []
        return [_place(items[0] if items else None, rest, leaf), *items[1:]]
    mapping = dict(node) if isinstance(node, dict) else {}
    key = MAP_KEY if step == VALUE else step
    mapping[key] = _place(mapping.get(key), rest, leaf)
    return mapping


def is_array(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "array" or (isinstance(kind, list) and "array" in kind)


def is_text(schema: Mapping[str, Any]) -> bool:
    """A string node that declares the value (not a refinement such as `{"type": "string"}` in `anyOf`)."""
    kind = schema.get("type")
    return kind == "string" or (isinstance(kind, list) and "string" in kind)
