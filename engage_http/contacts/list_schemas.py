"""Request and response bodies of the contact-list endpoints (SPEC 2 and 4, Lists and segments)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import attrs

from engage_core.contacts import lists as domain
from engage_core.kernel.unset import UNSET, Unset
from engage_http.converter import renders
from engage_http.fields import Name

ListStatus = Literal[1, 0]


@attrs.frozen
class ListCreate:
    """A new contact list (created active)."""

    name: Name


@attrs.frozen
class ListUpdate:
    """Any subset of `name` and `status` (`1` active, `0` inactive)."""

    name: Name | Unset = UNSET
    status: ListStatus | Unset = UNSET


@renders(domain.ContactList)
@attrs.frozen
class ContactList:
    """A contact list with its member count."""

    id: int
    name: str
    status: ListStatus = attrs.field(metadata={"description": "`1` active, `0` inactive."})
    contacts_count: int
    created_at: datetime
    updated_at: datetime
