"""The schema as SQLAlchemy Core tables: the single source the migrations are checked against.

Tenancy is enforced by the schema as well as by the repositories: every workspace row carries
`account_id`, and link rows (tags on contacts, list members, segment overrides, notes) point at
their parents through composite foreign keys `(account_id, x_id) -> parent(account_id, id)`, so a
row can never join two accounts. Surrogate ids are never reused (`sqlite_autoincrement`), since
they are visible in the API and in webhooks.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    MetaData,
)

from engage_sql.types import Id, UTCDateTime

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_N_name)s",
        "pk": "pk_%(table_name)s",
    }
)


def timestamps() -> tuple[Column[object], Column[object]]:
    return (
        Column("created_at", UTCDateTime(), nullable=False),
        Column("updated_at", UTCDateTime(), nullable=False),
    )


def account_id() -> Column[int]:
    return Column("account_id", Id, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False)


def owned_by_account(child_column: str, parent: str) -> ForeignKeyConstraint:
    """`(account_id, child_column) -> parent(account_id, id)`, deleted with the parent."""
    return ForeignKeyConstraint(
        ["account_id", child_column], [f"{parent}.account_id", f"{parent}.id"], ondelete="CASCADE"
    )
