"""What every leased queue of the SQL adapter shares (the webhook delivery log, the jobs).

A claim is a lease: `leased_until` and a random `lease_token` per row, written by one atomic
statement; ending or extending a lease matches the row's id *and* its token, so a worker whose
lease ended (and was taken over) changes nothing. Claims go through `claiming`:

- PostgreSQL: `UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED)`, so workers on any number
  of machines claim disjoint batches without waiting for each other;
- SQLite: the same UPDATE with RETURNING (SQLite 3.35 or later) in a `BEGIN IMMEDIATE` transaction,
  which holds the database's single write lock: claims are serialised by construction.

`LeaseTransactions` opens each write (`engage_sql.group_commit.WriteTransactions`: on SQLite, in
the open group commit).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import ColumnElement, Engine, Select, String, func

from engage_sql.group_commit import WriteGroups, WriteTransactions

MIN_SQLITE_VERSION = (3, 35, 0)
"""UPDATE ... RETURNING."""


def random_token(dialect: str) -> ColumnElement[str]:
    """32 random hex digits, drawn by the database for each row the statement touches."""
    if dialect == "postgresql":
        return func.replace(func.gen_random_uuid().cast(String()), "-", "", type_=String())
    return func.lower(func.hex(func.randomblob(16)), type_=String())


def claiming(due: Select[Any], dialect: str) -> Select[Any]:
    """`due` (the ids to lease) as the claim's subquery: rows another worker is claiming are skipped
    on PostgreSQL; SQLite's write lock already serialises claims."""
    return due.with_for_update(skip_locked=True) if dialect == "postgresql" else due


class LeaseTransactions(WriteTransactions):
    """The write transactions of a leased queue (`WriteTransactions`), on a SQLite that has
    UPDATE ... RETURNING."""

    def __init__(self, engine: Engine, groups: WriteGroups | None, *, what: str) -> None:
        if engine.dialect.name == "sqlite" and sqlite3.sqlite_version_info < MIN_SQLITE_VERSION:
            raise RuntimeError(
                f"the {what} needs SQLite {'.'.join(map(str, MIN_SQLITE_VERSION))} or later "
                f"(UPDATE ... RETURNING); this Python has {sqlite3.sqlite_version}"
            )
        super().__init__(engine, groups)
