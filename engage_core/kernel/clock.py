"""Time as a port: UTC everywhere, and one canonical text form on the wire."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Tells the current time. Always timezone-aware UTC."""

    def now(self) -> datetime:
        """The current moment, timezone-aware UTC."""


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        """The current moment from the system clock, in UTC."""
        return datetime.now(UTC)


def format_timestamp(moment: datetime) -> str:
    """ISO 8601 with microseconds and `Z`: `2026-01-02T03:04:05.000006Z`."""
    return utc_text(moment, "T") + "Z"


def utc_text(moment: datetime, separator: str) -> str:
    """`moment` in UTC as `YYYY-MM-DD<separator>HH:MM:SS.ffffff`: the wire's form (`T`, then `Z`)
    and SQLite's stored form (a space) alike. A naive moment is taken as local time."""
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    # Formatting the fields directly is about twice as fast as `isoformat(timespec=...)`, and every
    # write formats several timestamps.
    return "%04d-%02d-%02d%s%02d:%02d:%02d.%06d" % (  # noqa: UP031 - the fastest spelling
        moment.year,
        moment.month,
        moment.day,
        separator,
        moment.hour,
        moment.minute,
        moment.second,
        moment.microsecond,
    )


def format_optional(moment: datetime | None) -> str | None:
    """`format_timestamp`, passing `None` through."""
    return None if moment is None else format_timestamp(moment)


def parse_timestamp(text: str) -> datetime:
    """Parse an ISO 8601 timestamp; a naive value is taken as UTC. Raises ValueError."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError as exc:  # an offset that pushes the instant past year 1 or 9999
        raise ValueError(f"timestamp out of range: {text!r}") from exc
