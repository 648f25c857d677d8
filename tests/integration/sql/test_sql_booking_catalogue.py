"""Booking types on SQL only: the schema's check of a duration (the rest is in
tests/contract/test_contract_bookings.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import insert
from sqlalchemy.exc import IntegrityError

from engage_sql import Database
from engage_sql.bookings.tables import booking_types

from .conftest import START


def test_the_schema_refuses_a_duration_beyond_a_day(database: Database, account: int) -> None:
    """`duration_minutes` is checked from 1 to 1440 by the table too."""
    row = {"account_id": account, "name": "Too long", "duration_minutes": 1441, "is_active": True}

    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(insert(booking_types).values(created_at=START, updated_at=START, **row))
