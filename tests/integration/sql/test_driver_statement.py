"""`DriverStatement`: statements run on the driver's cursor store and return exactly what SQLAlchemy would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from engage_sql import Database
from engage_sql.driver_statement import DriverStatement
from engage_sql.tables import accounts
from engage_sql.types import UTCDateTime

MOMENT = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)

_INSERT = insert(accounts).values(
    name=bindparam("name"),
    is_active=True,  # written into the statement, not passed
    allowed_origins=bindparam("origins"),
    key_digest=bindparam("digest"),
    key_hint="eng_",
    created_at=bindparam("at", type_=UTCDateTime()),
    updated_at=bindparam("at", type_=UTCDateTime()),
)
_INSERT_RETURNING = DriverStatement(
    _INSERT.returning(accounts.c.id, accounts.c.is_active, accounts.c.allowed_origins, accounts.c.created_at)
)
_RENAME = DriverStatement(
    update(accounts)
    .where(accounts.c.id == bindparam("account_id"), accounts.c.is_active)
    .values(name=bindparam("name"), updated_at=bindparam("at", type_=UTCDateTime()))
)
_STORED = "SELECT name, is_active, allowed_origins, key_hint, created_at, updated_at FROM accounts WHERE id = {}"


def _values(digest: str) -> dict[str, Any]:
    return {"name": "Zoë", "origins": ["https://a.example"], "digest": digest, "at": MOMENT}


def test_returned_rows_are_converted_by_the_column_types(database: Database) -> None:
    """RETURNING gives booleans, JSON and aware UTC timestamps, as `Connection.execute` would."""
    with database.engine.begin() as connection:
        [(account_id, is_active, origins, created_at)] = _INSERT_RETURNING.rows(connection, _values("d1"))
    assert isinstance(account_id, int)
    assert (is_active, origins, created_at) == (True, ["https://a.example"], MOMENT)
    assert created_at.tzinfo is UTC


def test_parameters_are_stored_exactly_as_sqlalchemy_stores_them(database: Database) -> None:
    """A row written through the driver and one written by `Connection.execute` hold the same raw values."""
    with database.engine.begin() as connection:
        [(driver_id, *_)] = _INSERT_RETURNING.rows(connection, _values("d1"))
        sqlalchemy_id = connection.execute(_INSERT.returning(accounts.c.id), _values("d2")).scalar_one()
        stored = [connection.exec_driver_sql(_STORED.format(int(n))).one() for n in (driver_id, sqlalchemy_id)]
    assert stored[0] == stored[1]


def test_execute_many_runs_once_per_set_of_parameters(database: Database) -> None:
    """Each set of parameters updates its own row; a condition written into the statement still applies."""
    with database.engine.begin() as connection:
        ids = [_INSERT_RETURNING.rows(connection, _values(f"d{n}"))[0][0] for n in range(3)]
        connection.execute(update(accounts).where(accounts.c.id == ids[2]).values(is_active=False))
        later = MOMENT + timedelta(days=1)
        _RENAME.execute_many(connection, [{"account_id": n, "name": f"Renamed {n}", "at": later} for n in ids])
        rows = connection.execute(select(accounts.c.name, accounts.c.updated_at).order_by(accounts.c.id)).all()
    assert [tuple(row) for row in rows] == [
        (f"Renamed {ids[0]}", later),
        (f"Renamed {ids[1]}", later),
        ("Zoë", MOMENT),
    ]


def test_a_driver_error_is_raised_as_sqlalchemys_exception(database: Database) -> None:
    """A constraint violation surfaces as `sqlalchemy.exc.IntegrityError`, as from `Connection.execute`."""
    with database.engine.begin() as connection:
        _INSERT_RETURNING.rows(connection, _values("same"))
        with pytest.raises(IntegrityError):
            _INSERT_RETURNING.rows(connection, _values("same"))


def test_an_expanding_parameter_is_refused(database: Database) -> None:
    """An `IN` over a list parameter, whose SQL depends on the list, cannot be prebuilt."""
    statement = DriverStatement(select(accounts.c.id).where(accounts.c.id.in_(bindparam("ids", expanding=True))))
    with database.engine.connect() as connection, pytest.raises(ValueError, match="expanding"):
        statement.rows(connection, {"ids": [1]})
