"""Contacts and their notes."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

import attrs

from engage_core.kernel.clock import format_optional, format_timestamp

ContactType = Literal["whatsapp", "telegram", "instagram"]
ContactStatus = Literal["active", "inactive"]
CONTACT_TYPES: tuple[str, ...] = ("whatsapp", "telegram", "instagram")
CONTACT_STATUSES: tuple[str, ...] = ("active", "inactive")
PHONE_REQUIRED_TYPES = frozenset({"whatsapp", "telegram"})


@attrs.frozen
class Contact:
    id: int
    name: str
    email: str | None
    phone: str | None
    type: str
    status: str
    blacklisted: bool
    tags: tuple[str, ...]
    last_message_at: datetime | None
    created_at: datetime
    updated_at: datetime
    source: str = "api"
    company: str | None = None
    address: str | None = None
    country_id: int | None = None

    def event_payload(self) -> Mapping[str, Any]:
        """`contact.created` / `contact.updated` data (SPEC 6)."""
        return {
            "id": self.id,
            "name": self.name,
            "email": self.email,
            "phone": self.phone,
            "type": self.type,
            "status": self.status,
            "is_blacklist": self.blacklisted,
            "source": self.source,
            "company": self.company,
            "address": self.address,
            "country_id": self.country_id,
            "tags": list(self.tags),
            "last_message_at": format_optional(self.last_message_at),
            "created_at": format_timestamp(self.created_at),
            "updated_at": format_timestamp(self.updated_at),
        }

    def deleted_payload(self, deleted_at: datetime) -> Mapping[str, Any]:
        """`contact.deleted` data (SPEC 6)."""
        return {
            "id": self.id,
            "name": self.name,
            "phone": self.phone,
            "email": self.email,
            "type": self.type,
            "deleted_at": format_timestamp(deleted_at),
        }


@attrs.frozen
class ContactDraft:
    """A validated new contact, before it has an id."""

    name: str
    type: str
    phone: str | None = None
    email: str | None = None
    status: str = "active"
    source: str = "api"
    company: str | None = None
    address: str | None = None
    country_id: int | None = None


@attrs.frozen
class ContactFilter:
    """Filters of `GET /contacts`. `search` matches name, e-mail or phone (case-insensitive substring)."""

    search: str | None = None
    type: str | None = None
    blacklisted: bool | None = None
    tag: str | None = None


@attrs.frozen
class Member:
    """A list or segment member item (SPEC 2)."""

    id: int
    name: str
    phone: str | None
    type: str


@attrs.frozen
class Note:
    id: int
    contact_id: int
    content: str
    created_at: datetime
    updated_at: datetime
