"""Timestamps: stored as UTC, read back timezone-aware UTC with every microsecond."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.exc import StatementError

from engage_sql import Database
from engage_sql.types import _sqlite_bind

RIYADH = timezone(timedelta(hours=3))


def test_timestamp_round_trips_as_aware_utc_with_microseconds(database: Database, account: int) -> None:
    """A moment written in any time zone reads back as the same instant, in UTC, to the microsecond."""
    written = datetime(2026, 5, 6, 10, 11, 12, 345678, tzinfo=RIYADH)
    with database.uow.workspace(account) as uow:
        list_id = uow.lists.add("Newsletter", written).id
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        read = uow.lists.get(list_id)

    assert read is not None
    assert (read.created_at, read.created_at.tzinfo, read.created_at.microsecond) == (written, UTC, 345678)


def test_naive_timestamp_is_refused(database: Database, account: int) -> None:
    """A naive datetime is a bug in the caller, not something to guess about."""
    with database.uow.workspace(account) as uow, pytest.raises(StatementError, match="naive datetime"):
        uow.lists.add("Newsletter", datetime(2026, 5, 6, 10, 11, 12))


@given(
    st.datetimes(
        min_value=datetime(2, 1, 1),
        max_value=datetime(9998, 12, 31),
        timezones=st.sampled_from([UTC, RIYADH, timezone(timedelta(hours=-5, minutes=-30))]),
    )
)
def test_sqlite_text_is_the_fixed_width_utc_isoformat(moment: datetime) -> None:
    """SQLite stores every moment as `YYYY-MM-DD HH:MM:SS.ffffff` in UTC, so text order is time order."""
    assert _sqlite_bind(moment) == moment.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")
