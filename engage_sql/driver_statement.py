"""`DriverStatement`: a prebuilt statement (SELECT, or INSERT/UPDATE/DELETE with or without
RETURNING) run straight on the driver's cursor of a SQLAlchemy connection, parameters converted.

The delivery worker's queue runs a few statements per batch of attempts, several hundred batches a
second; through SQLAlchemy's execution path (cache key, execution context, parameter processing,
result metadata, `Row` objects) they cost several times what the database takes to run them.
Like `engage_sql.driver.DriverSelect`, a `DriverStatement` keeps what matters of that path:

- the SQL is compiled by SQLAlchemy, once per dialect (same text, same PostgreSQL bind casts);
- parameters go through the bind processors of their SQLAlchemy types for the dialect (so a
  `UTCDateTime` is stored exactly as `Connection.execute` stores it), and the values written into
  the statement itself (`status == "pending"`) are taken from it;
- rows are converted by the result processors of the returned columns' types (timestamps, JSON);
- driver errors are wrapped in SQLAlchemy's exceptions, as `Connection.execute` wraps them;
- it runs on the connection's own DBAPI connection, inside its open transaction.

Unlike `DriverSelect`, it converts parameters, so any value type works. Expanding (`IN`) parameters
are not supported: their SQL changes with the number of values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from sqlalchemy import Connection, Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.selectable import ExecutableReturnsRows

Row = tuple[Any, ...]
Params = Mapping[str, Any]


@attrs.frozen
class _Bind:
    name: str
    required: bool  # given at execution; otherwise `value`, fixed in the statement
    value: Any
    process: Callable[[Any], Any] | None


@attrs.frozen
class _Compiled:
    sql: str
    positional: bool  # the driver takes a tuple in `binds` order, else a dict by name
    binds: tuple[_Bind, ...]
    processors: tuple[tuple[int, Callable[[Any], Any]], ...]  # (column index, result processor)

    def arguments(self, params: Params) -> Any:
        values = []
        for bind in self.binds:
            value = params[bind.name] if bind.required else bind.value
            values.append(value if bind.process is None else bind.process(value))
        if self.positional:
            return tuple(values)
        return {bind.name: value for bind, value in zip(self.binds, values, strict=True)}


class DriverStatement:
    """Runs `statement` on the driver's cursor; see the module docstring. Thread-safe."""

    def __init__(self, statement: ExecutableReturnsRows) -> None:
        self._statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def execute(self, connection: Connection, params: Params) -> None:
        """Run the statement once."""
        self._run(connection, [params], many=False, fetch=False)

    def execute_many(self, connection: Connection, params: Sequence[Params]) -> None:
        """Run the statement once per set of parameters (the driver's executemany)."""
        if params:
            self._run(connection, params, many=True, fetch=False)

    def rows(self, connection: Connection, params: Params) -> list[Row]:
        """Run the statement once; every row it returns, converted as SQLAlchemy would convert it."""
        return self._run(connection, [params], many=False, fetch=True)

    def _run(self, connection: Connection, params: Sequence[Params], *, many: bool, fetch: bool) -> list[Row]:
        dialect = connection.dialect
        compiled = self._compiled.get(dialect.name) or self._compile(dialect)
        arguments = [compiled.arguments(one) for one in params]
        dbapi_connection = connection.connection.driver_connection
        assert dbapi_connection is not None
        cursor = dbapi_connection.cursor()
        try:
            if many:
                cursor.executemany(compiled.sql, arguments)
                return []
            cursor.execute(compiled.sql, arguments[0])
            rows: list[Row] = cursor.fetchall() if fetch else []
        except dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(compiled.sql, arguments, exc, dialect.loaded_dbapi.Error) from exc
        finally:
            cursor.close()
        if not compiled.processors:
            return [tuple(row) for row in rows]
        converted = []
        for row in rows:
            values = list(row)
            for index, process in compiled.processors:
                values[index] = process(values[index])
            converted.append(tuple(values))
        return converted

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self._statement.compile(dialect=dialect)
        by_name = {name: parameter for parameter, name in compiled.bind_names.items()}
        names = list(compiled.positiontup or []) if compiled.positional else list(by_name)
        binds = []
        for name in names:
            parameter = by_name[name]
            if parameter.expanding:
                raise ValueError(f"{name}: a DriverStatement takes no expanding parameters")
            process = parameter.type.dialect_impl(dialect).bind_processor(dialect)
            binds.append(_Bind(name, parameter.required, parameter.value, process))
        processors = []
        for index, column in enumerate(self._statement.exported_columns):  # RETURNING's, for DML
            process = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if process is not None:
                processors.append((index, process))
        result = _Compiled(compiled.string, compiled.positional, tuple(binds), tuple(processors))
        self._compiled[dialect.name] = result
        return result
