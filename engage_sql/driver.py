"""`DriverStatement`: a prebuilt statement run straight on the driver's cursor of a SQLAlchemy connection.

Every request runs the API-key lookup; every `POST /contacts` the contact insert, the counter
update and the outbox event, which queues its webhook deliveries; every turn of the delivery
worker's loop the queue's claim, lease check, record, retry and release. On SQLite, SQLAlchemy's execution path (cache
key, execution context, parameter processing, result metadata, `Row` objects) costs several times
what SQLite takes to run any of them. A `DriverStatement` keeps what matters of it and skips the rest:

- the SQL is compiled by SQLAlchemy, once per dialect (same text, same PostgreSQL bind casts);
- parameters go through the bind processors of their own SQLAlchemy types for the dialect
  (timestamps, JSON, booleans), and so do the values written into the statement itself
  (`status == "pending"`, `.values(is_active=True)`), so the driver receives exactly what
  `Connection.execute` would pass;
- rows are converted by the result processors of the returned columns' types, so they hold exactly
  what `Connection.execute` would give (plain tuples, not `Row` objects);
- errors are wrapped in SQLAlchemy's exceptions, as `Connection.execute` wraps them (`StatementError`
  for a value a bind processor refuses or a parameter left out, `IntegrityError` and the like for
  the driver's errors);
- it runs on the connection's own DBAPI connection, inside its open transaction (beginning one,
  as `Connection.execute` does, when none is open);
- the `before_cursor_execute` and `after_cursor_execute` listeners of the connection and its engine
  see it, and a `retval=True` listener may rewrite it, as for `Connection.execute`. In place of an
  execution context they get a `ListenerContext`, the same object before and after, on which they
  may keep what they carry from one to the other (OpenTelemetry's SQLAlchemy tracing keeps its span).

`commit_with` sends statements together with COMMIT, for a caller that needs their rows only once
they are committed: on PostgreSQL, one round trip for all of them.

Every parameter is named with a `bindparam` (or is a value written into the statement); one left
out of `params` is an error, not a NULL. Expanding (`IN` over a list) and literal-execute parameters
are refused: their SQL changes with their values, so it cannot be compiled once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from sqlalchemy import Connection, Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.expression import Delete, Insert, Select, TextualSelect, Update

Row = tuple[Any, ...]


class ListenerContext:
    """What the cursor listeners of a `DriverStatement` get as its execution context: an object of no
    attributes, one per execution, on which a listener may set its own."""


Params = Mapping[str, Any]
Processor = Callable[[Any], Any]


@attrs.frozen
class _Compiled:
    sql: str
    arguments: Callable[[Params], Any]  # the driver's arguments, a tuple or a dict, from `params`
    results: tuple[tuple[int, Processor], ...]  # (column index, result processor)

    def driver_arguments(self, params: Params) -> Any:
        """`params` (and the defaults) bind-processed, in the form the driver takes."""
        try:
            return self.arguments(params)
        except Exception as exc:  # a value its type refuses, or a parameter left out
            raise StatementError(str(exc), self.sql, params, exc) from exc


class DriverStatement:
    """Runs `statement` on the driver's cursor; see the module docstring. Thread-safe."""

    def __init__(self, statement: Select[Any] | TextualSelect | Insert | Update | Delete) -> None:
        self._statement = statement
        self._compiled: dict[str, _Compiled] = {}

    @property
    def statement(self) -> Select[Any] | TextualSelect | Insert | Update | Delete:
        """The SQLAlchemy statement it runs."""
        return self._statement

    def rows(self, connection: Connection, params: Params) -> list[Row]:
        """Every row the statement returns (a SELECT, or RETURNING), converted as SQLAlchemy would."""
        rows, _ = self._run(connection, params, fetch=True)
        return rows

    def first(self, connection: Connection, params: Params) -> Row | None:
        """The first row, or None."""
        rows, _ = self._run(connection, params, fetch=True)
        return rows[0] if rows else None

    def execute(self, connection: Connection, params: Params) -> int:
        """Run a statement that returns no rows; the number of rows it changed."""
        _, rowcount = self._run(connection, params, fetch=False)
        return rowcount

    def inserted_id(self, connection: Connection, params: Params) -> int | None:
        """Run an INSERT of one row (`ON CONFLICT DO NOTHING` allowed); the new row's id, or None
        when it inserted nothing. With RETURNING, the id returned; without, the driver's
        `lastrowid` (SQLite's rowid, which an INTEGER PRIMARY KEY is): RETURNING costs SQLite a
        third of a small insert, as it collects the rows before handing them out."""
        if self._statement.exported_columns:
            row = self.first(connection, params)
            return None if row is None else int(row[0])
        compiled = self._compiled_for(connection.dialect)
        arguments = compiled.driver_arguments(params)
        _, rowcount, last_id = self._on_cursor(connection, compiled, arguments, many=False, fetch=False, last_id=True)
        return last_id if rowcount == 1 else None

    def execute_many(self, connection: Connection, params: Sequence[Params]) -> None:
        """Run a statement that returns no rows once per set of parameters (the driver's executemany)."""
        if not params:
            return
        compiled = self._compiled_for(connection.dialect)
        arguments = [compiled.driver_arguments(one) for one in params]
        self._on_cursor(connection, compiled, arguments, many=True, fetch=False)

    def rows_many(self, connection: Connection, params: Sequence[Params]) -> list[list[Row]]:
        """Run the statement once per set of parameters; the rows of each run, in order. On
        PostgreSQL in one round trip (psycopg's executemany pipelines the runs and keeps each
        run's rows); on SQLite, whose driver keeps no rows of an executemany, one run at a time."""
        if not params:
            return []
        if connection.dialect.name != "postgresql":
            return [self.rows(connection, one) for one in params]
        compiled = self._compiled_for(connection.dialect)
        arguments = [compiled.driver_arguments(one) for one in params]
        runs, _, _ = self._on_cursor(connection, compiled, arguments, many=True, fetch=True)
        return [_converted(compiled, rows) for rows in runs]

    def _compiled_for(self, dialect: Dialect) -> _Compiled:
        return self._compiled.get(dialect.name) or self._compile(dialect)

    def _run(self, connection: Connection, params: Params, *, fetch: bool) -> tuple[list[Row], int]:
        compiled = self._compiled_for(connection.dialect)
        rows, rowcount, _ = self._on_cursor(
            connection, compiled, compiled.driver_arguments(params), many=False, fetch=fetch
        )
        return _converted(compiled, rows), rowcount

    @staticmethod
    def _on_cursor(
        connection: Connection,
        compiled: _Compiled,
        arguments: Any,
        *,
        many: bool,
        fetch: bool,
        last_id: bool = False,
    ) -> tuple[list[Any], int, int | None]:
        """Execute on a cursor of the connection's DBAPI connection, around the cursor events; the
        fetched rows (driver values; with `many`, a list of them per run, psycopg's only), the row
        count and, with `last_id`, the cursor's `lastrowid`."""
        dialect = connection.dialect
        dbapi_connection = _in_transaction(connection)
        sql = compiled.sql
        events = _has_events(connection)
        if not events and not many:
            # The usual case, without listeners to hand a cursor to before it runs: the driver's own
            # shortcut (sqlite3 and psycopg both have `Connection.execute`) makes its cursor in C.
            try:
                cursor = dbapi_connection.execute(sql, arguments)
                return (cursor.fetchall() if fetch else []), cursor.rowcount, cursor.lastrowid if last_id else None
            except dialect.loaded_dbapi.Error as exc:
                raise DBAPIError.instance(
                    sql, arguments, exc, dialect.loaded_dbapi.Error, dialect=dialect, ismulti=many
                ) from exc
        cursor = dbapi_connection.cursor()
        context = ListenerContext() if events else None
        try:
            if events:
                for listener in connection.dispatch.before_cursor_execute:
                    sql, arguments = listener(connection, cursor, sql, arguments, context, many)
            rows: list[Any]
            if many and fetch:
                cursor.executemany(sql, arguments, returning=True)
                rows = [cursor.fetchall()]
                while cursor.nextset():
                    rows.append(cursor.fetchall())
            elif many:
                cursor.executemany(sql, arguments)
                rows = []
            else:
                cursor.execute(sql, arguments)
                rows = cursor.fetchall() if fetch else []
            rowcount: int = cursor.rowcount
            inserted: int | None = cursor.lastrowid if last_id else None
            if events:
                connection.dispatch.after_cursor_execute(connection, cursor, sql, arguments, context, many)
        except dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(
                sql, arguments, exc, dialect.loaded_dbapi.Error, dialect=dialect, ismulti=many
            ) from exc
        finally:
            cursor.close()
        return rows, rowcount, inserted

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self._statement.compile(dialect=dialect)
        if compiled.escaped_bind_names:
            raise ValueError(f"parameter names that need escaping: {sorted(compiled.escaped_bind_names)}")
        # Every parameter rendered (one per name: the same name may be bound twice, with one value).
        by_name = {name: parameter for parameter, name in compiled.bind_names.items()}
        defaults = {}
        binds = []
        for name, parameter in by_name.items():
            if parameter.expanding or parameter.literal_execute:
                raise ValueError(f"{name}: a DriverStatement takes no expanding or literal-execute parameters")
            if parameter.callable is not None:
                raise ValueError(f"{name}: a DriverStatement takes no parameter computed at execution")
            if not parameter.required:
                defaults[name] = parameter.value
            process = parameter.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                binds.append((name, process))
        results = []
        for index, column in enumerate(self._statement.exported_columns):  # RETURNING's, for DML
            process = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if process is not None:
                results.append((index, process))
        order = tuple(compiled.positiontup or ()) if compiled.positional else None
        result = _Compiled(
            sql=compiled.string,
            arguments=_arguments(tuple(by_name), order, defaults, dict(binds)),
            results=tuple(results),
        )
        self._compiled[dialect.name] = result
        return result


def commit_with(connection: Connection, runs: Sequence[tuple[DriverStatement, Params]]) -> list[Row | None]:
    """Run each statement in order, then commit the connection's transaction; the first row of each
    (None for one that returned none). On PostgreSQL the statements and COMMIT go in one round trip
    (psycopg's pipeline mode). When a statement fails, the ones after it and COMMIT are skipped and
    its error raised, the transaction left failed for the caller to roll back."""
    if connection.dialect.name != "postgresql":
        firsts = [statement.first(connection, params) for statement, params in runs]
        connection.commit()
        return firsts
    compiled = [(statement._compiled_for(connection.dialect), params) for statement, params in runs]
    batch = [(one, one.driver_arguments(params)) for one, params in compiled]
    fetched = _pipelined_then_commit(connection, batch)
    connection.commit()  # SQLAlchemy's side of it: psycopg, idle now, sends nothing
    firsts = []
    for (one, _), rows in zip(batch, fetched, strict=True):
        converted = _converted(one, rows)
        firsts.append(converted[0] if converted else None)
    return firsts


def _in_transaction(connection: Connection) -> Any:
    """The connection's DBAPI connection (both drivers' own, not an adapter), in a transaction."""
    if not connection.in_transaction():
        # As `Connection.execute` autobegins: a statement after a commit opens the connection's
        # next transaction, so that its commit (or rollback) covers this statement too.
        connection.begin()
    dbapi_connection: Any = connection.connection.dbapi_connection
    assert dbapi_connection is not None
    return dbapi_connection


def _has_events(connection: Connection) -> bool:
    return bool(connection._has_events or connection.engine._has_events)  # as `Connection` itself checks


def _pipelined_then_commit(connection: Connection, batch: Sequence[tuple[_Compiled, Any]]) -> list[list[Row]]:
    """The driver rows of each statement of `batch`, run in order in one psycopg pipeline with COMMIT
    after them, all sent with a single Sync as the pipeline ends: one round trip. psycopg raises a
    failure where it first reads it (in the block or as the pipeline ends), and again as "pipeline
    aborted" at the end: that echo is dropped, not logged as a second error."""
    dialect = connection.dialect
    dbapi_connection = _in_transaction(connection)
    events = _has_events(connection)
    sent: list[tuple[Any, str, Any, ListenerContext | None]] = []  # cursor, sql, arguments, context
    failed: Exception | None = None
    try:
        try:
            with dbapi_connection.pipeline():
                try:
                    for compiled, arguments in batch:
                        cursor = dbapi_connection.cursor()
                        sql, context = compiled.sql, ListenerContext() if events else None
                        if events:
                            for listener in connection.dispatch.before_cursor_execute:
                                sql, arguments = listener(connection, cursor, sql, arguments, context, False)
                        sent.append((cursor, sql, arguments, context))
                        cursor.execute(sql, arguments)
                    dbapi_connection.execute("COMMIT")  # not `commit()`, which would sync once more
                except Exception as exc:
                    failed = exc
        except Exception:
            if failed is None:
                raise
        if failed is not None:
            raise failed
        fetched = [[] if cursor.description is None else cursor.fetchall() for cursor, _, _, _ in sent]
        if events:
            for cursor, sql, arguments, context in sent:
                connection.dispatch.after_cursor_execute(connection, cursor, sql, arguments, context, False)
    except dialect.loaded_dbapi.Error as exc:
        statements = ";\n".join(sql for _, sql, _, _ in sent)  # the driver does not say which one failed
        arguments = [arguments for _, _, arguments, _ in sent]
        raise DBAPIError.instance(statements, arguments, exc, dialect.loaded_dbapi.Error, dialect=dialect) from exc
    finally:
        for cursor, _, _, _ in sent:
            cursor.close()
    return fetched


def _converted(compiled: _Compiled, rows: list[Row]) -> list[Row]:
    """`rows` as the driver gave them, through the result processors of their columns' types."""
    if not compiled.results:
        return rows
    converted = []
    for row in rows:
        columns = list(row)
        for index, process in compiled.results:
            columns[index] = process(columns[index])
        converted.append(tuple(columns))
    return converted


def _arguments(
    names: tuple[str, ...],
    order: tuple[str, ...] | None,
    defaults: Mapping[str, Any],
    binds: Mapping[str, Processor],
) -> Callable[[Params], Any]:
    """A function of the parameters giving the driver's arguments: positional in `order` (a name may
    repeat) or, with no order, named; each value bind-processed, a default standing in for a
    parameter not given, KeyError for one left out. Generated once per statement and dialect as one
    expression: this runs for every statement of every request."""
    namespace: dict[str, Any] = {}
    values = {}
    for index, name in enumerate(names):
        if name in defaults:
            namespace[f"d{index}"] = defaults[name]
            value = f"params.get({name!r}, d{index})"
        else:
            value = f"params[{name!r}]"
        if name in binds:
            namespace[f"b{index}"] = binds[name]
            value = f"b{index}({value})"
        values[name] = value
    if order is None:
        body = "{" + ", ".join(f"{name!r}: {values[name]}" for name in names) + "}"
    else:
        body = "(" + "".join(f"{values[name]}, " for name in order) + ")"
    exec(f"def arguments(params):\n    return {body}\n", namespace)  # noqa: S102 (names are repr()'d)
    return namespace["arguments"]  # type: ignore[no-any-return]
