"""Dates in the docs' examples, moved into the future.

The docs are written as of `DOCS_TODAY` (Tuesday 1 December 2026): a booking "on Friday" is on
2026-12-04. Before a block runs, every `YYYY-MM-DD` in it (alone or in a timestamp) moves by the same
whole number of weeks, the fewest that put `DOCS_TODAY` at today or later, so weekdays, times of day
and offsets stay as written and the examples' future stays in the future.
"""

from __future__ import annotations

import datetime as dt
import re

DOCS_TODAY = dt.date(2026, 12, 1)

_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")


def weeks_ahead(today: dt.date) -> int:
    """How many weeks the examples move so that `DOCS_TODAY` is not in the past."""
    days = (today - DOCS_TODAY).days
    return max(0, -(-days // 7))


def shift(text: str, today: dt.date | None = None) -> str:
    """`text` with its dates moved `weeks_ahead(today)` weeks; text that is not a real date is left alone."""
    delta = dt.timedelta(weeks=weeks_ahead(today or dt.datetime.now(dt.UTC).date()))
    if not delta:
        return text

    def moved(match: re.Match[str]) -> str:
        try:
            day = dt.date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:  # 2026-02-30, an example of an invalid date
            return match[0]
        return (day + delta).isoformat()

    return _DATE.sub(moved, text)
