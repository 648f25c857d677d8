"""Alembic migrations: applied by `Database.upgrade()`, and in step with the tables of `engage_sql.areas`."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from engage_core.contacts.model import ContactDraft, ContactInput
from engage_core.services import Services
from engage_core.testing import AllowAllTargets, FakeCipher
from engage_core.webhooks.service import WebhookInput
from engage_sql import Database
from engage_sql.areas import metadata
from engage_sql.knowledge.search_index import include_object
from engage_sql.migrate import SCRIPT_LOCATION, downgrade, upgrade

# Every revision, oldest first, read from the scripts so a new migration needs no test edits.
REVISIONS = [s.revision for s in reversed(list(ScriptDirectory(str(SCRIPT_LOCATION)).walk_revisions()))]


def test_upgrade_applies_every_revision_to_an_empty_database(make_database: Callable[..., Database]) -> None:
    """On an empty database, upgrade() applies the migrations and names them, oldest first."""
    database = make_database(migrated=False)

    assert database.upgrade() == REVISIONS


def test_upgrade_applies_nothing_when_up_to_date(make_database: Callable[..., Database]) -> None:
    """A second upgrade() finds nothing to do."""
    database = make_database(migrated=False)
    database.upgrade()

    assert database.upgrade() == []


def test_migrated_schema_matches_the_tables(make_database: Callable[..., Database]) -> None:
    """Autogenerate finds no difference between the migrated database and `tables.metadata` (the
    full-text index aside, which is not on it)."""
    database = make_database(migrated=False)
    database.upgrade()

    with database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"include_object": include_object})
        differences = compare_metadata(context, metadata)

    assert differences == []


def test_downgrade_to_base_removes_every_table(make_database: Callable[..., Database]) -> None:
    """The initial migration's downgrade leaves only Alembic's version table."""
    database = make_database()

    downgrade(database.engine, "base")
    with database.engine.connect() as connection:
        remaining = set(inspect(connection).get_table_names())

    assert remaining == {"alembic_version"}


def test_downgrade_keeps_the_rows_of_rebuilt_tables(make_database: Callable[..., Database]) -> None:
    """Undoing 0008, which rebuilds `webhooks` on SQLite, keeps the delivery log of the workspaces."""
    database = make_database()
    services = Services.build(database.uow, cipher=FakeCipher(), guard=AllowAllTargets())
    account = services.accounts.create("Acme").account
    services.webhooks.create(account.id, WebhookInput(name="hook", url="https://hooks.example/in"))
    services.contacts.create(account.id, ContactInput(name="Ann", type="instagram"))

    downgrade(database.engine, "0007")
    with database.engine.connect() as connection:
        attempts = connection.exec_driver_sql("SELECT count(*) FROM webhook_attempts").scalar_one()

    assert attempts == 1


def test_new_database_is_empty(database: Database) -> None:
    """A freshly migrated database has no account."""
    assert database.is_empty()


def test_database_with_an_account_is_not_empty(database: Database) -> None:
    """Once an account exists, the database is no longer empty."""
    with database.uow.admin() as uow:
        uow.accounts.add("Acme", "0" * 64, "eng_abcd…", datetime.now(UTC))
        uow.commit()

    assert not database.is_empty()


_REBUILD_CONTACTS = f"""
import sqlalchemy as sa
from alembic import op

revision = "9999"
down_revision = "{REVISIONS[-1]}"


def upgrade():
    with op.batch_alter_table("contacts", recreate="always") as batch:
        batch.add_column(sa.Column("nickname", sa.String(50)))
"""


def test_sqlite_table_rebuild_keeps_child_rows(tmp_path: Path) -> None:
    """A batch migration that rebuilds a parent table on SQLite does not cascade-delete its children."""
    scripts = tmp_path / "migrations"
    shutil.copytree(SCRIPT_LOCATION, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "9999_rebuild_contacts.py").write_text(_REBUILD_CONTACTS)
    database = Database.connect(f"sqlite:///{tmp_path / 'engage.db'}")
    try:
        database.upgrade()
        with database.uow.admin() as admin:
            account = admin.accounts.add("Acme", "0" * 64, "eng_abcd…", datetime.now(UTC)).id
            admin.commit()
        with database.uow.workspace(account) as uow:
            contact = uow.contacts.add(ContactDraft(name="Ada", type="instagram"), datetime.now(UTC))
            uow.notes.add(contact.id, "Keep me", datetime.now(UTC))
            uow.commit()

        applied = upgrade(database.engine, scripts)

        with database.uow.workspace(account, readonly=True) as uow:
            assert (applied, [n.content for n in uow.notes.for_contact(contact.id)]) == (["9999"], ["Keep me"])
    finally:
        database.dispose()
