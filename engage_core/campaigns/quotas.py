"""Per-channel send quotas of campaigns: at most so many campaign messages a day and a week per
workspace and channel, so that a large campaign never trips a network's own limits (WhatsApp
messaging tiers, LinkedIn's weekly invitation cap).

A day is a UTC calendar day; a week is the rolling seven days ending today (today and the six
before). A send that a quota holds back is not a failure: the recipient stays `pending` and the
campaign's job waits until the quota has room again (the next UTC midnight, or the day the oldest
counted day leaves the week). `ENGAGE_CAMPAIGN_DAILY_QUOTAS` and `ENGAGE_CAMPAIGN_WEEKLY_QUOTAS`
override the defaults per channel (`whatsapp=5000,linkedin=20`; `0` lifts the quota).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta

import attrs

from engage_core.campaigns.model import CAMPAIGN_CHANNELS

DAILY_DEFAULTS: Mapping[str, int] = {"whatsapp": 1000, "telegram": 1000, "instagram": 100, "linkedin": 50}
WEEKLY_DEFAULTS: Mapping[str, int] = {"whatsapp": 5000, "telegram": 5000, "instagram": 500, "linkedin": 100}
WEEK_DAYS = 7


@attrs.frozen
class Quotas:
    """The daily and weekly quota of each channel (a missing channel, or 0: none)."""

    daily: Mapping[str, int] = attrs.field(factory=lambda: dict(DAILY_DEFAULTS))
    weekly: Mapping[str, int] = attrs.field(factory=lambda: dict(WEEKLY_DEFAULTS))

    @classmethod
    def unlimited(cls) -> Quotas:
        return cls({}, {})

    @classmethod
    def from_settings(cls, daily: str, weekly: str) -> Quotas:
        """The defaults, overridden by the settings' `channel=number` lists. Raises ValueError."""
        return cls(
            {**DAILY_DEFAULTS, **parse_quotas("ENGAGE_CAMPAIGN_DAILY_QUOTAS", daily)},
            {**WEEKLY_DEFAULTS, **parse_quotas("ENGAGE_CAMPAIGN_WEEKLY_QUOTAS", weekly)},
        )

    def room(self, channel: str, counts: Mapping[date, int], now: datetime) -> tuple[int | None, datetime]:
        """How many more sends the channel's quotas allow now (None: no quota), and when the room
        grows next (for a wait when it is 0). `counts`: the sends per day of the last week."""
        today = now.astimezone(UTC).date()
        rooms: list[int] = []
        opens = _midnight(today + timedelta(days=1))
        daily, weekly = self.daily.get(channel, 0), self.weekly.get(channel, 0)
        if daily > 0:
            rooms.append(daily - counts.get(today, 0))
        if weekly > 0:
            first = today - timedelta(days=WEEK_DAYS - 1)
            used = sum(n for day, n in counts.items() if day >= first)
            left = weekly - used
            rooms.append(left)
            if left <= 0:  # room comes back when the oldest day with sends leaves the week
                oldest = min((day for day, n in counts.items() if day >= first and n > 0), default=today)
                opens = max(opens, _midnight(oldest + timedelta(days=WEEK_DAYS)))
        if not rooms:
            return None, now
        return max(0, min(rooms)), opens


def week_usage(counts: Mapping[date, int], now: datetime) -> int:
    """The sends of the rolling week ending today, of `counts` (the sends per day)."""
    first = first_counted_day(now)
    return sum(n for day, n in counts.items() if day >= first)


def first_counted_day(now: datetime) -> date:
    """The first day whose sends the quotas read (the start of the rolling week)."""
    return now.astimezone(UTC).date() - timedelta(days=WEEK_DAYS - 1)


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0), tzinfo=UTC)


def parse_quotas(setting: str, raw: str) -> dict[str, int]:
    """`whatsapp=1000,linkedin=20` as a mapping. Raises ValueError naming the setting."""
    found: dict[str, int] = {}
    for part in (p.strip() for p in raw.split(",")):
        if not part:
            continue
        channel, _, number = part.partition("=")
        channel = channel.strip().lower()
        if channel not in CAMPAIGN_CHANNELS or not number.strip().isdigit():
            raise ValueError(
                f"{setting} must list channel=number pairs (channels: {', '.join(CAMPAIGN_CHANNELS)}), not {raw!r}"
            )
        found[channel] = int(number)
    return found
