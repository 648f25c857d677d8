"""Request and response bodies of the contact endpoints (SPEC 2, Contact; SPEC 4, Contacts)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import attrs

from engage_core.contacts import model as domain
from engage_core.contacts.contact_service import TagAssignment
from engage_core.contacts.model import ContactInput, ContactPatch
from engage_core.kernel.unset import UNSET, Unset
from engage_http.constraints import Doc, Text
from engage_http.converter import renders, structures_into
from engage_http.fields import (
    ContactStatus,
    ContactType,
    CountryId,
    Email,
    Id,
    LongText,
    Name,
    Phone,
    ShortText,
    Title,
    Titles,
)

NoteContent = Annotated[str, Text(max_length=10_000, blank=False)]

_PHONE_REQUIRED = sorted(domain.PHONE_REQUIRED_TYPES)
_PHONE_OPTIONAL = sorted(set(domain.CONTACT_TYPES) - domain.PHONE_REQUIRED_TYPES)


@structures_into(ContactInput)
@attrs.frozen
class ContactCreate:
    """A new contact. `phone` is required when `type` is `whatsapp` or `telegram`."""

    name: Name
    type: ContactType
    phone: Phone | None = None
    email: Email | None = None
    tags: Titles = attrs.field(default=(), metadata={"description": "Tag titles; missing tags are created."})
    status: ContactStatus = "active"
    company: ShortText | None = None
    address: LongText | None = None
    country_id: CountryId | None = None

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["anyOf"] = [
            {"properties": {"type": {"enum": _PHONE_OPTIONAL}}},
            {"required": ["phone"], "properties": {"phone": {"type": "string"}}},
        ]
        return schema


@structures_into(ContactPatch)
@attrs.frozen
class ContactUpdate:
    """Any subset of the create fields; fields left out keep their value. `tags` replaces the contact's tags.

    The result must still be a valid contact: a `whatsapp` or `telegram` contact keeps a phone.
    """

    name: Name | Unset = UNSET
    type: ContactType | Unset = UNSET
    phone: Phone | Unset | None = UNSET
    email: Email | Unset | None = UNSET
    tags: Titles | Unset = UNSET
    status: ContactStatus | Unset = UNSET
    company: ShortText | Unset | None = UNSET
    address: LongText | Unset | None = UNSET
    country_id: CountryId | Unset | None = UNSET

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        # Not (type needs a phone and phone is null).
        schema["anyOf"] = [
            {"properties": {"type": {"enum": _PHONE_OPTIONAL}}},
            {"properties": {"phone": {"type": "string"}}},
        ]
        return schema


@renders(domain.Contact)
@attrs.frozen
class Contact:
    """A contact (SPEC 2). `source`, `company`, `address`, `country_id` and `ai_agent_id` are additions to the
    SPEC fields."""

    id: int
    name: str
    email: str | None
    phone: str | None
    type: ContactType
    status: ContactStatus
    blacklisted: bool
    tags: tuple[str, ...] = attrs.field(metadata={"description": "Tag titles."})
    last_message_at: datetime | None
    created_at: datetime
    updated_at: datetime
    source: str
    company: str | None
    address: str | None
    country_id: int | None
    ai_agent_id: int | None = attrs.field(
        metadata={
            "description": "The AI agent assigned to the contact (`POST /ai-agents/{id}/assign`; new contacts get "
            "the default agent), or null."
        }
    )


@structures_into(domain.ContactFilter)
@attrs.frozen
class ContactFilters:
    """Query filters of `GET /contacts`."""

    search: str | None = attrs.field(
        default=None, metadata={"description": "Case-insensitive substring of the name, e-mail or phone."}
    )
    type: ContactType | None = None
    blacklisted: bool | None = None
    tag: str | None = attrs.field(default=None, metadata={"description": "A tag title (any case)."})


@attrs.frozen
class Blacklist:
    """The blacklist flag of a contact after the toggle."""

    id: int
    blacklisted: bool


@attrs.frozen
class NoteCreate:
    """A note on a contact."""

    content: NoteContent


@renders(domain.Note)
@attrs.frozen
class Note:
    """A note on a contact."""

    id: int
    contact_id: int
    content: str
    created_at: datetime
    updated_at: datetime


def _assignment(body: TagAssign) -> TagAssignment:
    # The wire leaves the field out (UNSET); the core's assignment names the one given, None the other.
    return TagAssignment(
        tag_id=None if body.tag_id is UNSET else body.tag_id,
        title=None if body.title is UNSET else body.title,
    )


@structures_into(TagAssignment, _assignment)
@attrs.frozen
class TagAssign:
    """Exactly one of `tag_id` (an existing tag) or `title` (found or created, case-insensitively)."""

    tag_id: Id | Unset = UNSET
    title: Annotated[Title, Doc(example="VIP")] | Unset = UNSET

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        schema["oneOf"] = [{"required": ["tag_id"]}, {"required": ["title"]}]
        return schema


@attrs.frozen
class ListMembershipCreate:
    """The list to add the contact to."""

    list_id: Id


@attrs.frozen
class ListMembership:
    """A contact's membership of a list."""

    contact_id: int
    list_id: int


@attrs.frozen
class SegmentMembershipCreate:
    """The segment to add the contact to by hand."""

    segment_id: Id


@attrs.frozen
class SegmentMembership:
    """A contact's manual membership of a segment."""

    contact_id: int
    segment_id: int


@renders(domain.Member)
@attrs.frozen
class Member:
    """A member of a list or segment (SPEC 2)."""

    id: int
    name: str
    phone: str | None
    type: ContactType
