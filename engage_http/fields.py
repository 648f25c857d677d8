"""Value types shared by request and response classes, with the constraints the API enforces."""

from __future__ import annotations

from typing import Annotated

from engage_core.contacts import model as contacts_model
from engage_core.contacts.model import CONTACT_IDS_MAX
from engage_core.contacts.tags import TAGS_MAX, TITLE_MAX
from engage_http.constraints import Doc, Integer, Items, Text

MAX_ID = 999_999_999_999_999_999
"""The largest id the API resolves (18 digits): well inside a signed 64-bit column."""

ID_DIGITS = 18

Id = Annotated[int, Integer(minimum=1, maximum=MAX_ID)]
"""A reference to a resource by id."""

CountryId = Annotated[int, Integer(minimum=1, maximum=2_147_483_647)]
"""A country's id: stored in a 32-bit column, so bounded to its range (a larger one is a 422, not a 500)."""

Name = Annotated[str, Text(max_length=255, blank=False)]
Title = Annotated[str, Text(max_length=TITLE_MAX, blank=False)]
Titles = Annotated[tuple[Title, ...], Items(max_items=TAGS_MAX)]
"""Tag titles in one request: a contact's tags, or the tags one request assigns."""
ShortText = Annotated[str, Text(max_length=255)]
LongText = Annotated[str, Text(max_length=1000)]

E164_PATTERN = r"^\+[1-9][0-9]{6,14}$"
Phone = Annotated[
    str,
    Text(
        pattern=E164_PATTERN,
        format="phone",
        message="The {field} must be a valid international number in E.164 format.",
    ),
    Doc(
        description="An international number in E.164 form (`+`, country code, subscriber number) that is a "
        "valid number of that country (checked with libphonenumber).",
        example="+14155550123",
    ),
]

_NO_SPACE_OR_AT = r"[^@\x00\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"
EMAIL_PATTERN = rf"^{_NO_SPACE_OR_AT}@{_NO_SPACE_OR_AT}\.{_NO_SPACE_OR_AT}$"
Email = Annotated[
    str,
    Text(max_length=255, pattern=EMAIL_PATTERN, message="The {field} must be a valid email address."),
    Doc(example="ada@example.com"),
]

ContactIds = Annotated[tuple[Id, ...], Items(min_items=1, max_items=CONTACT_IDS_MAX)]
"""Contacts named in one request (members added, contacts assigned): at most `CONTACT_IDS_MAX`."""

ContactType = contacts_model.ContactType
"""The core's own Literal, so the wire's enum is its list (`CONTACT_TYPES`) and cannot drift."""
ContactStatus = contacts_model.ContactStatus
