"""Request and response bodies of the tag endpoints (SPEC 2, Tag; SPEC 4, Tags)."""

from __future__ import annotations

from datetime import datetime

import attrs

from engage_core.contacts import tags as domain
from engage_http.converter import renders
from engage_http.fields import Title


@attrs.frozen
class TagWrite:
    """A tag title: unique in the account regardless of case."""

    title: Title


@renders(domain.Tag)
@attrs.frozen
class Tag:
    """A tag, with the number of contacts carrying it."""

    id: int
    title: str
    contacts_count: int | None
    created_at: datetime
    updated_at: datetime
