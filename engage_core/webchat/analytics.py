"""Web chat analytics (`GET /web-chat/analytics`): counts over the sessions started in a period.

Periods are read in the workspace's timezone: `today` since local midnight, `week` the last 7 local
days (today included), `month` the last 30, `year` the last 365. `chart_data` counts the sessions
started per local day (`YYYY-MM-DD`, every day of the period, oldest first), or per local hour for
`today` (`00:00` to `23:00`). Messages are those of the period's sessions; `system` notices are not
counted. A visitor is known by their e-mail, else phone, else IP, else the session itself.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import attrs

PERIODS: tuple[str, ...] = ("today", "week", "month", "year")
DEFAULT_PERIOD = "month"
_DAYS = {"week": 7, "month": 30, "year": 365}


@attrs.frozen
class SessionStat:
    """What analytics reads of one session."""

    created_at: datetime
    status: str
    has_visitor_messages: bool
    visitor: str


@attrs.frozen
class Analytics:
    total_chats: int
    engaged_chats: int
    active_chats: int
    completed_chats: int
    total_messages: int
    visitor_messages: int
    bot_messages: int
    avg_messages_per_chat: float
    unique_visitors: int
    chart_data: Mapping[str, int]


def period_start(period: str, now: datetime, timezone: str) -> datetime:
    """The first moment of `period` ending `now`, in the workspace's `timezone` (an aware datetime)."""
    zone = ZoneInfo(timezone)
    midnight = now.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight if period == "today" else midnight - timedelta(days=_DAYS[period] - 1)


def summarise(
    period: str,
    start: datetime,
    timezone: str,
    sessions: Sequence[SessionStat],
    messages_by_sender: Mapping[str, int],
) -> Analytics:
    """The analytics of `sessions` (those started since `start`) and their messages."""
    zone = ZoneInfo(timezone)
    statuses = Counter(s.status for s in sessions)
    counted = {k: v for k, v in messages_by_sender.items() if k != "system"}
    total_messages = sum(counted.values())
    if period == "today":
        chart = {f"{hour:02d}:00": 0 for hour in range(24)}
        for s in sessions:
            chart[f"{s.created_at.astimezone(zone).hour:02d}:00"] += 1
    else:
        first = start.astimezone(zone).date()
        chart = {(first + timedelta(days=d)).isoformat(): 0 for d in range(_DAYS[period])}
        for s in sessions:
            day = s.created_at.astimezone(zone).date().isoformat()
            if day in chart:
                chart[day] += 1
    return Analytics(
        total_chats=len(sessions),
        engaged_chats=sum(1 for s in sessions if s.has_visitor_messages),
        active_chats=statuses["active"],
        completed_chats=statuses["ended"],
        total_messages=total_messages,
        visitor_messages=counted.get("visitor", 0),
        bot_messages=counted.get("bot", 0),
        avg_messages_per_chat=round(total_messages / len(sessions), 2) if sessions else 0.0,
        unique_visitors=len({s.visitor for s in sessions}),
        chart_data=chart,
    )
