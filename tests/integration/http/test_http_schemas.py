"""The schema classes agree with the core: its constants, and the classes they render and stand for."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import get_args

import attrs
import pytest

from engage_core.contacts import model as domain
from engage_core.contacts.model import CONTACT_STATUSES, CONTACT_TYPES
from engage_core.contacts.segments import MATCH_MODES
from engage_http.areas import OPERATIONS
from engage_http.constraints import NOT_BLANK, WHITESPACE_CLASS
from engage_http.contacts.schemas import Contact
from engage_http.contacts.segment_schemas import Match
from engage_http.converter import RESPONSES, core_type, unstructure_hook
from engage_http.fields import ContactStatus, ContactType
from engage_http.operations import Operation


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


def test_a_domain_contact_renders_as_the_contact_schema_says() -> None:
    """`Contact`'s unstructure function renders a domain contact field for field, as the API shows it."""
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
        ai_agent_id=3,
    )

    assert unstructure_hook(Contact)(contact) == {
        "id": 7,
        "name": "Ada",
        "email": "ada@example.com",
        "phone": "+966501234567",
        "type": "whatsapp",
        "status": "active",
        "blacklisted": True,
        "tags": ("a", "B"),
        "last_message_at": "2026-01-02T03:04:05.000006Z",
        "created_at": "2026-01-01T00:00:00.000000Z",
        "updated_at": "2026-01-03T00:00:00.000000Z",
        "source": "api",
        "company": "Engines",
        "address": "London",
        "country_id": 826,
        "ai_agent_id": 3,
    }


@pytest.mark.parametrize(("core", "wire"), sorted(RESPONSES.items(), key=lambda pair: pair[1].__name__), ids=str)
def test_every_rendered_field_is_read_from_the_core_class(core: type, wire: type) -> None:
    """A response class renders a core class only with fields the core class has (or computes)."""
    missing = [
        f.name for f in attrs.fields(wire) if not hasattr(core, f.name) and f.name not in attrs.fields_dict(core)
    ]

    assert missing == []


@pytest.mark.parametrize("operation", [op for op in OPERATIONS if op.body is not None], ids=lambda op: op.operation_id)
def test_a_request_class_mapped_to_the_core_is_mapped_once(operation: Operation) -> None:
    """A body class stands for at most one core class, and that class is a core one."""
    core = core_type(operation.body)

    assert core is operation.body or (core is not None and core.__module__.startswith("engage_core."))
