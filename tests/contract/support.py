"""Helpers shared by the contract tests: the moment the clock starts at and the contact factory's type."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from engage_core.contacts.model import Contact

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
"""Where the `clock` fixture starts."""

MakeContact = Callable[..., Contact]
