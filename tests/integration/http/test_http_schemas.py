"""The schema classes agree with the core's constants."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import get_args

import attrs

from engage_core.contacts import model as domain
from engage_core.contacts.model import CONTACT_STATUSES, CONTACT_TYPES
from engage_core.contacts.segments import MATCH_MODES
from engage_http.constraints import NOT_BLANK, WHITESPACE_CLASS
from engage_http.contacts.schemas import Contact
from engage_http.contacts.segment_schemas import Match
from engage_http.converter import unstructure_hook
from engage_http.fields import ContactStatus, ContactType


def test_contact_types_match_the_core() -> None:
    """The `type` enum is the core's list of contact types."""
    assert get_args(ContactType) == CONTACT_TYPES


def test_contact_statuses_match_the_core() -> None:
    """The `status` enum is the core's list of statuses."""
    assert get_args(ContactStatus) == CONTACT_STATUSES


def test_match_modes_match_the_core() -> None:
    """The `match` enum is the core's list of match modes."""
    assert get_args(Match) == MATCH_MODES


def test_the_whitespace_class_is_exactly_what_strip_removes() -> None:
    """`WHITESPACE_CLASS` holds every character `str.isspace()` accepts, and no other."""
    import re
    import sys

    pattern = re.compile(f"[{WHITESPACE_CLASS}]")

    assert all(bool(pattern.match(chr(c))) == chr(c).isspace() for c in range(sys.maxunicode + 1))


def test_not_blank_matches_what_strip_keeps() -> None:
    """`NOT_BLANK` finds a character exactly when `str.strip()` leaves something."""
    import re

    for text in ["", " ", "\u3000\t", " a ", "\x1c", "\u200b"]:
        assert bool(re.search(NOT_BLANK, text)) == bool(text.strip()), repr(text)


def test_the_contact_schema_mirrors_the_domain_contact() -> None:
    """`GET /contacts` renders domain contacts with the schema's unstructure function: that needs
    the same fields, and gives the same body as rendering `Contact.from_domain`."""
    contact = domain.Contact(
        id=7,
        name="Ada",
        email="ada@example.com",
        phone="+966501234567",
        type="whatsapp",
        status="active",
        blacklisted=True,
        tags=("a", "B"),
        last_message_at=datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
        updated_at=datetime(2026, 1, 3, tzinfo=UTC),
        source="api",
        company="Engines",
        address="London",
        country_id=826,
    )
    render = unstructure_hook(Contact)

    assert [a.name for a in attrs.fields(Contact)] == [a.name for a in attrs.fields(domain.Contact)]
    assert render(contact) == render(Contact.from_domain(contact))
