"""Online backups of an SQLite database: a consistent copy taken while engage runs.

SQLite's backup API copies the database page by page under its own locking, so commits still in the
write-ahead log are included and writers are not stopped for long. The copy is written to a temporary
file beside the target and renamed into place, so a failed backup never leaves a partial file where a
backup is expected.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from engage_sql.database import Database

PAGES_PER_STEP = 1024
"""Pages copied per step; between steps writers may commit (the copy restarts to include them)."""


class BackupUnsupported(ValueError):
    """The database is not one this command can copy (PostgreSQL has its own tools)."""


def backup_sqlite(database: Database, target: Path) -> None:
    """Copy `database` (SQLite) into `target`, atomically replacing it; BackupUnsupported otherwise."""
    if database.engine.dialect.name != "sqlite":
        raise BackupUnsupported("Only SQLite databases are backed up by engage; use pg_dump for PostgreSQL.")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    raw: Any = database.engine.raw_connection()
    try:
        source: sqlite3.Connection = raw.driver_connection
        copy = sqlite3.connect(partial)
        try:
            source.backup(copy, pages=PAGES_PER_STEP)
        finally:
            copy.close()
        os.replace(partial, target)
    finally:
        raw.close()
        partial.unlink(missing_ok=True)
