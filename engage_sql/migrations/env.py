"""Alembic environment: runs on the connection handed over by `engage_sql.migrate`, if any.

Without one (the `alembic` command with a `sqlalchemy.url`), it makes its own engine through
`engage_sql.engines`, so SQLite gets the same pragmas and locking as the application.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from alembic import context
from alembic.migration import MigrationContext, MigrationInfo
from sqlalchemy import Connection

from engage_sql.areas import metadata
from engage_sql.engines import create_engine
from engage_sql.knowledge.search_index import include_object

config = context.config


def _record_applied(
    ctx: MigrationContext, step: MigrationInfo, heads: Collection[Any], run_args: Mapping[str, Any]
) -> None:
    applied = config.attributes.get("applied")
    if applied is not None and step.is_upgrade:
        applied.append(step.up_revision_id)


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        include_object=include_object,  # the full-text index is not on `metadata`
        # SQLite cannot ALTER most things: autogenerate "move and copy" batches for it.
        render_as_batch=connection.dialect.name == "sqlite",
        on_version_apply=_record_applied,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    try:
        with engine.begin() as own:
            _run(own)
    finally:
        engine.dispose()


def run_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=metadata,
        include_object=include_object,  # the full-text index is not on `metadata`
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
