"""`DriverSelect`: a prebuilt SELECT run straight on the driver's cursor of a SQLAlchemy connection.

Every request runs the API-key lookup, and every `GET /contacts` the page query. On SQLite,
SQLAlchemy's execution path (cache key, execution context, result metadata, `Row` objects) costs
more than SQLite takes to run either statement. A `DriverSelect` keeps what matters of it and skips
the rest:

- the SQL is compiled by SQLAlchemy, once per dialect (same text, same PostgreSQL bind casts);
- rows are converted by the result processors of the selected columns' own SQLAlchemy types for the
  dialect (timestamps, booleans, JSON), so they hold exactly what `Connection.execute` would give;
- driver errors are wrapped in SQLAlchemy's exceptions, as `Connection.execute` wraps them;
- it runs on the connection's own DBAPI connection, inside its open transaction.

Parameters are passed to the driver as given: use it only with values that need no bind processing
(integers and strings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
from sqlalchemy import Connection, Dialect, Select
from sqlalchemy.exc import DBAPIError

Row = tuple[Any, ...]


@attrs.frozen
class _Compiled:
    sql: str
    names: tuple[str, ...] | None  # positional parameter order, or None for named parameters
    processors: tuple[tuple[int, Callable[[Any], Any]], ...]  # (column index, processor)


class DriverSelect:
    """Runs `statement` on the driver's cursor; see the module docstring. Thread-safe."""

    def __init__(self, statement: Select[Any]) -> None:
        self._statement = statement
        self._compiled: dict[str, _Compiled] = {}

    def rows(self, connection: Connection, params: Mapping[str, Any]) -> Sequence[Row]:
        """Every row, converted as SQLAlchemy would convert it."""
        dialect = connection.dialect
        compiled = self._compiled.get(dialect.name) or self._compile(dialect)
        arguments: Any = params if compiled.names is None else tuple([params[name] for name in compiled.names])
        dbapi_connection = connection.connection.driver_connection
        assert dbapi_connection is not None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(compiled.sql, arguments)
            rows: list[Any] = cursor.fetchall()
        except dialect.loaded_dbapi.Error as exc:
            raise DBAPIError.instance(compiled.sql, arguments, exc, dialect.loaded_dbapi.Error) from exc
        finally:
            cursor.close()
        if not compiled.processors:
            return rows
        converted = []
        for row in rows:
            values = list(row)
            for index, process in compiled.processors:
                values[index] = process(values[index])
            converted.append(tuple(values))
        return converted

    def first(self, connection: Connection, params: Mapping[str, Any]) -> Row | None:
        """The first row, or None."""
        rows = self.rows(connection, params)
        return rows[0] if rows else None

    def _compile(self, dialect: Dialect) -> _Compiled:
        compiled = self._statement.compile(dialect=dialect)
        processors = []
        for index, column in enumerate(self._statement.selected_columns):
            process = column.type.dialect_impl(dialect).result_processor(dialect, None)
            if process is not None:
                processors.append((index, process))
        names = tuple(compiled.positiontup) if compiled.positional and compiled.positiontup is not None else None
        result = _Compiled(sql=compiled.string, names=names, processors=tuple(processors))
        self._compiled[dialect.name] = result
        return result
