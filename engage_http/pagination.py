"""Page parameters (`page`, `per_page`) of paginated list endpoints, and the page request they make.

`page` and `per_page` are integers of at least 1 (anything else is a 422). `per_page` above the
endpoint's maximum is clamped, not rejected, and `meta.per_page` reports the value used. `page` is
capped at 2^31 - 1 so that no offset overflows a 64-bit SQL integer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import attrs

from engage_core.kernel.pagination import PageLimits, PageRequest
from engage_http.constraints import Integer
from engage_http.query import QueryParameter, QueryParser

MAX_PAGE = 2_147_483_647


@attrs.frozen
class PageQuery:
    page: Annotated[int, Integer(minimum=1, maximum=MAX_PAGE)] | None = None
    per_page: Annotated[int, Integer(minimum=1)] | None = None


_PARSER = QueryParser(PageQuery)


def parameters(limits: PageLimits) -> tuple[QueryParameter, ...]:
    """The OpenAPI parameters of a paginated endpoint with these limits."""
    page, per_page = _PARSER.parameters
    return (
        attrs.evolve(page, schema={**page.schema, "default": 1}, description="The page number, from 1."),
        attrs.evolve(
            per_page,
            schema={**per_page.schema, "default": limits.default},
            description=f"Items per page (default {limits.default}); values above {limits.maximum} "
            f"are clamped to {limits.maximum}.",
        ),
    )


def page_request(query: Mapping[str, str], limits: PageLimits) -> PageRequest:
    """Raises ValidationFailed (422) for a page or per_page that is not an integer of at least 1."""
    parsed = _PARSER.parse(query)
    return PageRequest.build(parsed.page, parsed.per_page, default=limits.default, maximum=limits.maximum)


__all__ = ["MAX_PAGE", "PageQuery", "page_request", "parameters"]
