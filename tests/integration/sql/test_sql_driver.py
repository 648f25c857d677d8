"""`DriverStatement`: statements on the driver's cursor behave exactly as `Connection.execute` would run them."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import Connection, Insert, bindparam, event, insert, select, text, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError, StatementError

from engage_sql import Database
from engage_sql.accounts.tables import account_counters, accounts
from engage_sql.driver import DriverStatement, commit_with
from engage_sql.types import Id, UTCDateTime
from engage_sql.webhooks.tables import events

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

COUNTER_PLUS = DriverStatement(
    update(account_counters)
    .where(account_counters.c.account_id == bindparam("account", type_=Id))
    .values(contacts=account_counters.c.contacts + bindparam("delta", type_=Id))
    .returning(account_counters.c.contacts)
)

ACCOUNT_VALUES = {
    "name": bindparam("name"),
    "is_active": True,  # written into the statement, not passed
    "allowed_origins": bindparam("origins"),
    "key_digest": bindparam("digest"),
    "key_hint": "eng_",
    "created_at": bindparam("at", type_=UTCDateTime()),
    "updated_at": bindparam("at", type_=UTCDateTime()),
}
INSERT_ACCOUNT = insert(accounts).values(ACCOUNT_VALUES)
INSERT_ACCOUNT_RETURNING = DriverStatement(
    INSERT_ACCOUNT.returning(accounts.c.id, accounts.c.is_active, accounts.c.allowed_origins, accounts.c.created_at)
)
RENAME = DriverStatement(
    update(accounts)
    .where(accounts.c.id == bindparam("account_id"), accounts.c.is_active)
    .values(name=bindparam("name"), updated_at=bindparam("at", type_=UTCDateTime()))
)
STORED = "SELECT name, is_active, allowed_origins, key_hint, created_at, updated_at FROM accounts WHERE id = {}"
NAMED = select(accounts.c.id).where(accounts.c.name == bindparam("name", "Acme"))  # a value written in


def _event(account: int, **changes: Any) -> dict[str, Any]:
    return {
        "account_id": account,
        "name": "contact.created",
        "payload": {"id": 7, "tags": ["VIP"], "email": None},
        "occurred_at": MOMENT,
        "created_at": MOMENT,
    } | changes


def _account(digest: str) -> dict[str, Any]:
    return {"name": "Zoë", "origins": ["https://a.example"], "digest": digest, "at": MOMENT}


def _taken_digest(database: Database) -> str:
    """A key digest an account already has (inserting it again is a unique violation)."""
    with database.engine.begin() as connection:
        INSERT_ACCOUNT_RETURNING.rows(connection, _account("taken"))
    return "taken"


def test_insert_binds_values_through_their_types(database: Database, account: int) -> None:
    """JSON and timestamps written on the driver's cursor read back through SQLAlchemy unchanged."""
    with database.uow.workspace(account) as uow:
        INSERT_EVENT.first(uow.connection, _event(account))
        (row,) = uow.connection.execute(EVENTS, {"account": account}).all()

    assert tuple(row) == ("contact.created", {"id": 7, "tags": ["VIP"], "email": None}, MOMENT)


def test_parameters_are_stored_exactly_as_sqlalchemy_stores_them(database: Database) -> None:
    """A row written on the driver's cursor and one written by `Connection.execute`, values written
    into the statement included, hold the same raw values."""
    with database.engine.begin() as connection:
        [(driver_id, *_)] = INSERT_ACCOUNT_RETURNING.rows(connection, _account("d1"))
        sqlalchemy_id = connection.execute(INSERT_ACCOUNT.returning(accounts.c.id), _account("d2")).scalar_one()
        stored = [connection.exec_driver_sql(STORED.format(int(n))).one() for n in (driver_id, sqlalchemy_id)]

    assert stored[0] == stored[1]


def test_returned_rows_are_converted_as_sqlalchemy_converts_them(database: Database) -> None:
    """RETURNING gives booleans, JSON and aware timestamps in UTC, as `Connection.execute` would."""
    with database.engine.begin() as connection:
        [(account_id, is_active, origins, created_at)] = INSERT_ACCOUNT_RETURNING.rows(connection, _account("d1"))

    assert isinstance(account_id, int)
    assert (is_active, origins, created_at, created_at.tzinfo) == (True, ["https://a.example"], MOMENT, UTC)


def test_select_rows_equal_those_of_connection_execute(database: Database, account: int) -> None:
    """A SELECT gives, row by row, the values `Connection.execute` gives."""
    statement = select(accounts.c.id, accounts.c.is_active, accounts.c.allowed_origins, accounts.c.created_at)
    with database.uow.admin(readonly=True) as uow:
        expected = [tuple(row) for row in uow.connection.execute(statement).all()]
        rows = DriverStatement(statement).rows(uow.connection, {})

    assert rows == expected


def test_a_textual_select_binds_and_converts_through_its_declared_types(database: Database, account: int) -> None:
    """SQL text with typed binds and declared columns gives the rows `Connection.execute` gives."""
    statement = (
        text("SELECT created_at, :at AS bound FROM accounts WHERE id = :account")
        .bindparams(bindparam("at", type_=UTCDateTime()), bindparam("account", type_=Id))
        .columns(created_at=UTCDateTime(), bound=UTCDateTime())
    )
    params = {"at": MOMENT, "account": account}
    with database.uow.admin(readonly=True) as uow:
        expected = [tuple(row) for row in uow.connection.execute(statement, params).all()]
        rows = DriverStatement(statement).rows(uow.connection, params)

    assert rows == expected and rows[0][1] == MOMENT and rows[0][1].tzinfo == UTC


def test_a_value_written_into_the_statement_gives_way_to_a_parameter(database: Database, make_account: Any) -> None:
    """As with `Connection.execute`, a parameter of the same name replaces a value written into the statement."""
    acme, other = make_account("Acme"), make_account("Other")
    with database.engine.connect() as connection:
        found = [DriverStatement(NAMED).rows(connection, params) for params in ({}, {"name": "Other"})]

    assert found == [[(acme,)], [(other,)]]


def test_execute_returns_the_number_of_rows_changed(database: Database, account: int) -> None:
    """An UPDATE reports how many rows it changed: one for the account's counter, none for no account."""
    with database.uow.workspace(account) as uow:
        changed = ADD.execute(uow.connection, {"account": account, "delta": 1})
        unchanged = ADD.execute(uow.connection, {"account": account + 1000, "delta": 1})

    assert (changed, unchanged) == (1, 0)


def test_execute_many_runs_once_per_set_of_parameters(database: Database) -> None:
    """Each set of parameters updates its own row; a condition written into the statement still applies."""
    with database.engine.begin() as connection:
        ids = [INSERT_ACCOUNT_RETURNING.rows(connection, _account(f"d{n}"))[0][0] for n in range(3)]
        connection.execute(update(accounts).where(accounts.c.id == ids[2]).values(is_active=False))
        later = MOMENT + timedelta(days=1)
        RENAME.execute_many(connection, [{"account_id": n, "name": f"Renamed {n}", "at": later} for n in ids])
        rows = connection.execute(select(accounts.c.name, accounts.c.updated_at).order_by(accounts.c.id)).all()

    assert [tuple(row) for row in rows] == [(f"Renamed {ids[0]}", later), (f"Renamed {ids[1]}", later), ("Zoë", MOMENT)]


def test_rows_many_gives_each_runs_own_rows_in_order(database: Database, make_account: Any) -> None:
    """`rows_many` runs once per set of parameters and returns each run's converted rows, empty ones kept."""
    first, second = make_account(), make_account()
    statement = DriverStatement(
        select(accounts.c.id, accounts.c.created_at).where(accounts.c.id == bindparam("account", type_=Id))
    )
    with database.uow.admin(readonly=True) as uow:
        runs = statement.rows_many(uow.connection, [{"account": second}, {"account": 0}, {"account": first}])
        expected = [statement.rows(uow.connection, {"account": account}) for account in (second, 0, first)]

    assert runs == expected and [len(rows) for rows in runs] == [1, 0, 1] and runs[0][0][1].tzinfo == UTC


def test_value_refused_by_its_type_raises_statement_error(database: Database, account: int) -> None:
    """A naive timestamp is refused before anything reaches the database, as `Connection.execute` refuses it."""
    with database.uow.workspace(account) as uow, pytest.raises(StatementError, match="naive datetime"):
        INSERT_EVENT.first(uow.connection, _event(account, occurred_at=datetime(2026, 5, 6)))


def test_missing_parameter_is_an_error(database: Database, account: int) -> None:
    """A parameter left out is an error, not a NULL."""
    params = _event(account)
    del params["name"]
    with database.uow.workspace(account) as uow, pytest.raises(StatementError, match="'name'"):
        INSERT_EVENT.first(uow.connection, params)


def test_driver_errors_are_wrapped_as_sqlalchemy_errors(database: Database) -> None:
    """A unique violation raises SQLAlchemy's IntegrityError, as `Connection.execute` does."""
    with database.engine.begin() as connection:
        INSERT_ACCOUNT_RETURNING.rows(connection, _account("same"))
        with pytest.raises(IntegrityError):
            INSERT_ACCOUNT_RETURNING.rows(connection, _account("same"))


def test_engine_cursor_listeners_see_each_execution(database: Database, account: int) -> None:
    """The engine's before and after cursor listeners see every execution, executemany flagged."""
    seen: list[tuple[str, str, bool]] = []

    def before(_conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, many: bool) -> None:
        seen.append(("before", statement.split()[0], many))

    def after(_conn: Any, _cursor: Any, statement: str, _params: Any, _context: Any, many: bool) -> None:
        seen.append(("after", statement.split()[0], many))

    event.listen(database.engine, "before_cursor_execute", before)
    event.listen(database.engine, "after_cursor_execute", after)
    try:
        with database.uow.workspace(account) as uow:
            ADD.execute(uow.connection, {"account": account, "delta": 1})
            ADD.execute_many(uow.connection, [{"account": account, "delta": 1}])
    finally:
        event.remove(database.engine, "before_cursor_execute", before)
        event.remove(database.engine, "after_cursor_execute", after)

    assert seen == [
        ("before", "UPDATE", False),
        ("after", "UPDATE", False),
        ("before", "UPDATE", True),
        ("after", "UPDATE", True),
    ]


def test_cursor_listeners_share_one_context_per_execution(database: Database, account: int) -> None:
    """The before listener may keep something on the context, and the after listener finds it there."""
    carried: list[object] = []

    def before(_conn: Any, _cursor: Any, _statement: str, _params: Any, context: Any, _many: bool) -> None:
        context.started = object()
        carried.append(context.started)

    def after(_conn: Any, _cursor: Any, _statement: str, _params: Any, context: Any, _many: bool) -> None:
        carried.append(context.started)

    event.listen(database.engine, "before_cursor_execute", before)
    event.listen(database.engine, "after_cursor_execute", after)
    try:
        with database.uow.workspace(account) as uow:
            ADD.execute(uow.connection, {"account": account, "delta": 1})
            ADD.execute(uow.connection, {"account": account, "delta": 1})
    finally:
        event.remove(database.engine, "before_cursor_execute", before)
        event.remove(database.engine, "after_cursor_execute", after)

    assert carried[0] is carried[1] and carried[2] is carried[3] and carried[0] is not carried[2]


def test_a_connections_own_listeners_see_the_statement(database: Database, account: int) -> None:
    """A listener of one connection sees the statements run on it, as it would through `Connection.execute`."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement.split()[0])

    with database.engine.begin() as connection:
        event.listen(connection, "before_cursor_execute", record)
        ADD.execute(connection, {"account": account, "delta": 1})

    assert seen == ["UPDATE"]


def test_a_retval_listener_rewrites_the_statement(database: Database, account: int) -> None:
    """A `retval=True` listener's statement is the one run, as with `Connection.execute`."""
    by_id = DriverStatement(select(accounts.c.id).where(accounts.c.id == bindparam("id", type_=Id)))

    def negate(_conn: Connection, _cursor: Any, statement: str, params: Any, *_args: Any) -> tuple[str, Any]:
        return statement.replace("WHERE", "WHERE NOT"), params

    with database.engine.connect() as connection:
        event.listen(connection, "before_cursor_execute", negate, retval=True)
        rows = by_id.rows(connection, {"id": account})

    assert rows == []


def test_statement_joins_the_unit_of_works_transaction(database: Database, account: int) -> None:
    """What a statement on the driver's cursor changed is rolled back with its unit of work."""
    with database.uow.workspace(account) as uow:
        ADD.execute(uow.connection, {"account": account, "delta": 5})
        # leaving without commit()

    with database.uow.workspace(account, readonly=True) as uow:
        assert uow.contacts.count() == 0


@pytest.mark.parametrize("kind", ["expanding", "literal_execute"])
def test_a_parameter_whose_sql_depends_on_its_value_is_refused(database: Database, kind: str) -> None:
    """An `IN` over a list, or a value rendered into the SQL, cannot be compiled once."""
    ids = bindparam("ids", **{kind: True})
    statement = DriverStatement(
        select(accounts.c.id).where(accounts.c.id.in_(ids) if kind == "expanding" else accounts.c.id == ids)
    )
    with database.engine.connect() as connection, pytest.raises(ValueError, match=kind.replace("_", "-")):
        statement.rows(connection, {"ids": [1] if kind == "expanding" else 1})


def test_moments_bound_one_after_another_each_keep_their_own_value(database: Database, account: int) -> None:
    """Binding the same moment again reuses its text; a different moment (even an equal one in
    another zone) is stored as itself."""
    later = MOMENT + timedelta(microseconds=1)
    same_instant_in_utc = MOMENT.astimezone(UTC)
    with database.uow.workspace(account) as uow:
        for occurred_at in (MOMENT, MOMENT, later, same_instant_in_utc, MOMENT):
            INSERT_EVENT.first(uow.connection, _event(account, occurred_at=occurred_at, created_at=MOMENT))
        stored = [row.occurred_at for row in uow.connection.execute(EVENTS, {"account": account})]

    assert stored == [MOMENT, MOMENT, later, MOMENT, MOMENT]


def _insert_account_once(dialect: str) -> Insert:
    """`INSERT_ACCOUNT`, doing nothing for a digest already stored."""
    insert_for = sqlite.insert if dialect == "sqlite" else postgresql.insert
    return insert_for(accounts).values(ACCOUNT_VALUES).on_conflict_do_nothing(index_elements=["key_digest"])


def test_inserted_id_is_the_id_returning_gives(database: Database) -> None:
    """With RETURNING, `inserted_id` is the new row's id, and None when ON CONFLICT inserted nothing."""
    with database.engine.begin() as connection:
        statement = DriverStatement(_insert_account_once(connection.dialect.name).returning(accounts.c.id))
        first, again = (statement.inserted_id(connection, _account("d1")) for _ in range(2))
        stored = connection.execute(select(accounts.c.id).where(accounts.c.key_digest == "d1")).scalar_one()

    assert (first, again) == (stored, None)


def test_inserted_id_without_returning_is_the_rowid(sqlite: None, database: Database) -> None:
    """Without RETURNING (SQLite), `inserted_id` is the new row's id from the cursor, and None when
    ON CONFLICT inserted nothing (the cursor's stale `lastrowid` is not taken for it)."""
    with database.engine.begin() as connection:
        statement = DriverStatement(_insert_account_once("sqlite"))
        first, again = (statement.inserted_id(connection, _account("d1")) for _ in range(2))
        stored = connection.execute(select(accounts.c.id).where(accounts.c.key_digest == "d1")).scalar_one()

    assert (first, again) == (stored, None)


def test_commit_with_commits_the_statement_with_the_transaction(database: Database, account: int) -> None:
    """The row comes back and both the statement and what the transaction wrote before it are committed."""
    with database.uow.workspace(account) as uow:
        INSERT_EVENT.rows(uow.connection, _event(account))
        rows = commit_with(uow.connection, [(COUNTER_PLUS, {"account": account, "delta": 2})])
        assert not uow.connection.in_transaction()

    with database.engine.connect() as connection:
        stored = connection.execute(select(account_counters.c.contacts).where(account_counters.c.account_id == account))
        written = len(connection.execute(EVENTS, {"account": account}).all())
        assert (rows, stored.scalar_one(), written) == ([(2,)], 2, 1)


def test_commit_with_runs_its_statements_in_order(database: Database, account: int) -> None:
    """Each statement sees the ones before it, and each gives its first row (None when it returns none)."""
    with database.uow.workspace(account) as uow:
        plus = {"account": account, "delta": 2}
        rows = commit_with(uow.connection, [(COUNTER_PLUS, plus), (ADD, plus), (COUNTER_PLUS, plus)])

    assert rows == [(2,), None, (6,)]


def test_a_statement_failing_in_commit_with_skips_the_ones_after_it(database: Database, account: int) -> None:
    """When the first statement fails, the second is not run and nothing is committed."""
    taken = _taken_digest(database)
    with database.uow.workspace(account) as uow, pytest.raises(IntegrityError):
        commit_with(
            uow.connection,
            [(INSERT_ACCOUNT_RETURNING, _account(taken)), (INSERT_EVENT, _event(account))],
        )

    with database.engine.connect() as connection:
        assert connection.execute(EVENTS, {"account": account}).all() == []


def test_a_statement_failing_before_its_commit_raises_itself_and_commits_nothing(
    database: Database, account: int, caplog: pytest.LogCaptureFixture
) -> None:
    """A failed statement raises its own error, the COMMIT is skipped, and nothing is logged about the skip."""
    taken = _taken_digest(database)
    with database.uow.workspace(account) as uow:
        INSERT_EVENT.rows(uow.connection, _event(account))
        with pytest.raises(IntegrityError):
            commit_with(uow.connection, [(INSERT_ACCOUNT_RETURNING, _account(taken))])

    with database.engine.connect() as connection:
        assert connection.execute(EVENTS, {"account": account}).all() == []
    assert [record for record in caplog.records if record.levelno >= logging.WARNING] == []
