"""Contacts, tags and segment rules (SPEC 2 Contact, Segment; SPEC 4 Contacts, Tags, Segments)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import attrs
from hypothesis import strategies as st

from engage_core.contacts.model import (
    CONTACT_STATUSES,
    CONTACT_TYPES,
    NAME_MAX,
    PHONE_REQUIRED_TYPES,
    ContactInput,
    ContactPatch,
)
from engage_core.contacts.segments import MATCH_MODES, MAX_CONDITIONS, MAX_VALUES
from engage_core.contacts.segments import NAME_MAX as SEGMENT_NAME_MAX
from engage_core.contacts.tags import TAGS_MAX, TITLE_MAX
from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.unset import UNSET

from ._text import blanks, broken, field, optional_texts, texts, too_long

phones = st.integers(0, 9_999_999).map(lambda n: f"+96650{n:07d}")
"""Valid mobile numbers in E.164 (`+96650` and seven digits). Ten million of them, so contacts drawn
apart rarely share one; a workspace allows one contact per phone and channel type."""

emails = st.builds(
    "{}@{}.example.com".format,
    st.text("abcdefghijklmnopqrstuvwxyz0123456789._-", min_size=1, max_size=20).filter(
        lambda local: local[0] not in "._-" and local[-1] not in "._-" and ".." not in local
    ),
    st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12),
)
"""Valid email addresses."""

bad_phones = st.sampled_from(["12ab", "+", "000", "phone", "+1 555"])
bad_emails = st.sampled_from(["ada", "ada@", "@example.com", "ada@@example.com", "a b@example.com"])


def tag_titles(*, invalid: bool = False) -> st.SearchStrategy[str]:
    """Tag titles (`POST /tags`, a contact's `tags`): trimmed, 1 to 100 characters; `invalid=True`
    draws blank and over-long ones."""
    if invalid:
        return blanks() | too_long(TITLE_MAX)
    return texts(TITLE_MAX)


def _tag_lists() -> st.SearchStrategy[list[str]]:
    return st.lists(tag_titles(), max_size=5)


@st.composite
def _valid_contact(draw: st.DrawFn) -> ContactInput:
    kind = draw(st.sampled_from(CONTACT_TYPES))
    phone = draw(phones) if kind in PHONE_REQUIRED_TYPES else draw(st.none() | phones)
    return ContactInput(
        name=draw(texts(NAME_MAX)),
        type=kind,
        phone=phone,
        email=draw(st.none() | emails),
        tags=draw(_tag_lists()),
        status=draw(st.sampled_from(CONTACT_STATUSES)),
        company=draw(optional_texts(255)),
        address=draw(optional_texts(1000)),
        country_id=draw(st.none() | st.integers(1, 250)),
    )


def contact_inputs(*, invalid: bool = False) -> st.SearchStrategy[ContactInput]:
    """`POST /contacts` bodies. Valid by default; `invalid=True` breaks one rule in each (blank or
    long name, unknown type or status, missing or malformed phone, malformed email, a blank or
    long tag, too many tags, a country id below 1): the service refuses every one with a 422."""
    valid = _valid_contact()
    if not invalid:
        return valid
    return broken(
        valid,
        field("name", blanks() | too_long(NAME_MAX)),
        field("type", st.sampled_from(["email", "sms", "WhatsApp", ""])),
        field("status", st.sampled_from(["blocked", "Active", ""])),
        field("phone", bad_phones),
        st.sampled_from(sorted(PHONE_REQUIRED_TYPES)).map(lambda kind: {"type": kind, "phone": None}),
        field("email", bad_emails),
        field("tags", st.lists(tag_titles(invalid=True), min_size=1, max_size=2)),
        field("tags", st.just([f"tag {n}" for n in range(TAGS_MAX + 1)])),
        field("country_id", st.integers(-5, 0)),
    )


@st.composite
def _valid_patch(draw: st.DrawFn) -> ContactPatch:
    # The channel type stays as it is: changing it to WhatsApp or Telegram would need a phone too.
    values: dict[str, Any] = {
        "name": draw(st.just(UNSET) | texts(NAME_MAX)),
        "email": draw(st.just(UNSET) | st.none() | emails),
        "tags": draw(st.just(UNSET) | _tag_lists()),
        "status": draw(st.just(UNSET) | st.sampled_from(CONTACT_STATUSES)),
        "company": draw(st.just(UNSET) | optional_texts(255)),
        "address": draw(st.just(UNSET) | optional_texts(1000)),
        "country_id": draw(st.just(UNSET) | st.none() | st.integers(1, 250)),
    }
    return ContactPatch(**values)


def contact_patches(*, invalid: bool = False) -> st.SearchStrategy[ContactPatch]:
    """`PUT /contacts/{id}` bodies: any subset of the fields (`UNSET` leaves one alone). Valid ones
    apply to any contact (they keep its channel type and phone); `invalid=True` breaks one rule."""
    valid = _valid_patch()
    if not invalid:
        return valid
    return broken(
        valid,
        field("name", blanks() | too_long(NAME_MAX)),
        field("type", st.sampled_from(["email", "sms", ""])),
        field("status", st.sampled_from(["blocked", ""])),
        field("phone", bad_phones),
        field("email", bad_emails),
        field("tags", st.lists(tag_titles(invalid=True), min_size=1, max_size=2)),
        field("country_id", st.integers(-5, 0)),
    )


@attrs.frozen
class SegmentRulesInput:
    """The fields of `POST /segments`, as `SegmentService.create` takes them."""

    name: str
    match: str = "all"
    conditions: tuple[dict[str, Any], ...] = ()
    description: str | None = None


def _condition(name: str, operators: tuple[str, ...], values: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.fixed_dictionaries({"field": st.just(name), "operator": st.sampled_from(operators), "value": values})


_moments = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1)).map(
    lambda moment: format_timestamp(moment.replace(tzinfo=UTC))
)
_days = st.integers(1, 36500)
_needles = texts(255, max_words=2)

segment_conditions = st.one_of(
    _condition("type", ("eq", "neq"), st.sampled_from(CONTACT_TYPES)),
    _condition("type", ("in", "not_in"), st.lists(st.sampled_from(CONTACT_TYPES), min_size=1, max_size=MAX_VALUES)),
    _condition("status", ("eq", "neq"), st.sampled_from(CONTACT_STATUSES)),
    _condition("blacklisted", ("eq",), st.booleans()),
    _condition("tag", ("has", "not_has"), tag_titles()),
    _condition("created_at", ("before", "after"), _moments),
    _condition("created_at", ("within_days", "older_than_days"), _days),
    _condition("last_message_at", ("before", "after"), _moments),
    _condition("last_message_at", ("within_days", "older_than_days"), _days),
    _condition("last_message_at", ("is_empty", "is_not_empty"), st.none()),
    _condition("name", ("contains",), _needles),
    _condition("email", ("contains",), _needles),
    _condition("email", ("is_empty", "is_not_empty"), st.none()),
    _condition("phone", ("contains",), _needles),
    _condition("phone", ("is_empty", "is_not_empty"), st.none()),
)
"""One valid condition of a segment's rules, as JSON gives it (`{"field", "operator", "value"}`)."""

bad_segment_conditions = st.one_of(
    _condition("color", ("eq",), st.just("red")),
    _condition("type", ("contains", "has"), st.sampled_from(CONTACT_TYPES)),
    _condition("type", ("eq",), st.sampled_from(["email", ""])),
    _condition("type", ("in",), st.just([])),
    _condition("blacklisted", ("eq",), st.sampled_from(["yes", 1, None])),
    _condition("created_at", ("within_days",), st.sampled_from([0, -1, 36501, "7"])),
    _condition("created_at", ("before",), st.sampled_from(["yesterday", "2026-13-01T00:00:00Z", 5])),
    _condition("name", ("contains",), blanks() | too_long(255)),
)
"""One condition the rules refuse: unknown field or operator, a value of the wrong type or range."""


def segment_rules(*, invalid: bool = False) -> st.SearchStrategy[SegmentRulesInput]:
    """`POST /segments` bodies: a name, `all`/`any` and up to ten conditions. `invalid=True` breaks
    one rule (blank or long name, unknown match, a bad condition, too many conditions)."""
    valid = st.builds(
        SegmentRulesInput,
        name=texts(SEGMENT_NAME_MAX),
        match=st.sampled_from(MATCH_MODES),
        conditions=st.lists(segment_conditions, max_size=10).map(tuple),
        description=optional_texts(1000),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("name", blanks() | too_long(SEGMENT_NAME_MAX)),
        field("match", st.sampled_from(["every", "ALL", ""])),
        field("conditions", st.lists(bad_segment_conditions, min_size=1, max_size=2).map(tuple)),
        field(
            "conditions", st.just(({"field": "status", "operator": "eq", "value": "active"},) * (MAX_CONDITIONS + 1))
        ),
    )
