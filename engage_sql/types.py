"""Column types shared by every table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeAlias

from sqlalchemy import BigInteger, DateTime, Dialect, Integer, Row
from sqlalchemy.types import TypeDecorator, TypeEngine

Id: TypeEngine[int] = BigInteger().with_variant(Integer(), "sqlite")
"""Primary and foreign keys: BIGINT on PostgreSQL; on SQLite only `INTEGER PRIMARY KEY` is the rowid."""


class UTCDateTime(TypeDecorator[datetime]):
    """A moment in time: stored as UTC, always read back timezone-aware UTC with microseconds.

    PostgreSQL keeps `timestamptz` (returned in the session time zone, so converted back to UTC).
    SQLite keeps naive UTC text of fixed width, which sorts and compares chronologically.
    Naive values are refused: the core only ever deals in aware UTC, and guessing would hide bugs.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: engage stores only timezone-aware moments")
        utc = value.astimezone(UTC)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        assert isinstance(value, datetime)
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


AnyRow: TypeAlias = Row[*tuple[Any, ...]]
"""A result row of any shape (what the `*_from_row` constructors take)."""
