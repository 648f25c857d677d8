"""Plain value factories for the pure rule tests (no storage, no services)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engage_core.contacts import Contact

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""Where every FakeClock of the unit tests starts."""


def contact_entity(**overrides: Any) -> Contact:
    """A Contact value with every field settable; defaults describe an ordinary whatsapp contact."""
    fields: dict[str, Any] = {
        "id": 1,
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "phone": "+966501234567",
        "type": "whatsapp",
        "status": "active",
        "blacklisted": False,
        "tags": (),
        "last_message_at": None,
        "created_at": START,
        "updated_at": START,
    }
    fields.update(overrides)
    return Contact(**fields)
