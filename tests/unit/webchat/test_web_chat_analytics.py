"""Web chat analytics' pure rules: periods in the workspace's timezone and the chart's buckets."""

from __future__ import annotations

from datetime import UTC, datetime

from engage_core.webchat.analytics import SessionStat, period_start, summarise

NOW = datetime(2026, 12, 1, 1, 30, tzinfo=UTC)  # 04:30 in Riyadh, still 30 November in Los Angeles


def test_today_starts_at_local_midnight() -> None:
    """`today` starts at midnight in the workspace's timezone, not UTC's."""
    assert period_start("today", NOW, "Asia/Riyadh") == datetime(2026, 11, 30, 21, 0, tzinfo=UTC)
    assert period_start("today", NOW, "America/Los_Angeles").date().isoformat() == "2026-11-30"


def test_week_covers_seven_local_days() -> None:
    """`week` is today and the six local days before it, one chart bucket each."""
    start = period_start("week", NOW, "Asia/Riyadh")
    stats = summarise("week", start, "Asia/Riyadh", [SessionStat(NOW, "active", True, "a")], {"visitor": 1})
    assert list(stats.chart_data) == [f"2026-11-{d}" for d in range(25, 31)] + ["2026-12-01"]
    assert stats.chart_data["2026-12-01"] == 1


def test_today_is_charted_per_local_hour() -> None:
    """`today`'s chart has 24 hourly buckets in local time; system notices are not messages."""
    start = period_start("today", NOW, "Asia/Riyadh")
    stats = summarise("today", start, "Asia/Riyadh", [SessionStat(NOW, "ended", False, "a")], {"system": 3, "bot": 1})
    assert len(stats.chart_data) == 24 and stats.chart_data["04:00"] == 1
    assert (stats.total_messages, stats.completed_chats, stats.engaged_chats) == (1, 1, 0)


def test_no_sessions_averages_zero() -> None:
    """Without sessions every count is zero and the average is 0.0."""
    start = period_start("month", NOW, "UTC")
    stats = summarise("month", start, "UTC", [], {})
    assert stats.avg_messages_per_chat == 0.0 and stats.total_chats == 0 and len(stats.chart_data) == 30
