"""Timestamps: UTC, ISO 8601 with microseconds and `Z`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_core.kernel.clock import SystemClock, format_optional, format_timestamp, parse_timestamp
from engage_core.testing import FakeClock

from ..factories import START


def test_format_uses_microseconds_and_z() -> None:
    """`format_timestamp` writes microseconds and a `Z` suffix."""
    assert format_timestamp(datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC)) == "2026-01-02T03:04:05.000006Z"


def test_format_converts_to_utc() -> None:
    """A moment in another zone is written as the same instant in UTC."""
    moment = datetime(2026, 1, 2, 5, 0, tzinfo=timezone(timedelta(hours=2)))
    assert format_timestamp(moment) == "2026-01-02T03:00:00.000000Z"


def test_format_optional_passes_none_through() -> None:
    """`format_optional(None)` is None."""
    assert format_optional(None) is None


def test_parse_takes_a_naive_value_as_utc() -> None:
    """A timestamp without an offset is read as UTC."""
    assert parse_timestamp("2026-01-02T03:04:05") == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_parse_converts_offsets_to_utc() -> None:
    """A timestamp with an offset comes back as the same instant in UTC."""
    parsed = parse_timestamp("2026-01-02T05:00:00+02:00")
    assert parsed == datetime(2026, 1, 2, 3, 0, tzinfo=UTC)
    assert parsed.tzinfo == UTC


def test_parse_rejects_garbage() -> None:
    """Text that is not ISO 8601 raises ValueError."""
    with pytest.raises(ValueError, match="Invalid isoformat"):
        parse_timestamp("yesterday")


@given(st.datetimes(min_value=datetime(1000, 1, 1), timezones=st.just(UTC)))
def test_format_then_parse_round_trips(moment: datetime) -> None:
    """Parsing a formatted timestamp gives back the same instant, to the microsecond."""
    assert parse_timestamp(format_timestamp(moment)) == moment


def test_format_pads_years_to_four_digits() -> None:
    """A year below 1000 is written with four digits, so the text parses back."""
    assert format_timestamp(datetime(999, 1, 1, tzinfo=UTC)) == "0999-01-01T00:00:00.000000Z"


def test_system_clock_is_utc_aware() -> None:
    """The real clock tells timezone-aware UTC time."""
    assert SystemClock().now().tzinfo == UTC


def test_fake_clock_stands_still() -> None:
    """A FakeClock returns the same moment until it is moved."""
    clock = FakeClock(START)
    assert clock.now() == clock.now() == START


def test_fake_clock_advances() -> None:
    """`advance(**timedelta_kwargs)` moves the clock forward and returns the new time."""
    clock = FakeClock(START)
    assert clock.advance(days=1, minutes=5) == START + timedelta(days=1, minutes=5)
    assert clock.now() == START + timedelta(days=1, minutes=5)


def test_fake_clock_can_be_set() -> None:
    """`set(moment)` puts the clock at that moment."""
    clock = FakeClock(START)
    clock.set(START - timedelta(days=3))
    assert clock.now() == START - timedelta(days=3)
