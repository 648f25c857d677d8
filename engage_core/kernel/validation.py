"""Small field checks shared by services; each raises ValidationFailed naming the field."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from engage_core.kernel.errors import ValidationFailed

T = TypeVar("T")
"""The type of a checked value."""

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def required_text(field: str, value: str, *, max_length: int) -> str:
    """Trimmed, non-empty, at most `max_length` characters."""
    cleaned = value.strip()
    if not cleaned:
        raise ValidationFailed.on(field, f"The {field} field is required.")
    if len(cleaned) > max_length:
        raise ValidationFailed.on(field, f"The {field} may not be greater than {max_length} characters.")
    return cleaned


def optional_text(field: str, value: str | None, *, max_length: int) -> str | None:
    """Like `required_text`, but `None` or blank becomes `None`."""
    if value is None or not value.strip():
        return None
    return required_text(field, value, max_length=max_length)


def optional_email(field: str, value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    cleaned = value.strip()
    if len(cleaned) > 255 or not _EMAIL.match(cleaned):
        raise ValidationFailed.on(field, f"The {field} must be a valid email address.")
    return cleaned


def one_of(field: str, value: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValidationFailed.on(field, f"The {field} must be one of: " + ", ".join(choices) + ".")
    return value


class ErrorCollector:
    """Run several checks and raise one ValidationFailed carrying every failure."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def run(self, check: Callable[[], T]) -> T | None:
        try:
            return check()
        except ValidationFailed as exc:
            for field, messages in exc.errors.items():
                self.errors.setdefault(field, []).extend(messages)
            return None

    def raise_if_any(self) -> None:
        if self.errors:
            raise ValidationFailed(self.errors)
