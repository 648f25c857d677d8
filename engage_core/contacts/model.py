"""Contacts and their notes: the entities, and the rules a contact's fields follow."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, get_args

import attrs

from engage_core.kernel.clock import format_optional, format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.phones import to_e164
from engage_core.kernel.unset import UNSET, Unset, pick
from engage_core.kernel.validation import ErrorCollector, one_of, optional_email, optional_text, required_text

ContactType = Literal["whatsapp", "telegram", "instagram", "linkedin"]
"""The channel a contact is reached on: SPEC 2's three, and `linkedin`, a channel of SPEC (the
contacts its inbound messages create have it), added as a documented extension. The one list every
layer derives its contact types from."""
ContactStatus = Literal["active", "inactive"]
CONTACT_TYPES: tuple[str, ...] = get_args(ContactType)
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
    ai_agent_id: int | None = None
    """The AI agent assigned to the contact (an addition to SPEC 2; `engage_core.agents.model`). Only
    the agents area changes it: `ContactRepository.update` leaves it as it is stored."""

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


NAME_MAX = 255
NOTE_MAX = 10_000
CONTACT_IDS_MAX = 500
"""Contacts one request may name at once (members added, contacts assigned: SPEC 8 says 500)."""


@attrs.frozen
class ContactInput:
    """Fields of `POST /contacts`."""

    name: str
    type: str
    phone: str | None = None
    email: str | None = None
    tags: Sequence[str] = ()
    status: str = "active"
    company: str | None = None
    address: str | None = None
    country_id: int | None = None


@attrs.frozen
class ContactPatch:
    """Fields of `PUT /contacts/{id}`: any subset; `UNSET` leaves a field alone."""

    name: str | Unset = UNSET
    type: str | Unset = UNSET
    phone: str | Unset | None = UNSET
    email: str | Unset | None = UNSET
    tags: Sequence[str] | Unset = UNSET
    status: str | Unset = UNSET
    company: str | Unset | None = UNSET
    address: str | Unset | None = UNSET
    country_id: int | Unset | None = UNSET


def validate_contact(data: ContactInput, source: str) -> ContactDraft:
    """The contact `data` describes, every field checked at once (a 422 names all the problems, not
    just the first)."""
    errors = ErrorCollector()
    name = errors.run(lambda: required_text("name", data.name, max_length=NAME_MAX))
    kind = errors.run(lambda: one_of("type", data.type, CONTACT_TYPES))
    status = errors.run(lambda: one_of("status", data.status, CONTACT_STATUSES))
    email = errors.run(lambda: optional_email("email", data.email))
    phone = errors.run(lambda: _phone(data.phone))
    company = errors.run(lambda: optional_text("company", data.company, max_length=255))
    address = errors.run(lambda: optional_text("address", data.address, max_length=1000))
    if data.country_id is not None and (isinstance(data.country_id, bool) or data.country_id < 1):
        errors.errors.setdefault("country_id", []).append("The country id must be a positive integer.")
    if kind in PHONE_REQUIRED_TYPES and phone is None and "phone" not in errors.errors:
        errors.errors["phone"] = [f"The phone field is required when type is {kind}."]
    errors.raise_if_any()
    assert name is not None and kind is not None and status is not None
    draft = ContactDraft(
        name=name,
        type=kind,
        phone=phone,
        email=email,
        status=status,
        source=source,
        company=company,
        address=address,
        country_id=data.country_id,
    )
    return draft


def _phone(raw: str | None) -> str | None:
    if raw is None or not raw.strip():
        return None
    try:
        return to_e164(raw)
    except ValueError as exc:
        raise ValidationFailed.on("phone", str(exc)) from exc


def apply_patch(current: Contact, patch: ContactPatch, now: datetime) -> Contact:
    """`current` with `patch` applied and checked as a whole (`validate_contact`); `updated_at` is `now`."""
    data = ContactInput(
        name=pick(patch.name, current.name),
        type=pick(patch.type, current.type),
        phone=pick(patch.phone, current.phone),
        email=pick(patch.email, current.email),
        status=pick(patch.status, current.status),
        company=pick(patch.company, current.company),
        address=pick(patch.address, current.address),
        country_id=pick(patch.country_id, current.country_id),
    )
    draft = validate_contact(data, current.source)
    return attrs.evolve(
        current,
        name=draft.name,
        type=draft.type,
        phone=draft.phone,
        email=draft.email,
        status=draft.status,
        company=draft.company,
        address=draft.address,
        country_id=draft.country_id,
        updated_at=now,
    )
