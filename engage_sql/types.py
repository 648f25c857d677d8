"""Column types shared by every table."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeAlias

from sqlalchemy import BigInteger, DateTime, Dialect, Integer, Row
from sqlalchemy.types import TypeDecorator, TypeEngine

from engage_core.kernel.clock import utc_text

Id: TypeEngine[int] = BigInteger().with_variant(Integer(), "sqlite")
"""Primary and foreign keys: BIGINT on PostgreSQL; on SQLite only `INTEGER PRIMARY KEY` is the rowid."""

_fromisoformat = datetime.fromisoformat


class UTCDateTime(TypeDecorator[datetime]):
    """A moment in time: stored as UTC, always read back timezone-aware UTC with microseconds.

    PostgreSQL keeps `timestamptz` (returned in the session time zone, so converted back to UTC).
    SQLite keeps naive UTC text of fixed width (`2026-05-06 10:11:12.345678`, the format of
    SQLAlchemy's SQLite `DATETIME`), which sorts and compares chronologically.
    Naive values are refused: the core only ever deals in aware UTC, and guessing would hide bugs.

    On SQLite the bind and result processors are single functions (`_sqlite_bind`,
    `_sqlite_result`) instead of SQLAlchemy's composition of this decorator with `DATETIME`'s
    own processors: every row of a contact page carries three timestamps, and the composed path
    costs several times more per value. They produce and accept exactly the same text.
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

    def bind_processor(self, dialect: Dialect) -> Callable[[datetime | None], Any] | None:
        if dialect.name == "sqlite":
            return _sqlite_bind
        return super().bind_processor(dialect)

    def result_processor(self, dialect: Dialect, coltype: Any) -> Callable[[Any], datetime | None] | None:
        if dialect.name == "sqlite":
            return _sqlite_result
        return super().result_processor(dialect, coltype)


def _sqlite_bind(value: datetime | None) -> str | None:
    """An aware datetime as SQLite's fixed-width naive UTC text."""
    if value is None:
        return None
    if value.utcoffset() is None:
        raise ValueError(f"naive datetime {value!r}: engage stores only timezone-aware moments")
    return utc_text(value, " ")


def _sqlite_result(value: str | None) -> datetime | None:
    """SQLite's naive UTC text as an aware UTC datetime (`tzinfo is UTC`)."""
    if value is None:
        return None
    return _fromisoformat(value + "+00:00")


AnyRow: TypeAlias = Row[*tuple[Any, ...]]
"""A result row of any shape (what the `*_from_row` constructors take)."""
