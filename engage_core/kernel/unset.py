"""`UNSET`: the value of a field a partial update leaves alone (distinct from an explicit `null`)."""

from __future__ import annotations

import enum
from typing import Literal, TypeAlias, TypeVar

T = TypeVar("T")
"""The type of the field a partial update may leave alone."""


class _Unset(enum.Enum):
    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET = _Unset.UNSET
Unset: TypeAlias = Literal[_Unset.UNSET]


def pick(value: T | Unset, current: T) -> T:
    """`value` when it was given, else `current`."""
    return current if value is UNSET else value
