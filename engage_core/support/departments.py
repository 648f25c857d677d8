"""Departments: where a workspace files its support tickets (SPEC 2 and 4, Support tickets).

A workspace has at least one department whenever a ticket needs one. Nothing is created with the
account: the first time a workspace lists its departments or opens a ticket without naming one
and has no department at all, one titled `DEFAULT_TITLE` ("General") is created
(`DepartmentRepository.ensure_default`). So accounts made before tickets existed need no data
migration, and a workspace that deleted every department gets "General" back when a ticket next
needs one. Departments are managed from the CLI (create, rename, delete).

Titles are unique per workspace regardless of case and surrounding spaces (`title_key`): the SQL
adapter keeps the key in a column under a unique index on `(account_id, title_key)`.
"""

from __future__ import annotations

from datetime import datetime

import attrs

from engage_core.kernel.errors import ValidationFailed

DEFAULT_TITLE = "General"
TITLE_MAX = 255


@attrs.frozen
class Department:
    id: int
    title: str
    created_at: datetime
    updated_at: datetime


def title_key(title: str) -> str:
    """The uniqueness key of a title: `Sales`, `sales` and ` Sales ` are one department."""
    return title.strip().casefold()


def clean_title(title: str) -> str:
    """Trim and check a title; ValidationFailed on `title`."""
    cleaned = title.strip()
    if not cleaned:
        raise ValidationFailed.on("title", "The title field is required.")
    if len(cleaned) > TITLE_MAX:
        raise ValidationFailed.on("title", f"The title may not be greater than {TITLE_MAX} characters.")
    return cleaned
