"""Page requests and pages: the arithmetic every list endpoint shares."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import attrs

from engage_core.kernel.errors import ValidationFailed

T = TypeVar("T")
"""The type of a page's items."""
U = TypeVar("U")
"""The type of the items a page is mapped to."""


@attrs.frozen
class PageRequest:
    """A validated page request. `per_page` is already clamped to the endpoint's maximum."""

    page: int = 1
    per_page: int = 15

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.per_page

    @classmethod
    def build(cls, page: int | None, per_page: int | None, *, default: int, maximum: int) -> PageRequest:
        """Apply defaults, reject values below 1, clamp `per_page` to `maximum`."""
        page = 1 if page is None else page
        per_page = default if per_page is None else per_page
        errors: dict[str, list[str]] = {}
        if page < 1:
            errors["page"] = ["The page must be at least 1."]
        if per_page < 1:
            errors["per_page"] = ["The per page must be at least 1."]
        if errors:
            raise ValidationFailed(errors)
        return cls(page=page, per_page=min(per_page, maximum))


@attrs.frozen
class Page(Generic[T]):
    """One page of results and the total across all pages."""

    items: Sequence[T]
    request: PageRequest
    total: int

    @property
    def last_page(self) -> int:
        """At least 1, so an empty result still has a first (and last) page."""
        return max(1, -(-self.total // self.request.per_page))

    def map(self, fn: Callable[[T], U]) -> Page[U]:
        return Page(items=[fn(item) for item in self.items], request=self.request, total=self.total)


def paginate(items: Sequence[T], request: PageRequest) -> Page[T]:
    """Slice an in-memory sequence (used by the fakes, and by small bounded lists)."""
    return Page(
        items=list(items[request.offset : request.offset + request.per_page]), request=request, total=len(items)
    )


@attrs.frozen
class PageLimits:
    """Default and maximum `per_page` of one endpoint (SPEC 8)."""

    default: int
    maximum: int = 100


CONTACTS = PageLimits(default=15)
LIST_MEMBERS = PageLimits(default=15)
SEGMENT_MEMBERS = PageLimits(default=15)
TAGS = PageLimits(default=100)
"""SPEC names no default for tags: a whole page of the maximum, so most workspaces need one request."""
