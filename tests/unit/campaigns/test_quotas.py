"""Per-channel quotas: room left today and this week, and when it grows again."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from engage_core.campaigns.quotas import Quotas, parse_quotas

NOW = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)


def test_room_is_the_smaller_of_the_day_and_the_week() -> None:
    """With 8 of 10 used today and 95 of 100 this week, 2 more fit."""
    quotas = Quotas({"linkedin": 10}, {"linkedin": 100})

    room, _ = quotas.room("linkedin", {date(2026, 3, 10): 8, date(2026, 3, 5): 87}, NOW)

    assert room == 2


def test_a_full_day_opens_at_the_next_utc_midnight() -> None:
    """The daily quota reached: no room until tomorrow 00:00 UTC."""
    room, opens = Quotas({"whatsapp": 5}, {}).room("whatsapp", {date(2026, 3, 10): 5}, NOW)

    assert (room, opens) == (0, datetime(2026, 3, 11, tzinfo=UTC))


def test_a_full_week_opens_when_its_oldest_day_leaves_it() -> None:
    """100 sends on 5 March fill the week until 12 March."""
    room, opens = Quotas({}, {"linkedin": 100}).room("linkedin", {date(2026, 3, 5): 100}, NOW)

    assert (room, opens) == (0, datetime(2026, 3, 12, tzinfo=UTC))


def test_sends_older_than_a_week_do_not_count() -> None:
    """The week is today and the six days before."""
    room, _ = Quotas({}, {"linkedin": 100}).room("linkedin", {date(2026, 3, 3): 100}, NOW)

    assert room == 100


def test_no_quota_is_no_limit() -> None:
    """A channel without quotas (or 0) has unlimited room."""
    assert Quotas.unlimited().room("whatsapp", {date(2026, 3, 10): 10**6}, NOW)[0] is None


def test_the_setting_lists_channel_number_pairs() -> None:
    """`whatsapp=5000, linkedin=20` parses; an unknown channel is refused naming the setting."""
    assert parse_quotas("X", "whatsapp=5000, linkedin=20") == {"whatsapp": 5000, "linkedin": 20}
    with pytest.raises(ValueError, match="X"):
        parse_quotas("X", "fax=1")
