"""`DriverStatement`: statements on the driver's cursor that behave as `Connection.execute` would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import bindparam, event, insert, select, update
from sqlalchemy.exc import IntegrityError, StatementError

from engage_sql import Database
from engage_sql.driver import DriverStatement
from engage_sql.tables import account_counters, accounts, events
from engage_sql.types import Id

RIYADH = timezone(timedelta(hours=3))
MOMENT = datetime(2026, 5, 6, 10, 11, 12, 345678, tzinfo=RIYADH)

_EVENT_COLUMNS = ("account_id", "name", "payload", "occurred_at", "created_at")
INSERT_EVENT = DriverStatement(
    insert(events)
    .values({name: bindparam(name, type_=events.c[name].type) for name in _EVENT_COLUMNS})
    .returning(events.c.id, events.c.payload, events.c.occurred_at)
)
EVENTS = select(events.c.name, events.c.payload, events.c.occurred_at).where(
    events.c.account_id == bindparam("account", type_=Id)
)
ADD = DriverStatement(
    update(account_counters)
    .where(account_counters.c.account_id == bindparam("account", type_=Id))
    .values(contacts=account_counters.c.contacts + bindparam("delta", type_=Id))
)


def _event(account: int, **changes: Any) -> dict[str, Any]:
    return {
        "account_id": account,
        "name": "contact.created",
        "payload": {"id": 7, "tags": ["VIP"], "email": None},
        "occurred_at": MOMENT,
        "created_at": MOMENT,
    } | changes


def test_insert_binds_values_through_their_types(database: Database, account: int) -> None:
    """JSON and timestamps written on the driver's cursor read back through SQLAlchemy unchanged."""
    with database.uow.workspace(account) as uow:
        INSERT_EVENT.first(uow.connection, _event(account))
        (row,) = uow.connection.execute(EVENTS, {"account": account}).all()

    assert tuple(row) == ("contact.created", {"id": 7, "tags": ["VIP"], "email": None}, MOMENT)


def test_returned_rows_are_converted_as_sqlalchemy_converts_them(database: Database, account: int) -> None:
    """RETURNING's JSON and timestamp columns come back as Python values, the timestamp in UTC."""
    with database.uow.workspace(account) as uow:
        row = INSERT_EVENT.first(uow.connection, _event(account))

    assert row is not None
    assert (row[1], row[2], row[2].tzinfo) == ({"id": 7, "tags": ["VIP"], "email": None}, MOMENT, UTC)


def test_select_rows_equal_those_of_connection_execute(database: Database, account: int) -> None:
    """A SELECT gives, row by row, the values `Connection.execute` gives."""
    statement = select(accounts.c.id, accounts.c.is_active, accounts.c.allowed_origins, accounts.c.created_at)
    with database.uow.admin(readonly=True) as uow:
        expected = [tuple(row) for row in uow.connection.execute(statement).all()]
        rows = DriverStatement(statement).rows(uow.connection, {})

    assert list(rows) == expected


def test_execute_returns_the_number_of_rows_changed(database: Database, account: int) -> None:
    """An UPDATE reports how many rows it changed: one for the account's counter, none for no account."""
    with database.uow.workspace(account) as uow:
        changed = ADD.execute(uow.connection, {"account": account, "delta": 1})
        unchanged = ADD.execute(uow.connection, {"account": account + 1000, "delta": 1})

    assert (changed, unchanged) == (1, 0)


def test_value_refused_by_its_type_raises_statement_error(database: Database, account: int) -> None:
    """A naive timestamp is refused before anything reaches the database, as `Connection.execute` refuses it."""
    with database.uow.workspace(account) as uow, pytest.raises(StatementError, match="naive datetime"):
        INSERT_EVENT.first(uow.connection, _event(account, occurred_at=datetime(2026, 5, 6)))


def test_missing_parameter_is_an_error(database: Database, account: int) -> None:
    """A parameter left out is an error, not a NULL."""
    params = _event(account)
    del params["name"]
    with database.uow.workspace(account) as uow, pytest.raises(StatementError):
        INSERT_EVENT.first(uow.connection, params)


def test_driver_errors_are_wrapped_as_sqlalchemy_errors(database: Database, account: int) -> None:
    """A constraint violation raises SQLAlchemy's IntegrityError, as `Connection.execute` does."""
    with database.uow.workspace(account) as uow, pytest.raises(IntegrityError):
        INSERT_EVENT.first(uow.connection, _event(account + 1000))  # no such account: foreign key


def test_engine_listeners_see_the_statement(database: Database, account: int) -> None:
    """Statements on the driver's cursor reach the engine's `before_cursor_execute` listeners."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(database.engine, "before_cursor_execute", record)
    try:
        with database.uow.workspace(account) as uow:
            ADD.execute(uow.connection, {"account": account, "delta": 1})
    finally:
        event.remove(database.engine, "before_cursor_execute", record)

    assert [s.split()[0] for s in seen] == ["UPDATE"]


def test_statement_joins_the_unit_of_works_transaction(database: Database, account: int) -> None:
    """What a statement on the driver's cursor changed is rolled back with its unit of work."""
    with database.uow.workspace(account) as uow:
        ADD.execute(uow.connection, {"account": account, "delta": 5})
        # leaving without commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.contacts.count() == 0
