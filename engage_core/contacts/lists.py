"""Contact lists: named, explicit sets of contacts."""

from __future__ import annotations

from datetime import datetime

import attrs

NAME_MAX = 255


@attrs.frozen
class ContactList:
    id: int
    name: str
    status: int
    contacts_count: int
    created_at: datetime
    updated_at: datetime
