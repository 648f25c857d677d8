"""Schema migrations (Alembic), configured in code: the scripts ship inside the package."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

SCRIPT_LOCATION = Path(__file__).parent / "migrations"

_LOCK_KEY = 0x656E67616765  # "engage": one PostgreSQL advisory lock for every migrating process


def alembic_config(connection: Connection | None = None, script_location: Path = SCRIPT_LOCATION) -> Config:
    """An Alembic `Config` for our scripts; with `connection`, migrations run on it, in its transaction."""
    config = Config()
    config.set_main_option("script_location", str(script_location).replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision(script_location: Path = SCRIPT_LOCATION) -> str:
    """The latest revision of our scripts (reads every script: call it once, not per request)."""
    head = ScriptDirectory.from_config(alembic_config(script_location=script_location)).get_current_head()
    if head is None:
        raise RuntimeError(f"no migration scripts in {script_location}")
    return head


def stored_revision(connection: Connection) -> str | None:
    """The revision the database is at; None when it was never migrated."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine: Engine, script_location: Path = SCRIPT_LOCATION) -> list[str]:
    """Apply every pending migration in one transaction; the revisions applied, oldest first."""
    applied: list[str] = []
    with engine.connect() as connection, _sqlite_foreign_keys_deferred(connection), connection.begin():
        # SQLite: BEGIN IMMEDIATE, so concurrent upgrades queue. PostgreSQL: several processes may
        # start at once; the first migrates, the others wait here and then find nothing to do.
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_LOCK_KEY})")
        config = alembic_config(connection, script_location)
        config.attributes["applied"] = applied
        command.upgrade(config, "head")
        if connection.dialect.name == "sqlite":
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
            if broken:
                raise RuntimeError(f"migration left rows that break foreign keys: {broken[:5]}")
    return applied


def downgrade(engine: Engine, revision: str, script_location: Path = SCRIPT_LOCATION) -> None:
    """Undo migrations down to `revision` (`"base"`: all) in one transaction. On SQLite with foreign
    keys deferred as in `upgrade`, so rebuilding a parent table does not cascade-delete its children."""
    with engine.connect() as connection, _sqlite_foreign_keys_deferred(connection), connection.begin():
        command.downgrade(alembic_config(connection, script_location), revision)


@contextmanager
def _sqlite_foreign_keys_deferred(connection: Connection) -> Iterator[None]:
    """SQLite's own recipe for schema changes: foreign keys off, checked before commit, then on again.

    A batch migration rebuilds a table by copying it and dropping the original; with foreign keys
    on, that DROP would cascade-delete every child row. The pragma only works outside a
    transaction, hence on the driver connection, before SQLAlchemy begins.
    """
    if connection.dialect.name != "sqlite":
        yield
        return
    driver = connection.connection.driver_connection
    assert driver is not None
    driver.execute("PRAGMA foreign_keys=OFF")
    try:
        yield
    finally:
        driver.execute("PRAGMA foreign_keys=ON")
