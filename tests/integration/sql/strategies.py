"""Hypothesis strategies for contacts and segment rules, chosen to hit the edges SQL gets wrong:
Unicode case folding, LIKE wildcards, NULL versus empty text, and instants on a boundary."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
from hypothesis import strategies as st

from engage_core.contacts.model import CONTACT_STATUSES, CONTACT_TYPES
from engage_core.kernel.clock import format_timestamp

NOW = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
TAGS = ("VIP", "Straße", "a_b", "50%", "new")
"""The tags each generated account has (distinct title keys)."""
TAG_VALUES = ("vip", " VIP ", "STRASSE", "strasse", "a_b", "axb", "50%", "New", "missing")
"""Titles conditions and filters look for: other spellings of the tags, and near misses."""
ALPHABET = "aAsSßK\u212a %_\\"  # ß->ss and the Kelvin sign->k: where lower() and casefold() differ
INSTANTS = (
    NOW,
    *(NOW - timedelta(days=d, microseconds=u) for d in (1, 2) for u in (-1, 0, 1)),
    NOW - timedelta(days=90),
)
"""Moments on and around the bounds of `within_days`/`older_than_days` 1 and 2, at microsecond resolution."""

texts = st.text(ALPHABET, max_size=5)
needles = st.sampled_from(["a", "A", "ss", "SS", "ß", "k", "K", "\u212a", "%", "_", "\\", "a_", "s%", "A a"])
"""What `contains` and `search` look for: case variants, LIKE wildcards, the escape character."""


@attrs.frozen
class ContactSpec:
    """A contact to store, with the manual segment override to give it."""

    name: str
    email: str | None
    has_phone: bool
    type: str
    status: str
    blacklisted: bool
    tags: frozenset[str]
    created_at: datetime
    last_message_at: datetime | None
    override: bool | None

    def phone(self, index: int) -> str | None:
        return f"+96650{index:07d}" if self.has_phone else None


contact_specs = st.builds(
    ContactSpec,
    name=texts.filter(bool),
    email=st.none() | st.just("") | texts,
    has_phone=st.booleans(),
    type=st.sampled_from(CONTACT_TYPES),
    status=st.sampled_from(CONTACT_STATUSES),
    blacklisted=st.booleans(),
    tags=st.frozensets(st.sampled_from(TAGS)),
    created_at=st.sampled_from(INSTANTS),
    last_message_at=st.none() | st.sampled_from(INSTANTS),
    override=st.sampled_from([None, True, False]),
)


def _condition(
    field: str, operators: tuple[str, ...], values: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"field": st.just(field), "operator": st.sampled_from(operators), "value": values})


_moments = st.sampled_from(INSTANTS).map(format_timestamp)
_days = st.integers(min_value=1, max_value=2)
_phone_parts = st.sampled_from(["+966", "50", "0000001", "9", "+1"])

raw_conditions = st.one_of(
    _condition("type", ("eq", "neq"), st.sampled_from(CONTACT_TYPES)),
    _condition("type", ("in", "not_in"), st.lists(st.sampled_from(CONTACT_TYPES), min_size=1, unique=True)),
    _condition("status", ("eq", "neq"), st.sampled_from(CONTACT_STATUSES)),
    _condition("blacklisted", ("eq",), st.booleans()),
    _condition("tag", ("has", "not_has"), st.sampled_from(TAG_VALUES)),
    _condition("created_at", ("before", "after"), _moments),
    _condition("created_at", ("within_days", "older_than_days"), _days),
    _condition("last_message_at", ("before", "after"), _moments),
    _condition("last_message_at", ("within_days", "older_than_days"), _days),
    _condition("last_message_at", ("is_empty", "is_not_empty"), st.none()),
    _condition("name", ("contains",), needles),
    _condition("email", ("contains",), needles),
    _condition("email", ("is_empty", "is_not_empty"), st.none()),
    _condition("phone", ("contains",), _phone_parts),
    _condition("phone", ("is_empty", "is_not_empty"), st.none()),
)
