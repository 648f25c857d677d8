"""JSON as the docs write it, with elisions, and its comparison with an actual response by shape.

The docs elide with `...`: `{"id": 1, ...}` (an object with more keys), `[...]` (any array),
`"..."` or `"<64 characters>"` (any value of that type), `"...": "..."` (more keys). The comparison:
same keys recursively (extra keys allowed only where elided), same JSON types (null matches any
scalar, since an example shows one value of a nullable field; an int matches a number), and the
same value for `success`, `message`, `code` and the messages under `errors`. Ids, timestamps and
other values are not compared.
"""

from __future__ import annotations

import json
import re
from typing import Any

MORE = "\u2026more"  # the key that marks an object as open ("...")
ANY = "\u2026any"  # a value that matches anything

_EXACT_KEYS = frozenset({"success", "message", "code"})


def parse(text: str) -> Any:
    """The value of one JSON document written with the docs' elisions."""
    text = re.sub(r'"\.\.\."\s*:\s*"\.\.\."', f'"{MORE}": null', text)
    text = re.sub(r"\[\s*\.\.\.\s*\]", f'["{ANY}"]', text)
    text = re.sub(r"\{\s*\.\.\.\s*\}", f'{{"{MORE}": null}}', text)
    text = re.sub(r",\s*\.\.\.\s*(?=\])", "", text)
    text = re.sub(r",\s*\.\.\.\s*(?=[,}])", f', "{MORE}": null', text)
    text = re.sub(r"(?<=\{)\s*\.\.\.\s*,", f'"{MORE}": null,', text)
    text = re.sub(r"(?<=:)\s*\.\.\.\s*(?=[,}\]])", f'"{ANY}"', text)
    return json.loads(text)


def parse_lines(text: str) -> list[Any]:
    """Several documents, one per line (JSON Lines, as the logging examples show)."""
    return [parse(line) for line in text.splitlines() if line.strip()]


def differences(expected: Any, actual: Any, path: str = "$") -> list[str]:
    """Where `actual` does not have the shape of `expected`; empty when it has."""
    if expected == ANY or expected == "...":
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {json.dumps(actual)[:80]}"]
        found: list[str] = []
        open_object = MORE in expected
        for key, value in expected.items():
            if key == MORE:
                continue
            if key not in actual:
                found.append(f"{path}.{key}: missing from the response")
                continue
            if (
                key in _EXACT_KEYS
                and value not in (ANY, "...")
                and not isinstance(value, (dict, list))
                and value != actual[key]
            ):
                found.append(f"{path}.{key}: the docs say {value!r}, the response {actual[key]!r}")
                continue
            if key == "errors" and isinstance(value, dict) and isinstance(actual[key], dict):
                found.extend(_error_differences(value, actual[key], f"{path}.errors"))
                continue
            found.extend(differences(value, actual[key], f"{path}.{key}"))
        if not open_object:
            found.extend(f"{path}.{key}: in the response, not in the docs" for key in actual if key not in expected)
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{path}: expected an array, got {json.dumps(actual)[:80]}"]
        if expected == [ANY] or not expected or not actual:
            return []
        return [
            d
            for i, item in enumerate(actual[: len(expected)])
            for d in differences(expected[min(i, len(expected) - 1)], item, f"{path}[{i}]")
        ]
    if not _same_type(expected, actual):
        return [f"{path}: the docs show {json.dumps(expected)}, the response {json.dumps(actual)[:80]}"]
    return []


def _error_differences(expected: dict[str, Any], actual: dict[str, Any], path: str) -> list[str]:
    found = [f"{path}.{key}: the response has no such error" for key in expected if key not in actual]
    found += [
        f"{path}.{key}: in the response, not in the docs"
        for key in actual
        if key not in expected and MORE not in expected
    ]
    for key, messages in expected.items():
        if key in actual and key != MORE and messages != actual[key]:
            found.append(f"{path}.{key}: the docs say {messages!r}, the response {actual[key]!r}")
    return found


def _same_type(expected: Any, actual: Any) -> bool:
    if isinstance(expected, str) and isinstance(actual, str):
        return True
    if expected is None or actual is None:  # an example shows one value of a nullable field
        return not isinstance(expected, (dict, list)) and not isinstance(actual, (dict, list))
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool)
    return isinstance(expected, (int, float)) and isinstance(actual, (int, float))
