"""Constraints on request values, declared once with `typing.Annotated` and read twice.

`Annotated[str, Text(max_length=100, blank=False)]` is enforced by the converter (`converter.py`) and
published by the JSON Schema generator (`jsonschema.py`), so the OpenAPI document cannot drift from
what the API accepts. Messages carry a `{field}` placeholder that the converter fills with the field path.

Patterns never use `\\s`/`\\S`/`\\d`/`\\w`: their meaning differs between Python, ECMA-262 and the
validators that read the published document. `WHITESPACE_CLASS` spells out exactly the characters
`str.strip()` removes, so "not blank" means the same thing here, in the core and in the schema.

No request string may hold a NUL character (PostgreSQL cannot store one in text): the converter refuses
it in every string, and every string schema says so, with `NO_NUL` or a pattern that excludes it.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

WHITESPACE_CLASS = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
"""Every character for which `str.isspace()` is true, as a regex character-class body."""

NO_NUL = "^[^\\u0000]*$"
"""Matches any string without a NUL character: the pattern of every string schema that has no other."""

NOT_BLANK = f"^[{WHITESPACE_CLASS}]*[^{WHITESPACE_CLASS}\\u0000][^\\u0000]*$"
"""Matches any string with a character `str.strip()` keeps and no NUL character. The leading class and
the next character's exclude each other, so matching is linear whatever the text."""


def _compile(pattern: str) -> re.Pattern[str]:
    # JSON Schema's `$` is the end of the string; Python's also matches before a final newline.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


@attrs.frozen
class Text:
    """A string: length in code points, optional non-blank rule, optional pattern (searched, as in JSON Schema)."""

    max_length: int | None = None
    blank: bool = True
    pattern: str | None = None
    format: str | None = None
    message: str = "The {field} format is invalid."
    min_length: int | None = None
    _regex: re.Pattern[str] | None = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if self.pattern is not None and not self.blank:
            raise ValueError("A pattern already decides blankness; give one or the other.")
        object.__setattr__(self, "_regex", None if self.pattern is None else _compile(self.pattern))

    def check(self, value: str) -> str | None:
        """The message template of the first broken rule, or None."""
        if not self.blank and not value.strip():
            return "The {field} field is required."
        if self.min_length is not None and len(value) < self.min_length:
            return f"The {{field}} must be at least {self.min_length} characters."
        if self.max_length is not None and len(value) > self.max_length:
            return f"The {{field}} may not be greater than {self.max_length} characters."
        if self._regex is not None and self._regex.search(value) is None:
            return self.message
        return None

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {}
        if not self.blank:
            schema["minLength"] = 1
            schema["pattern"] = NOT_BLANK
        if self.min_length is not None:
            schema["minLength"] = max(self.min_length, schema.get("minLength", 0))
        if self.max_length is not None:
            schema["maxLength"] = self.max_length
        if self.pattern is not None:
            schema["pattern"] = self.pattern
        if self.format is not None:
            schema["format"] = self.format
        return schema


class _Bounded:
    """Inclusive bounds on a number: the rule and schema `Integer` and `Number` share."""

    minimum: float | None
    maximum: float | None

    def check(self, value: float) -> str | None:
        if self.minimum is not None and value < self.minimum:
            return f"The {{field}} must be at least {_plain(self.minimum)}."
        if self.maximum is not None and value > self.maximum:
            return f"The {{field}} may not be greater than {_plain(self.maximum)}."
        return None

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema


def _plain(bound: float) -> str:
    """A bound as people write it: `1000000` for an integer, `0.5` or `2` for a float."""
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


@attrs.frozen
class Integer(_Bounded):
    """An integer within inclusive bounds."""

    minimum: int | None = None
    maximum: int | None = None


@attrs.frozen
class Number(_Bounded):
    """A number (integer or not) within inclusive bounds."""

    minimum: float | None = None
    maximum: float | None = None


@attrs.frozen
class Items:
    """An array's length bounds."""

    min_items: int | None = None
    max_items: int | None = None

    def check(self, value: list[Any]) -> str | None:
        """Checked on the raw array before its items are read, so an oversized one costs nothing more."""
        if self.min_items is not None and len(value) < self.min_items:
            return f"The {{field}} must have at least {self.min_items} items."
        if self.max_items is not None and len(value) > self.max_items:
            return f"The {{field}} may not have more than {self.max_items} items."
        return None

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {}
        if self.min_items is not None:
            schema["minItems"] = self.min_items
        if self.max_items is not None:
            schema["maxItems"] = self.max_items
        return schema


@attrs.frozen
class Doc:
    """Documentation only: a description and an example for the published schema."""

    description: str | None = None
    example: Any = None

    def check(self, value: Any) -> str | None:
        return None

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {}
        if self.description is not None:
            schema["description"] = self.description
        if self.example is not None:
            schema["examples"] = [self.example]
        return schema


Constraint = Text | Integer | Number | Items | Doc
CONSTRAINT_TYPES = (Text, Integer, Number, Items, Doc)
