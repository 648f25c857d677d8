"""Statements that differ in spelling between SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Join, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import Insert
from sqlalchemy.sql.functions import FunctionElement


def insert_or_ignore(connection: Connection, table: Table, conflict: Sequence[str] = ()) -> Insert:
    """`INSERT ... ON CONFLICT (conflict) DO NOTHING`: a duplicate is skipped, not an error. With
    no `conflict` columns, a duplicate of any unique index is skipped.

    Needed because on PostgreSQL a failed statement poisons the whole transaction; this also
    keeps concurrent inserts of the same key safe (the loser waits, then skips).
    """
    if connection.dialect.name == "postgresql":
        return postgresql.insert(table).on_conflict_do_nothing(index_elements=list(conflict) or None)
    return sqlite.insert(table).on_conflict_do_nothing(index_elements=list(conflict) or None)


def upsert(connection: Connection, table: Table, conflict: Sequence[str], update: Sequence[str]) -> Insert:
    """`INSERT ... ON CONFLICT (conflict) DO UPDATE SET column = excluded.column` for `update`."""
    if connection.dialect.name == "postgresql":
        pg = postgresql.insert(table)
        return pg.on_conflict_do_update(index_elements=list(conflict), set_={c: pg.excluded[c] for c in update})
    lite = sqlite.insert(table)
    return lite.on_conflict_do_update(index_elements=list(conflict), set_={c: lite.excluded[c] for c in update})


def is_unique_violation(error: IntegrityError) -> bool:
    """Whether the driver reported a UNIQUE violation (SQLSTATE 23505 on PostgreSQL)."""
    original = error.orig
    return getattr(original, "sqlstate", None) == "23505" or "UNIQUE constraint failed" in str(original)


class json_array_agg(FunctionElement[Any]):
    """An aggregate of the values of `expression` as a JSON array: `json_group_array` on SQLite,
    `json_agg` on PostgreSQL. Over no rows it is NULL on both (so a reader parses no empty arrays)."""

    inherit_cache = True
    name = "json_array_agg"


@compiles(json_array_agg, "sqlite")
def _json_array_agg_sqlite(element: json_array_agg, compiler: SQLCompiler, **kw: Any) -> str:
    return f"NULLIF(json_group_array({compiler.process(element.clauses, **kw)}), '[]')"


@compiles(json_array_agg, "postgresql")
def _json_array_agg_postgresql(element: json_array_agg, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_agg({compiler.process(element.clauses, **kw)})"


class outer_loop_join(Join):
    """`left JOIN right ON onclause`, which SQLite runs with `left` as the outer loop (it writes
    `CROSS JOIN`, SQLite's way of fixing the order of a join): for a query whose few rows come from
    an index of `left` while `right` has an index in the order asked for, which SQLite, without
    statistics, would rather walk whole. `left` is a table. Elsewhere an ordinary join: PostgreSQL
    chooses from its statistics."""

    inherit_cache = True


@compiles(outer_loop_join, "sqlite")
def _outer_loop_join_sqlite(element: outer_loop_join, compiler: SQLCompiler, **kw: Any) -> str:
    assert isinstance(element.left, Table), "the outer loop is a table, whose name has no JOIN in it"
    left, join, rest = _join(element, compiler, **kw).partition(" JOIN ")
    return f"{left} CROSS{join}{rest}"


@compiles(outer_loop_join)
def _outer_loop_join_default(element: outer_loop_join, compiler: SQLCompiler, **kw: Any) -> str:
    return _join(element, compiler, **kw)


def _join(element: Join, compiler: SQLCompiler, **kw: Any) -> str:
    """The join as SQLAlchemy writes any join."""
    text: str = compiler.visit_join(element, **kw)  # type: ignore[no-untyped-call]
    return text
