"""`DriverStatement`: a prebuilt statement run straight on the driver's cursor of a SQLAlchemy connection.

Every request runs the API-key lookup, and every `POST /contacts` the contact insert, the counter
update, the outbox event and the subscriptions query. On SQLite, SQLAlchemy's execution path (cache
key, execution context, parameter processing, result metadata, `Row` objects) costs several times
what SQLite takes to run any of them. A `DriverStatement` keeps what matters of it and skips the rest:

- the SQL is compiled by SQLAlchemy, once per dialect (same text, same PostgreSQL bind casts);
- parameters go through the bind processors of their own SQLAlchemy types for the dialect
  (timestamps, JSON, booleans), so the driver receives exactly what `Connection.execute` would pass;
- rows are converted by the result processors of the returned columns' types, so they hold exactly
  what `Connection.execute` would give;
- errors are wrapped in SQLAlchemy's exceptions, as `Connection.execute` wraps them (`StatementError`
  for a value a bind processor refuses, `IntegrityError` and the like for the driver's errors);
- it runs on the connection's own DBAPI connection, inside its open transaction;
- the engine's `before_cursor_execute` and `after_cursor_execute` listeners, if any, see it
  (without an execution context; listeners of a single connection do not).

Statements name every parameter with a typed `bindparam` (SELECT, UPDATE, or INSERT with explicit
`values`); a parameter left out of `params` is an error, not a NULL.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from sqlalchemy import Connection, Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.expression import Delete, Insert, Select, Update

Row = tuple[Any, ...]
Processor = Callable[[Any], Any]


@attrs.frozen
class _Compiled:
    sql: str
    names: tuple[str, ...]  # every parameter, in positional order where the driver's style is positional
    positional: bool
    binds: tuple[tuple[str, Processor], ...]  # (parameter, bind processor)
    results: tuple[tuple[int, Processor], ...]  # (column index, result processor)


class DriverStatement:
    """Runs `statement` on the driver's cursor; see the module docstring. Thread-safe."""

    def __init__(self, statement: Select[Any] | Insert | Update | Delete) -> None:
        self._statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def rows(self, connection: Connection, params: Mapping[str, Any]) -> Sequence[Row]:
        """Every row the statement returns (a SELECT, or RETURNING), converted as SQLAlchemy would."""
        rows, _ = self._run(connection, params, fetch=True)
        return rows

    def first(self, connection: Connection, params: Mapping[str, Any]) -> Row | None:
        """The first row, or None."""
        rows, _ = self._run(connection, params, fetch=True)
        return rows[0] if rows else None

    def execute(self, connection: Connection, params: Mapping[str, Any]) -> int:
        """Run a statement that returns no rows; the number of rows it changed."""
        _, rowcount = self._run(connection, params, fetch=False)
        return rowcount

    def _run(self, connection: Connection, params: Mapping[str, Any], *, fetch: bool) -> tuple[Sequence[Row], int]:
        dialect = connection.dialect
        compiled = self._compiled.get(dialect.name) or self._compile(dialect)
        values = dict(params)
        try:
            for name, process in compiled.binds:
                values[name] = process(values[name])
            arguments: Any = tuple([values[name] for name in compiled.names]) if compiled.positional else values
        except Exception as exc:  # a value its type refuses, or a parameter left out
            raise StatementError(str(exc), compiled.sql, params, exc) from exc
        dbapi_connection = connection.connection.driver_connection
        assert dbapi_connection is not None
        cursor = dbapi_connection.cursor()
        events = connection.engine.dispatch  # the engine's listeners (tracing, tests) see these statements too
        try:
            if events.before_cursor_execute:
                events.before_cursor_execute(connection, cursor, compiled.sql, arguments, None, False)
            cursor.execute(compiled.sql, arguments)
            rows: list[Any] = cursor.fetchall() if fetch else []
            rowcount: int = cursor.rowcount
            if events.after_cursor_execute:
                events.after_cursor_execute(connection, cursor, compiled.sql, arguments, None, False)
        except dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(compiled.sql, arguments, exc, dialect.loaded_dbapi.Error) from exc
        finally:
            cursor.close()
        if not compiled.results:
            return rows, rowcount
        converted = []
        for row in rows:
            columns = list(row)
            for index, process in compiled.results:
                columns[index] = process(columns[index])
            converted.append(tuple(columns))
        return converted, rowcount

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self._statement.compile(dialect=dialect)
        if compiled.escaped_bind_names:
            raise ValueError(f"parameter names that need escaping: {sorted(compiled.escaped_bind_names)}")
        binds = []
        for name, bind in compiled.binds.items():
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                binds.append((name, process))
        results = []
        returned = (
            self._statement.selected_columns
            if isinstance(self._statement, Select)
            else self._statement.exported_columns
        )
        for index, column in enumerate(returned):
            process = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if process is not None:
                results.append((index, process))
        positional = bool(compiled.positional)
        names = tuple(compiled.positiontup or ()) if positional else tuple(compiled.binds)
        result = _Compiled(
            sql=compiled.string, names=names, positional=positional, binds=tuple(binds), results=tuple(results)
        )
        self._compiled[dialect.name] = result
        return result
