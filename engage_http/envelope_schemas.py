"""Bodies the envelope itself contributes: pagination meta and the error bodies (SPEC 1, 7)."""

from __future__ import annotations

from typing import Literal

import attrs

from engage_core.kernel.pagination import Page


@attrs.frozen
class PageMeta:
    """Where a page sits in the whole result. `per_page` is the value used (after clamping)."""

    current_page: int
    per_page: int
    total: int
    last_page: int

    @classmethod
    def of(cls, page: Page[object]) -> PageMeta:
        return cls(
            current_page=page.request.page, per_page=page.request.per_page, total=page.total, last_page=page.last_page
        )


@attrs.frozen
class Error:
    """An error: `success` is false and `message` says what went wrong."""

    success: Literal[False]
    message: str


@attrs.frozen
class ValidationError:
    """A validation failure: `errors` maps each field path (`tags.0`, `conditions.1.value`) to its messages."""

    success: Literal[False]
    message: str
    errors: dict[str, list[str]]


@attrs.frozen
class ForbiddenError:
    """Authenticated but not allowed. `code` is machine-readable: `account_inactive`, `origin_not_allowed`."""

    success: Literal[False]
    message: str
    code: str
