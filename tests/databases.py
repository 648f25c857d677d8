"""Throwaway databases for tests: SQLite files, or PostgreSQL databases of their own.

Every test session (and every xdist worker) creates uniquely named databases and drops them at
the end, so runs never meet each other's rows. Migrating is the slow part, so each backend
migrates one template once and copies it: a file copy for SQLite, `CREATE DATABASE ... TEMPLATE`
for PostgreSQL. Copying is still far slower than emptying tables, so most tests share one
database per session and `wipe()` it first.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import Protocol

import sqlalchemy
from sqlalchemy.engine import make_url

from engage_core.plans.model import SEED_PLANS
from engage_sql import Database
from engage_sql.areas import metadata
from engage_sql.plans.plans import plan_row
from engage_sql.plans.tables import plans

POSTGRES_ENV = "ENGAGE_TEST_POSTGRES_URL"
"""A PostgreSQL server URL whose user may CREATE and DROP databases, e.g. `postgresql://postgres@127.0.0.1:5432/test`."""

BACKENDS = ("sqlite", "postgres")


def postgres_server_url() -> str | None:
    return os.environ.get(POSTGRES_ENV) or None


class TestDatabases(Protocol):
    """Creates and drops databases on one backend."""

    def create(self, *, migrated: bool = True) -> str:
        """The URL of a new, empty database; with every migration applied unless `migrated=False`."""

    def drop(self, url: str) -> None: ...

    def close(self) -> None:
        """Drop whatever is left, the template included."""


class SqliteDatabases:
    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._template: Path | None = None

    def create(self, *, migrated: bool = True) -> str:
        path = self._directory / f"engage-{uuid.uuid4().hex}.db"
        if migrated:
            shutil.copyfile(self._migrated_template(), path)
        return f"sqlite:///{path}"

    def drop(self, url: str) -> None:
        database = make_url(url).database
        assert database is not None
        for suffix in ("", "-wal", "-shm"):
            Path(database + suffix).unlink(missing_ok=True)

    def close(self) -> None:
        if self._template is not None:
            self.drop(f"sqlite:///{self._template}")

    def _migrated_template(self) -> Path:
        if self._template is None:
            path = self._directory / "template.db"
            database = Database.connect(f"sqlite:///{path}")
            database.upgrade()
            database.dispose()  # the last connection to close checkpoints the WAL into the file
            self._template = path
        return self._template


class PostgresDatabases:
    def __init__(self, server_url: str) -> None:
        self._server = make_url(server_url).set(drivername="postgresql+psycopg")
        self._admin = sqlalchemy.create_engine(
            self._server, isolation_level="AUTOCOMMIT", poolclass=sqlalchemy.NullPool
        )
        self._template: str | None = None
        self._created: set[str] = set()

    def create(self, *, migrated: bool = True) -> str:
        name = self._new_database(self._migrated_template() if migrated else None)
        return self._url(name)

    def drop(self, url: str) -> None:
        name = make_url(url).database
        assert name is not None
        with self._admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self._created.discard(name)

    def close(self) -> None:
        for name in list(self._created):
            self.drop(self._url(name))
        self._admin.dispose()

    def _url(self, name: str) -> str:
        return self._server.set(database=name).render_as_string(hide_password=False)

    def _new_database(self, template: str | None) -> str:
        name = f"engage_test_{uuid.uuid4().hex[:16]}"
        suffix = f' TEMPLATE "{template}"' if template else ""
        with self._admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"{suffix}')
        self._created.add(name)
        return name

    def _migrated_template(self) -> str:
        if self._template is None:
            name = self._new_database(None)
            database = Database.connect(self._url(name))
            database.upgrade()
            database.dispose()  # a template must have no connections when it is copied
            self._template = name
        return self._template


def open_test_databases(backend: str, directory: Path) -> TestDatabases:
    if backend == "sqlite":
        return SqliteDatabases(directory)
    server = postgres_server_url()
    if server is None:
        raise RuntimeError(f"{POSTGRES_ENV} is not set")
    return PostgresDatabases(server)


def wipe(database: Database) -> None:
    """Delete every row of every table, children first: a migrated, empty database again (with
    the plans the migration seeds, as they were seeded)."""
    with database.engine.begin() as connection:
        for table in reversed(metadata.sorted_tables):
            connection.execute(table.delete())
        connection.execute(plans.insert(), [plan_row(plan) for plan in SEED_PLANS])


class Snapshot:
    """Every row of a database as it is now, to put back later: cheaper than seeding again through
    the services, and the ids come back the same (sequences included), so a replayed case meets
    the same rows."""

    def __init__(self, database: Database) -> None:
        self._database = database
        with database.engine.connect() as connection:
            self._rows = {
                table: [dict(row) for row in connection.execute(table.select()).mappings()]
                for table in metadata.sorted_tables
            }
            self._sequences = _sequences(connection)

    def restore(self) -> None:
        """Empty every table and insert the rows taken, with every sequence where it was."""
        with self._database.engine.begin() as connection:
            for table in reversed(metadata.sorted_tables):
                connection.execute(table.delete())
            for table in metadata.sorted_tables:
                if self._rows[table]:
                    connection.execute(table.insert(), self._rows[table])
            if connection.dialect.name == "sqlite":
                connection.exec_driver_sql("DELETE FROM sqlite_sequence")
                for name, seq in self._sequences:
                    connection.exec_driver_sql("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", (name, seq))
            else:
                for name, value in self._sequences:
                    connection.execute(
                        sqlalchemy.text("SELECT setval(CAST(:name AS regclass), :value, :called)"),
                        {"name": name, "value": value or 1, "called": value is not None},
                    )


def _sequences(connection: sqlalchemy.Connection) -> list[tuple[str, int | None]]:
    """Each sequence's name and last value (None: never used)."""
    if connection.dialect.name == "sqlite":
        query = "SELECT name, seq FROM sqlite_sequence"
    else:
        query = "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename), last_value FROM pg_sequences"
    return [(name, value) for name, value in connection.exec_driver_sql(query)]
